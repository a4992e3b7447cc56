"""Tomarse un respiro (§3.8): a player spends coins of the hope chest on their own protagonist outside a
conflict (−1 exhaustion or a response box cleared per coin), "when the GM allows the moment". The player
asks (the rules refuse at once what they would refuse anyway: no hope, in a conflict...), the GM allows or
not; the coins and the sheet move through the ledger only on the GM's word.

Why a procedure and not ``Who.OWNER`` on the operation: every hope use outside a conflict needs the GM's
word (§3.8, §4), and the sheet binding cannot tell who asks, so the operation itself stays the GMs'."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from pydantic import BaseModel, ConfigDict, Field

from campaigns import policy
from campaigns.policy import Viewer
from rulesets.dont_rest_your_head.procedures import words
from rulesets.dont_rest_your_head.procedures.conflict_rolls import protagonist
from rulesets.dont_rest_your_head.procedures.conflict_state import chest, settings
from rulesets.dont_rest_your_head.sheet import in_open_conflict, is_opposition, load_sheet
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
from systems.dont_rest_your_head.coins import BreatherUse, take_breather
from systems.registry import Names

_MODEL = ConfigDict(extra="forbid")


class BreatherState(BaseModel):
    model_config = _MODEL

    character: int
    name: str
    player: Actor
    uses: list[BreatherUse]
    phase: Literal["asked", "allowed", "refused", "withdrawn"] = "asked"


class BreatherOpen(BaseModel):
    """How many coins go to each use (vector 11: exhaustion −1 twice and a fight box: 2, 1, 0)."""

    model_config = _MODEL

    character: int
    exhaustion: int = Field(0, ge=0, le=6)
    fight: int = Field(0, ge=0, le=6)
    flight: int = Field(0, ge=0, le=6)

    def uses(self) -> list[BreatherUse]:
        uses: list[BreatherUse] = ["exhaustion-1"] * self.exhaustion
        return uses + ["clear_fight"] * self.fight + ["clear_flight"] * self.flight


def use_words(use: str) -> str:
    return words.benefit_words(use)


def _uses_text(uses: Sequence[str]) -> str:
    return ", ".join(use_words(u) for u in uses)


def _ask(given: OpeningInput[BreatherOpen]) -> Outcome[BreatherState]:
    loaded, uses = given.table, given.params.uses()
    character = protagonist(loaded, given.params.character)
    if not policy.may_open_character_procedure(given.viewer, character):
        raise PermissionDenied(_("Solo el jugador del protagonista o un máster pide su respiro."))
    # A dry run with the GM's word: what the rules would refuse anyway (NO_HOPE, IN_CONFLICT...) is
    # refused now rather than after the GM's answer.
    s = settings(loaded)
    in_conflict = in_open_conflict(loaded.rules_state, character.id)
    take_breather(load_sheet(character.sheet, s), chest(loaded), uses, True, in_conflict, s)
    state = BreatherState(character=character.id, name=character.name, player=character.actor, uses=uses)
    n = len(uses)
    line = in_both(
        lambda: (
            ngettext(
                "%(name)s pide tomarse un respiro: %(uses)s (%(n)s moneda de esperanza).",
                "%(name)s pide tomarse un respiro: %(uses)s (%(n)s monedas de esperanza).",
                n,
            )
            % {"name": character.name, "uses": _uses_text(uses), "n": n}
        )
    )
    return Outcome(state=state, record=[RecordLine(line)])


def _allow(given: StepInput[BreatherState, NoParams]) -> Outcome[BreatherState]:
    state = given.state
    before = chest(given.table).hope
    op = LedgerOp("take_breather", {"uses": list(state.uses)}, state.character, _("Tomarse un respiro"))
    line = in_both(
        lambda: (
            _("El DJ permite el respiro: %(name)s: %(uses)s. Esperanza: %(before)s → %(after)s.")
            % {"name": state.name, "uses": _uses_text(state.uses), "before": before, "after": before - len(state.uses)}
        )
    )
    done = state.model_copy(update={"phase": "allowed"})
    return Outcome(state=done, closes="settled", ledger=[op], record=[RecordLine(line)])


def _refuse(given: StepInput[BreatherState, NoParams]) -> Outcome[BreatherState]:
    state = given.state
    line = in_both(lambda: _("El DJ no permite el respiro de %(name)s ahora.") % {"name": state.name})
    done = state.model_copy(update={"phase": "refused"})
    return Outcome(state=done, closes="cancelled", record=[RecordLine(line)])


def _withdraw(given: StepInput[BreatherState, NoParams]) -> Outcome[BreatherState]:
    state = given.state
    line = in_both(lambda: _("%(name)s retira su petición de respiro.") % {"name": state.name})
    done = state.model_copy(update={"phase": "withdrawn"})
    return Outcome(state=done, closes="cancelled", record=[RecordLine(line)])


def own_protagonists(table: Table, viewer: Viewer) -> list[Choice]:
    """The protagonists this viewer asks for: their own (every one for a GM), by name."""
    return [
        Choice(str(c.id), c.name)
        for c in table.characters.values()
        if c.approved and not c.is_npc and not is_opposition(c.sheet) and policy.may_open_character_procedure(viewer, c)
    ]


def _choices(table: Table, viewer: Viewer) -> Mapping[str, Sequence[Choice]]:
    mine = own_protagonists(table, viewer)
    uses = [Choice(u, use_words(u)) for u in ("exhaustion-1", "clear_fight", "clear_flight")]
    return {"character": mine, "uses": uses}


def _no_hope(state: BreatherState, table: Table) -> Names | None:
    if chest(table).hope >= len(state.uses):
        return None
    return in_both(lambda: _("El cofre de esperanza no tiene monedas suficientes."))


BREATHER: Procedure[BreatherState] = Procedure(
    key="breather",
    title=gettext_lazy("Tomarse un respiro"),
    state=BreatherState,
    reads=Reads(rules_state=True),
    opening=Opening(params=BreatherOpen, run=_ask, choices=_choices),
    steps=(
        Step(
            key="allow",
            label=gettext_lazy("Permitir el respiro"),
            params=NoParams,
            who=lambda s: {GM} if s.phase == "asked" else set(),
            run=_allow,
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
