"""Procedures as typed step tables: what a ruleset declares, what ``rolls.runner`` runs.

A procedure (a FATE invocation window, a DRYH conflict, an Event desafío, a Presagios challenge) is:

- a typed **state** (a pydantic model stored as the procedure's JSON) and, when the rules keep something from
  the players, a typed **secret** (stored apart, for GMs only);
- an **opening** (its params model and the pure function that builds the first state);
- a table of **steps**: each with its params model, who may take it now *by the rules* (a function of the
  state), whether the procedure waits for it, its label, and the pure transition it runs.

The runner derives everything else from the table: who the procedure waits for (:meth:`Procedure.waiting`),
which steps a viewer may take now (the rules say who; ``campaigns.policy`` decides), and the one refusal of a
step the table does not offer. A step's function never queries the ORM, locks rows or publishes: it reads
the :class:`~rulesets.kit.table.Table` the runner loaded and returns an :class:`Outcome` (the new state,
ledger operations, follow-ups under rolls, scene-board changes, lines of the thread's record), which the
runner applies in the step's transaction and publishes after commit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from django.utils.functional import Promise
from pydantic import BaseModel

from rulesets.kit.refusals import step_not_available
from rulesets.kit.rolls import RollSpec
from rulesets.kit.table import GM, JSON, Actor, Reads, StoredRoll, Table
from systems.dice import DiceSource
from systems.errors import RulesError
from systems.registry import Names

if TYPE_CHECKING:
    from campaigns.policy import Viewer

S = TypeVar("S", bound=BaseModel)
P = TypeVar("P", bound=BaseModel)

Label = str | Promise  # a gettext_lazy string: translated where it is shown


class NoParams(BaseModel):
    """The params of a step that takes none (a button)."""

    model_config = {"extra": "forbid"}


# --- What a step produces ------------------------------------------------------------------------


@dataclass(frozen=True)
class LedgerOp:
    """A sheet or pool operation the step applies through the ledger (``characters.services``).

    ``by_rules``: the procedure's rules grant this change to the step's actor (a player accepting a compel
    earns its fate point); the runner already checked who takes the step, so the direct-operation policy is
    not asked again.
    """

    operation: str
    params: JSON = field(default_factory=dict)
    character_id: int | None = None
    reason: str = ""
    by_rules: bool = False


@dataclass(frozen=True)
class FollowUp:
    """A linked record under a roll: what happened to it, in words, and its result afterwards."""

    roll_id: int
    kind: str
    summary: Names
    data: JSON = field(default_factory=dict)
    result: JSON = field(default_factory=dict)
    character_id: int | None = None


@dataclass(frozen=True)
class AddAspect:
    text: str
    free_invocations: int = 0
    hidden: bool = False


@dataclass(frozen=True)
class UpdateAspect:
    aspect_id: int
    free_invocations: int | None = None
    hidden: bool | None = None


@dataclass(frozen=True)
class RemoveAspect:
    aspect_id: int


BoardChange = AddAspect | UpdateAspect | RemoveAspect


@dataclass(frozen=True)
class RecordLine:
    """One line of the procedure's permanent record in the thread, in words (never internals).

    ``gm_only``: a fact only GMs may read (a secret difficulty); a later step that reveals it adds a public
    line. ``rolls``: stored rolls this line shows as dice.
    """

    words: Names
    gm_only: bool = False
    rolls: tuple[int, ...] = ()


Closing = Literal["settled", "cancelled"]


@dataclass(frozen=True)
class OtherProcedure:
    """A change a step makes to another procedure it read (``Reads.procedures``, locked by the runner): an
    Event action uses up a valued reaction. ``step`` names the row logged on that procedure."""

    procedure_id: int
    state: JSON
    step: str
    secret: JSON | None = None
    closes: Closing | None = None
    record: Sequence[RecordLine] = ()


@dataclass(frozen=True)
class Outcome(Generic[S]):
    """What a step (or the opening) produced; the runner stores and applies it in one transaction."""

    state: S
    secret: BaseModel | None = None  # None: the secret is unchanged
    closes: Closing | None = None
    ledger: Sequence[LedgerOp] = ()
    follow_ups: Sequence[FollowUp] = ()
    board: Sequence[BoardChange] = ()
    record: Sequence[RecordLine] = ()
    adopt: Sequence[int] = ()  # stored rolls (ids) this procedure takes as its own
    reveal: Sequence[int] = ()  # its own GM-only rolls the rules now show to the table (a sealed roll)
    step_params: JSON | None = None  # what the step's row records instead of the params (a sealed value)
    others: Sequence[OtherProcedure] = ()  # changes to other procedures the step read


# --- What a step receives ------------------------------------------------------------------------


@dataclass(frozen=True)
class StepInput(Generic[S, P]):
    """A step's inputs. ``roll(spec)`` rolls now with the server's dice, linked to the procedure (and to the
    step's post), and returns the stored roll so the step can feed its faces to the pure rules."""

    state: S
    secret: BaseModel | None
    params: P
    table: Table
    viewer: Viewer
    dice: DiceSource
    roll: Callable[[RollSpec], StoredRoll]
    procedure_id: int
    # Its place among the scene's procedures of its kind (1, 2, 3...): how words name it («Conflicto 2»),
    # never by its id.
    procedure_number: int = 0


@dataclass(frozen=True)
class OpeningInput(Generic[P]):
    params: P
    table: Table
    viewer: Viewer
    dice: DiceSource
    roll: Callable[[RollSpec], StoredRoll]
    procedure_id: int
    procedure_number: int = 0


# --- The table -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """One option of a picker: the value the form sends and what the page shows (never an id alone)."""

    value: str
    label: str


@dataclass(frozen=True)
class Step(Generic[S, P]):
    """One row of a procedure's table.

    - ``who(state)``: who may take the step now according to the rules (``"gm"`` and/or user ids); empty
      when the step is not offered in this state;
    - ``awaited``: the procedure waits for it (False for optional steps such as invoking an aspect);
    - ``waiting(state, table)``: the waiting line in words (default: the label);
    - ``unavailable(state, table, viewer)``: why the step cannot succeed now although the rules offer it (an
      empty pool, no point to pay), in words; None when it can. It is still listed for whoever may take it,
      but disabled with those words, and the runner refuses it (``step_unavailable``) if it is posted
      anyway. ``viewer`` is who would take it, so a cost each one pays from their own points is checked for
      them (words only they and whoever sees the same may read); None when the procedure asks for the whole
      table (its waiting line): answer then only what holds whoever takes it;
    - ``form``: the template of the step's fields (None: a button); ``choices(state, table, viewer)``: the
      pickers it offers that viewer (a mapping field -> options).
    """

    key: str
    label: Label
    params: type[P]
    who: Callable[[S], Iterable[Actor]]
    run: Callable[[StepInput[S, P]], Outcome[S]]
    awaited: bool = True
    waiting: Callable[[S, Table], Names] | None = None
    form: str | None = None
    choices: Callable[[S, Table, Viewer], Mapping[str, Sequence[Choice]]] | None = None
    unavailable: Callable[[S, Table, Viewer | None], Names | None] | None = None

    def why_unavailable(self, state: S, table: Table, viewer: Viewer | None = None) -> Names | None:
        """The words of :attr:`unavailable` for ``viewer`` (None: for the whole table), or None: it can. A
        refusal met while working the reason out (a character no longer approved) is the reason itself: the
        step is shown disabled, the page never fails."""
        if self.unavailable is None:
            return None
        try:
            return self.unavailable(state, table, viewer)
        except RulesError as refused:
            return Names(refused.message_es, refused.message_en)


@dataclass(frozen=True)
class Opening(Generic[S, P]):
    """How a procedure opens: its params and the function that builds the first state. Who may open it is
    asked inside ``run`` through ``campaigns.policy`` (the runner first checks the scene is writable)."""

    params: type[P]
    run: Callable[[OpeningInput[P]], Outcome[S]]
    form: str | None = None
    choices: Callable[[Table, Viewer], Mapping[str, Sequence[Choice]]] | None = None


@dataclass(frozen=True)
class Waiting:
    """The one shape of "what a procedure waits for": one entry per awaited step offered now."""

    step: str
    gm: bool
    users: tuple[int, ...]
    label: Names

    def as_json(self) -> JSON:
        return {
            "step": self.step,
            "gm": self.gm,
            "users": list(self.users),
            "label_es": self.label.es,
            "label_en": self.label.en,
        }


def waiting_json(entries: Sequence[Waiting]) -> JSON:
    """``Flow.waiting_for`` as stored and served: ``{"steps": [...]}``; ``{}`` when nothing is awaited."""
    return {"steps": [entry.as_json() for entry in entries]} if entries else {}


def waiting_entries(data: Mapping[str, Any] | None) -> list[Waiting]:
    """Read a stored ``waiting_for`` back. Transitional: old-style handlers stored one step as
    ``{"step", "who", "users", "label_es", "label_en"}``; it reads as one entry."""
    if not data:
        return []
    if "steps" in data:
        return [
            Waiting(
                str(e["step"]),
                bool(e.get("gm")),
                tuple(int(u) for u in e.get("users", ())),
                Names(str(e.get("label_es", "")), str(e.get("label_en", ""))),
            )
            for e in data["steps"]
        ]
    who = data.get("who")
    users = tuple(int(u) for u in data.get("users") or () if isinstance(u, int) or (isinstance(u, str) and u.isdigit()))
    step = str(data.get("step", ""))
    es = str(data.get("label_es") or step.replace("_", " "))
    return [
        Waiting(
            step, who == GM or (isinstance(who, list) and GM in who), users, Names(es, str(data.get("label_en") or es))
        )
    ]


@dataclass(frozen=True)
class Procedure(Generic[S]):
    key: str
    title: Label
    state: type[S]
    opening: Opening[S, Any]
    steps: tuple[Step[S, Any], ...]
    secret: type[BaseModel] | None = None
    reads: Reads = field(default_factory=Reads)
    # The lines a closed procedure's record ends with, besides its steps' (None: nothing more).
    summary: Callable[[S, Table], Sequence[RecordLine]] | None = None

    def __post_init__(self) -> None:
        keys = [step.key for step in self.steps]
        if len(keys) != len(set(keys)):
            raise ValueError(f"procedure {self.key!r} has two steps with one key")

    def step(self, key: str) -> Step[S, Any]:
        for step in self.steps:
            if step.key == key:
                return step
        raise step_not_available(key)

    def actors(self, state: S, key: str) -> frozenset[Actor]:
        """Who may take step ``key`` now by the rules (empty: not offered, or no such step)."""
        for step in self.steps:
            if step.key == key:
                return frozenset(step.who(state))
        return frozenset()

    def offered(self, state: S) -> list[tuple[Step[S, Any], frozenset[Actor]]]:
        """Every step offered in this state, with who may take it, in table order."""
        offered = []
        for step in self.steps:
            actors = frozenset(step.who(state))
            if actors:
                offered.append((step, actors))
        return offered

    def waiting(self, state: S, table: Table) -> list[Waiting]:
        """Who the procedure waits for, derived from the table (never written by hand).

        An awaited step unavailable now to the whole table (:attr:`Step.unavailable` asked with no viewer) is
        not what the procedure waits for while another awaited step can be taken. When every awaited step
        offered is unavailable, the procedure is stuck until something outside it changes (a pool refilled):
        it then waits for those steps, each line saying why («label: reason»), so the table sees who is
        blocked and on what.
        """
        ready: list[Waiting] = []
        blocked: list[Waiting] = []
        for step, actors in self.offered(state):
            if not step.awaited:
                continue
            label = step.waiting(state, table) if step.waiting else _label_names(step.label)
            users = tuple(sorted(a for a in actors if isinstance(a, int)))
            reason = step.why_unavailable(state, table)
            if reason is None:
                ready.append(Waiting(step.key, GM in actors, users, label))
            else:
                words = Names(f"{label.es}: {reason.es}", f"{label.en}: {reason.en}")
                blocked.append(Waiting(step.key, GM in actors, users, words))
        return ready or blocked

    def params_schemas(self) -> JSON:
        """The JSON schema of the opening's params and of each step's, by step key: what a client may send
        (every model refuses keys it does not read: ``additionalProperties`` is false)."""
        return {
            "opening": self.opening.params.model_json_schema(),
            "steps": {step.key: step.params.model_json_schema() for step in self.steps},
        }

    def load_state(self, data: JSON) -> S:
        return self.state.model_validate(data)

    def load_secret(self, data: JSON) -> BaseModel | None:
        return self.secret.model_validate(data) if self.secret is not None else None


def _label_names(label: Label) -> Names:
    from rulesets.kit.table import in_both

    return in_both(lambda: str(label))
