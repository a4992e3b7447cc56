"""The conflict's typed state (what ``Flow.state`` stores), its secret (a sealed pain roll's dice) and what
every step shares: the pure table built from what the runner loaded, the state stored back after a step,
and who acts for whom.

The conflict itself is the pure ``systems.dont_rest_your_head.conflict.Conflict`` (a dataclass pydantic
validates and dumps as it is): no hand-written converter between the stored JSON and the rules.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any, Literal

from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field

from rulesets.dont_rest_your_head.procedures import words
from rulesets.dont_rest_your_head.rolls import outcome_json, settings_of
from rulesets.dont_rest_your_head.sheet import is_opposition, load_sheet
from rulesets.kit.procedures import Outcome, RecordLine
from rulesets.kit.table import GM, Actor, StoredRoll, in_both
from rulesets.kit.table import Table as Loaded
from systems.dont_rest_your_head import conflict as rules
from systems.dont_rest_your_head.coins import Chest
from systems.dont_rest_your_head.conflict import Conflict, ConflictState, Table
from systems.dont_rest_your_head.roll import PainRoll
from systems.dont_rest_your_head.settings import Settings
from systems.dont_rest_your_head.settlement import settlement_options

PlayerPool = Literal["discipline", "exhaustion", "madness"]
AnyPool = Literal["discipline", "exhaustion", "madness", "pain"]
POOLS: tuple[AnyPool, ...] = ("discipline", "exhaustion", "madness", "pain")
_STATE = ConfigDict(extra="forbid")


class Person(BaseModel):
    """A protagonist of the conflict: its name for the record and who acts for it (its player, or GMs)."""

    model_config = _STATE

    name: str
    actor: Actor


class RollIds(BaseModel):
    """The stored rolls of the conflict, by role (their dice are the evidence)."""

    model_config = _STATE

    leader: int | None = None
    pain: int | None = None
    helpers: dict[str, int] = Field(default_factory=dict)
    participants: dict[str, int] = Field(default_factory=dict)


class PendingScar(BaseModel):
    """A scar the leader's player invoked, waiting for the GM's word (nothing is rerolled before)."""

    model_config = _STATE

    scar: int
    pool: PlayerPool
    text: str


class ScarChoice(BaseModel):
    model_config = _STATE

    index: int
    text: str


class Ask(BaseModel):
    """What settlement asks one involved protagonist's player: the discipline benefit or the box to check."""

    model_config = _STATE

    benefits: list[str] = Field(default_factory=list)
    boxes: list[str] = Field(default_factory=list)
    chosen: str | None = None

    @property
    def needed(self) -> bool:
        # "nothing" alone, or one free box, asks nothing (B-AMB-33).
        return len(self.benefits) > 1 or len(self.boxes) > 1


class ConflictFlowState(BaseModel):
    model_config = _STATE

    conflict: Conflict
    phase: str  # the conflict's state, for pages and clients (ConflictState values)
    people: dict[str, Person]
    rolls: RollIds = Field(default_factory=RollIds)
    pain_sealed: bool = False
    pain_rolled: bool = False
    pending_minor: bool = False
    pending_scar: PendingScar | None = None
    leader_scars: list[ScarChoice] = Field(default_factory=list)
    asks: dict[str, Ask] = Field(default_factory=dict)
    consequences: list[str] = Field(default_factory=list)  # the GM's allowed failure consequences
    outcome: dict[str, Any] | None = None  # the provisional (then final) result, shown on the page
    settlement: dict[str, Any] | None = None
    last_change_at: datetime | None = None


class ConflictSecret(BaseModel):
    """(R, B-AMB-30) a pain roll made before the player's stays sealed: its dice only here, for GMs."""

    model_config = _STATE

    pain_dice: tuple[int, ...] = ()


# --- reading ------------------------------------------------------------------------------------------


def settings(loaded: Loaded) -> Settings:
    return settings_of(loaded.settings)


def conflict_of(state: ConflictFlowState, secret: BaseModel | None) -> Conflict:
    """The conflict as the rules see it: the public state plus a sealed pain roll."""
    conflict = state.conflict
    if isinstance(secret, ConflictSecret) and secret.pain_dice and conflict.pain_roll is None:
        conflict = replace(conflict, pain_roll=PainRoll(dice=secret.pain_dice))
    return conflict


def chest(loaded: Loaded) -> Chest:
    fields = {k: loaded.rules_state[k] for k in Chest.model_fields if k in loaded.rules_state}
    return Chest.model_validate(fields)


def pure_table(loaded: Loaded, conflict: Conflict) -> Table:
    """The pure table of the rules: the conflict, the chests, the sheets of the protagonists in it."""
    s = settings(loaded)
    sheets = {}
    for pc in {*conflict.involved, *conflict.helpers, *conflict.participants}:
        character = loaded.characters.get(int(pc))
        if character is not None and not is_opposition(character.sheet):
            sheets[pc] = load_sheet(character.sheet, s)
    return Table(conflict=conflict, chest=chest(loaded), sheets=sheets)


def name(state: ConflictFlowState, pc: str | None) -> str:
    person = state.people.get(pc or "")
    return person.name if person else "?"


def actor(state: ConflictFlowState, pc: str | None) -> Actor | None:
    person = state.people.get(pc or "")
    return person.actor if person else None


def actors(state: ConflictFlowState, pcs: Any) -> set[Actor]:
    return {a for pc in pcs if (a := actor(state, pc)) is not None}


def leader_actor(state: ConflictFlowState) -> set[Actor]:
    return actors(state, [state.conflict.leader] if state.conflict.leader else [])


def gm_when(condition: bool) -> set[Actor]:
    return {GM} if condition else set()


def faces(roll: StoredRoll, *pools: str) -> list[int]:
    """A stored roll's faces, in the order the pure step draws them."""
    stored = roll.result.get("pools") or {}
    return [int(f) for pool in pools for f in stored.get(pool) or ()]


def in_play(conflict: Conflict) -> list[AnyPool]:
    return [p for p in POOLS if conflict.rolled_size(p)]


# --- writing --------------------------------------------------------------------------------------------


def stored(
    state: ConflictFlowState, table: Table, loaded: Loaded | None = None, **changes: Any
) -> tuple[ConflictFlowState, ConflictSecret]:
    """The state to store after a step, and its secret: a sealed pain roll's dice never reach the state.
    With ``loaded`` (the runner's table), what the window and settlement offer is computed again."""
    conflict = table.conflict
    new = state.model_copy(update=changes)
    sealed = new.pain_sealed and conflict.pain_roll is not None
    public = replace(conflict, pain_roll=None, settlement=None) if sealed else replace(conflict, settlement=None)
    update: dict[str, Any] = {
        "conflict": public,
        "phase": conflict.state.value,
        "pain_rolled": conflict.pain_roll is not None,
    }
    if loaded is not None and conflict.state in (ConflictState.ADJUSTING, ConflictState.SETTLING):
        update["outcome"] = outcome_json(rules.outcome(conflict))
        update |= _offers(new, table, settings(loaded))
    secret = ConflictSecret(pain_dice=conflict.pain_roll.dice if sealed and conflict.pain_roll else ())
    return new.model_copy(update=update), secret


def _offers(state: ConflictFlowState, table: Table, s: Settings) -> dict[str, Any]:
    conflict = table.conflict
    scars: list[ScarChoice] = []
    if conflict.leader is not None and conflict.leader in table.sheets:
        sheet = table.sheets[conflict.leader]
        scars = [
            ScarChoice(index=i, text=sc.text)
            for i, sc in enumerate(sheet.scars)
            if not sc.crossed_out and not sc.invoked_this_session
        ]
    options = settlement_options(table, s)
    asks = {}
    for pc in conflict.involved:
        boxes: list[str] = list(options.madness_boxes.get(pc, ()))
        asks[pc] = Ask(
            benefits=list(options.discipline_benefits.get(pc, ())),
            boxes=boxes if len(boxes) > 1 else [],
            chosen=state.asks[pc].chosen if pc in state.asks else None,
        )
    return {"leader_scars": scars, "asks": asks, "consequences": list(options.consequences)}


def outcome_record(conflict: Conflict, *, final: bool = False) -> RecordLine:
    """The result as it stands, in words ("Resultado provisional: Gana el protagonista…"); ``final`` once the
    adjustment window has closed."""
    result = rules.outcome(conflict)
    if final:
        return RecordLine(in_both(lambda: _("Resultado: %(outcome)s") % {"outcome": words.outcome_line(result)}))
    return RecordLine(
        in_both(lambda: _("Resultado provisional: %(outcome)s") % {"outcome": words.outcome_line(result)})
    )


def step_outcome(
    state: ConflictFlowState, table: Table, loaded: Loaded, record: list[RecordLine], **kwargs: Any
) -> Outcome[ConflictFlowState]:
    """An outcome that stores the conflict as it now stands (``kwargs``: ledger, follow-ups, closes...)."""
    changes = kwargs.pop("changes", {})
    new, secret = stored(state, table, loaded, **changes)
    return Outcome(state=new, secret=secret, record=record, **kwargs)
