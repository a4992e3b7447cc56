"""Recuperar disciplina (§3.8): a player pays 5 − discipline coins of the hope chest for +1 discipline and
−1 permanent madness, "after calm reflection", which the GM confirms. As with a breather, the player asks
(the rules refuse at once NO_HOPE, NOTHING_TO_RECOVER, IN_CONFLICT...), the GM confirms or not, and only
then the ledger moves; the operation itself stays the GMs'."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from pydantic import BaseModel, ConfigDict

from campaigns import policy
from campaigns.policy import Viewer
from rulesets.dont_rest_your_head.procedures.breather import own_protagonists
from rulesets.dont_rest_your_head.procedures.conflict_rolls import protagonist
from rulesets.dont_rest_your_head.procedures.conflict_state import chest, settings
from rulesets.dont_rest_your_head.sheet import in_open_conflict, load_sheet
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
from rulesets.kit.table import GM, Actor, Reads, Table, in_both
from systems.dont_rest_your_head.coins import recover_cost, recover_discipline
from systems.registry import Names

_MODEL = ConfigDict(extra="forbid")


class RecoveryState(BaseModel):
    model_config = _MODEL

    character: int
    name: str
    player: Actor
    cost: int
    discipline: int  # before the recovery
    phase: Literal["asked", "confirmed", "refused", "withdrawn"] = "asked"


class RecoveryOpen(BaseModel):
    model_config = _MODEL

    character: int


def _ask(given: OpeningInput[RecoveryOpen]) -> Outcome[RecoveryState]:
    loaded = given.table
    character = protagonist(loaded, given.params.character)
    if not policy.may_open_character_procedure(given.viewer, character):
        raise PermissionDenied(_("Solo el jugador del protagonista o un máster pide su recuperación."))
    s = settings(loaded)
    sheet = load_sheet(character.sheet, s)
    # A dry run with the GM's word: what the rules refuse anyway is refused before asking the GM.
    recover_discipline(sheet, chest(loaded), True, in_open_conflict(loaded.rules_state, character.id), s)
    cost = recover_cost(sheet)
    state = RecoveryState(
        character=character.id, name=character.name, player=character.actor, cost=cost, discipline=sheet.discipline
    )
    line = in_both(
        lambda: (
            ngettext(
                "%(name)s pide recuperar disciplina: %(n)s moneda de esperanza.",
                "%(name)s pide recuperar disciplina: %(n)s monedas de esperanza.",
                cost,
            )
            % {"name": character.name, "n": cost}
        )
    )
    return Outcome(state=state, record=[RecordLine(line)])


def _confirm(given: StepInput[RecoveryState, NoParams]) -> Outcome[RecoveryState]:
    state = given.state
    before = chest(given.table).hope
    op = LedgerOp("recover_discipline", {}, state.character, _("Recuperar disciplina"))
    line = in_both(
        lambda: (
            _(
                "El DJ confirma la recuperación: %(name)s pasa de %(before)s a %(after)s de disciplina y pierde 1 de "
                "locura permanente. Esperanza: %(hope)s → %(left)s."
            )
            % {
                "name": state.name,
                "before": state.discipline,
                "after": state.discipline + 1,
                "hope": before,
                "left": before - state.cost,
            }
        )
    )
    done = state.model_copy(update={"phase": "confirmed"})
    return Outcome(state=done, closes="settled", ledger=[op], record=[RecordLine(line)])


def _refuse(given: StepInput[RecoveryState, NoParams]) -> Outcome[RecoveryState]:
    state = given.state
    line = in_both(lambda: _("El DJ no confirma la recuperación de %(name)s ahora.") % {"name": state.name})
    return Outcome(state=state.model_copy(update={"phase": "refused"}), closes="cancelled", record=[RecordLine(line)])


def _withdraw(given: StepInput[RecoveryState, NoParams]) -> Outcome[RecoveryState]:
    state = given.state
    line = in_both(lambda: _("%(name)s retira su petición de recuperación.") % {"name": state.name})
    return Outcome(state=state.model_copy(update={"phase": "withdrawn"}), closes="cancelled", record=[RecordLine(line)])


def _choices(table: Table, viewer: Viewer) -> Mapping[str, Sequence[Choice]]:
    return {"character": own_protagonists(table, viewer)}


def _no_hope(state: RecoveryState, table: Table) -> Names | None:
    if chest(table).hope >= state.cost:
        return None
    return in_both(lambda: _("El cofre de esperanza no tiene monedas suficientes."))


RECOVERY: Procedure[RecoveryState] = Procedure(
    key="recovery",
    title=gettext_lazy("Recuperar disciplina"),
    state=RecoveryState,
    reads=Reads(rules_state=True),
    opening=Opening(params=RecoveryOpen, run=_ask, choices=_choices),
    steps=(
        Step(
            key="confirm",
            label=gettext_lazy("Confirmar la recuperación"),
            params=NoParams,
            who=lambda s: {GM} if s.phase == "asked" else set(),
            run=_confirm,
            blocked=_no_hope,
        ),
        Step(
            key="refuse",
            label=gettext_lazy("Ahora no"),
            params=NoParams,
            who=lambda s: {GM} if s.phase == "asked" else set(),
            run=_refuse,
            awaited=False,
        ),
        Step(
            key="withdraw",
            label=gettext_lazy("Retirar la petición"),
            params=NoParams,
            who=lambda s: {s.player} if s.phase == "asked" and s.player != GM else set(),
            run=_withdraw,
            awaited=False,
        ),
    ),
)
