"""``declaration`` (hacer una declaración, §4.7; provocar un efecto with one's own aspect, §4.6): a player
asks to make a small fact true; the GM approves (one fate point) or vetoes (nothing spent, A34); the player
may withdraw it while it waits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from pydantic import BaseModel, ConfigDict, Field

from campaigns import policy
from rulesets.fate_sotc.procedures.aspects import own_aspect_choices, resolve_aspect
from rulesets.fate_sotc.procedures.common import Params, fate_points_words, line, own_character_choices, wallet_of
from rulesets.kit.procedures import (
    Choice,
    LedgerOp,
    NoParams,
    Opening,
    OpeningInput,
    Outcome,
    Procedure,
    Step,
    StepInput,
)
from rulesets.kit.refusals import refuse
from rulesets.kit.table import GM, Actor, Reads, Table, in_both
from systems.fate_sotc.fate_points import FpKind, FpRequest, approve_request, request_spend, veto_request


class DeclarationState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    phase: Literal["requested", "approved", "vetoed", "withdrawn"]
    character: int
    name: str
    actor: Actor
    text: str
    kind: FpKind
    aspect_text: str = ""


class DeclarationOpen(Params):
    character: int
    text: str = Field(min_length=1, max_length=500)
    aspect: str = Field(default="", max_length=80)  # an own aspect: invoke for effect (§4.6)


def open_declaration(given: OpeningInput[DeclarationOpen]) -> Outcome[DeclarationState]:
    chosen = given.params
    character = given.table.character(chosen.character)
    if not policy.controls_character(given.viewer, character):
        raise refuse(
            "not_your_character",
            "Solo puedes declarar con tu propio personaje.",
            "You may only declare with your own character.",
        )
    kind, aspect_text = FpKind.DECLARATION, ""
    if chosen.aspect:
        aspect, _stored = resolve_aspect(given.table, chosen.aspect, str(character.id))
        if aspect.owner_character_id != str(character.id):
            raise refuse(
                "not_own_aspect",
                "Para provocar un efecto con un aspecto ajeno hay que forzarlo (§4.6).",
                "Invoking for effect with someone else's aspect sets up a compel (§4.6).",
            )
        kind, aspect_text = FpKind.INVOKE_EFFECT_OWN, aspect.text
    request_spend(kind, wallet_of(character))  # refused now without a point; paid only on approval
    state = DeclarationState(
        phase="requested",
        character=character.id,
        name=character.name,
        actor=character.actor,
        text=chosen.text.strip(),
        kind=kind,
        aspect_text=aspect_text,
    )
    values = {"name": character.name, "text": state.text, "aspect": aspect_text}
    words = line(
        lambda: (
            (
                _("%(name)s provoca un efecto con «%(aspect)s»: %(text)s")
                if values["aspect"]
                else _("%(name)s declara: %(text)s")
            )
            % values
        )
    )
    return Outcome(state=state, record=[words])


def run_approve(given: StepInput[DeclarationState, NoParams]) -> Outcome[DeclarationState]:
    state = given.state
    character = given.table.character(state.character)
    approve_request(FpRequest(state.kind, 1), wallet_of(character))  # refused if the point was spent meanwhile
    reason = (_("Declaración: %(text)s") % {"text": state.text})[:300]
    op = LedgerOp(state.kind.value, {"gm_approved": True}, character.id, reason)
    words = line(
        lambda: (
            _("El DJ aprueba: pasa a ser cierto; %(name)s gasta %(fp)s")
            % {"name": state.name, "fp": fate_points_words(1)}
        )
    )
    return Outcome(state=state.model_copy(update={"phase": "approved"}), closes="settled", ledger=[op], record=[words])


def run_veto(given: StepInput[DeclarationState, NoParams]) -> Outcome[DeclarationState]:
    veto_request(FpRequest(given.state.kind, 1))
    words = line(lambda: _("El DJ veta la declaración: no se gasta ningún punto de destino"))
    return Outcome(state=given.state.model_copy(update={"phase": "vetoed"}), closes="settled", record=[words])


def run_withdraw(given: StepInput[DeclarationState, NoParams]) -> Outcome[DeclarationState]:
    words = line(lambda: _("%(name)s retira la declaración") % {"name": given.state.name})
    return Outcome(state=given.state.model_copy(update={"phase": "withdrawn"}), closes="cancelled", record=[words])


def _requested(state: DeclarationState, *actors: Actor) -> set[Actor]:
    return set(actors) if state.phase == "requested" else set()


def opening_choices(table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    mine = [c for c in table.characters.values() if c.approved and policy.controls_character(viewer, c)]
    return {
        "character": own_character_choices(table, viewer),
        "aspect": [choice for c in mine for choice in own_aspect_choices(c, table)],
    }


DECLARATION: Procedure[Any] = Procedure(
    key="declaration",
    title=gettext_lazy("Declaración"),
    state=DeclarationState,
    reads=Reads(),
    opening=Opening(params=DeclarationOpen, run=open_declaration, choices=opening_choices),
    steps=(
        Step(
            key="approve",
            label=gettext_lazy("Aprobar (un punto de destino)"),
            params=NoParams,
            who=lambda s: _requested(s, GM),
            run=run_approve,
            waiting=lambda s, t: in_both(
                lambda: _("El DJ aprueba o veta la declaración de %(name)s") % {"name": s.name}
            ),
        ),
        Step(
            key="veto",
            label=gettext_lazy("Vetar (no cuesta nada)"),
            params=NoParams,
            who=lambda s: _requested(s, GM),
            run=run_veto,
            awaited=False,
        ),
        Step(
            key="withdraw",
            label=gettext_lazy("Retirar"),
            params=NoParams,
            who=lambda s: _requested(s, s.actor, GM),
            run=run_withdraw,
            awaited=False,
        ),
    ),
)
