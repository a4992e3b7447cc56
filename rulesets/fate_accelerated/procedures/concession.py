"""Rendición (spec §5.6): declared before the opponent rolls (A-08: an action aimed at the character with
dice on the table must be resolved first); the GM confirms the terms and the rules count the fate points."""

from __future__ import annotations

from enum import StrEnum

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from pydantic import BaseModel, ConfigDict, Field

from campaigns import policy
from campaigns.policy import Viewer
from rulesets.fate_accelerated.procedures.common import conflict_of, require_controls, sheet_of, words
from rulesets.kit.procedures import (
    Choice,
    LedgerOp,
    NoParams,
    Opening,
    OpeningInput,
    Outcome,
    Procedure,
    RecordLine,
    Step,
    StepInput,
)
from rulesets.kit.table import GM, Actor, CharacterFacts, Reads, Table
from systems.fate_accelerated import fate_points as pure
from systems.registry import Names

PENDING_PHASES = frozenset({"defend", "window", "absorb"})


class ConcessionPhase(StrEnum):
    DECLARED = "declared"
    CONCEDED = "conceded"
    WITHDRAWN = "withdrawn"


class ConcessionState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    phase: ConcessionPhase
    character: int
    name: str
    controller: Actor
    terms: str
    fate_points: int


class ConcessionOpen(BaseModel):
    model_config = ConfigDict(extra="forbid")

    character: int
    terms: str = Field(min_length=1, max_length=1000)


class _EarlierAction(BaseModel):
    """What the concession reads of an earlier action in the scene (its state, typed loosely)."""

    model_config = ConfigDict(extra="ignore")

    target: int | None = None
    phase: str = ""


def _pending_against(table: Table, character_id: int) -> bool:
    """A-08: an open action aimed at the character, with dice on the table and not yet resolved."""
    for earlier in table.earlier:
        if earlier.kind != "action" or earlier.status != "open":
            continue
        action = _EarlierAction.model_validate(earlier.state)
        if action.target == character_id and action.phase in PENDING_PHASES:
            return True
    return False


def _awarded(table: Table, character: CharacterFacts) -> int:
    result = pure.concede(
        sheet_of(table, character),
        str(character.id),
        conflict_of(table),
        opposing_rolls_pending=(_pending_against(table, character.id),),
    )
    return result.awarded


def opening_choices(table: Table, viewer: Viewer) -> dict[str, list[Choice]]:
    mine = sorted(
        (c for c in table.characters.values() if c.approved and policy.controls_character(viewer, c)),
        key=lambda c: c.name,
    )
    return {"character": [Choice(str(c.id), c.name) for c in mine]}


def _fate_points_words(name: str, n: int) -> str:
    return ngettext(
        "%(name)s se rinde y gana %(n)d punto de destino.", "%(name)s se rinde y gana %(n)d puntos de destino.", n
    ) % {"name": name, "n": n}


def _opening(given: OpeningInput[ConcessionOpen]) -> Outcome[ConcessionState]:
    table = given.table
    character = table.character(given.params.character)
    require_controls(given.viewer, character)
    state = ConcessionState(
        phase=ConcessionPhase.DECLARED,
        character=character.id,
        name=character.name,
        controller=character.actor,
        terms=given.params.terms.strip(),
        fate_points=_awarded(table, character),
    )
    said = words(lambda: _("%(name)s se rinde: %(terms)s") % {"name": state.name, "terms": state.terms})
    return Outcome(state=state, record=[RecordLine(said)])


def _confirm(given: StepInput[ConcessionState, NoParams]) -> Outcome[ConcessionState]:
    state, table = given.state, given.table
    character = table.character(state.character)
    awarded = _awarded(table, character)
    ledger = [
        LedgerOp("concede", {"character": str(character.id), "conflict": conflict_of(table)}, character.id, "rendición")
    ]
    state = state.model_copy(update={"phase": ConcessionPhase.CONCEDED, "fate_points": awarded})
    said = words(lambda: _fate_points_words(state.name, awarded))
    return Outcome(state=state, closes="settled", ledger=ledger, record=[RecordLine(said)])


def _withdraw(given: StepInput[ConcessionState, NoParams]) -> Outcome[ConcessionState]:
    state = given.state.model_copy(update={"phase": ConcessionPhase.WITHDRAWN})
    said = words(lambda: _("%(name)s retira la rendición.") % {"name": state.name})
    return Outcome(state=state, closes="cancelled", record=[RecordLine(said)])


def _waiting_confirm(state: ConcessionState, table: Table) -> Names:
    return words(lambda: _("el DJ confirma la rendición de %(name)s") % {"name": state.name})


CONCESSION: Procedure[ConcessionState] = Procedure(
    key="concession",
    title=gettext_lazy("Rendición"),
    state=ConcessionState,
    reads=Reads(earlier_procedures=True),
    opening=Opening(params=ConcessionOpen, run=_opening, choices=opening_choices),
    steps=(
        Step(
            key="confirm",
            label=gettext_lazy("Confirmar la rendición"),
            params=NoParams,
            who=lambda s: {GM} if s.phase is ConcessionPhase.DECLARED else set(),
            run=_confirm,
            waiting=_waiting_confirm,
        ),
        Step(
            key="withdraw",
            label=gettext_lazy("Retirar"),
            params=NoParams,
            who=lambda s: {s.controller} if s.phase is ConcessionPhase.DECLARED else set(),
            run=_withdraw,
            awaited=False,
        ),
    ),
)
