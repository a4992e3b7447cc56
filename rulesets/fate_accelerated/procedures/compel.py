"""Forzado (spec §4.5): offered by the GM or a player, accepted or refused by the target's player (or the GM
for an NPC). The GM hands over an accepted fate point (a GM-only ledger operation); a refusal costs the
target one; the offer may be negotiated or withdrawn while it stands."""

from __future__ import annotations

from enum import StrEnum

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from pydantic import BaseModel, ConfigDict, Field

from campaigns import policy
from campaigns.policy import Viewer
from rulesets.fate.aspects import AspectRefField, aspect_text
from rulesets.fate.pickers import aspect_choices, picked
from rulesets.fate_accelerated.procedures.common import (
    aspects_of,
    fae_settings,
    party_name,
    require_controls,
    sheet_of,
    words,
)
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
from rulesets.kit.refusals import refuse
from rulesets.kit.table import GM, Actor, Reads, Table
from systems.fate_accelerated import compels as pure
from systems.fate_accelerated.aspects import GM as PURE_GM
from systems.registry import Names


class CompelPhase(StrEnum):
    OFFERED = "offered"
    ACCEPTED = "accepted"
    DELIVERED = "delivered"
    REFUSED = "refused"
    WITHDRAWN = "withdrawn"


class CompelState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    phase: CompelPhase
    compel: pure.Compel
    aspect_text: str
    target: int
    target_name: str
    target_actor: Actor
    compeller_name: str
    compeller_actor: Actor


class CompelOpen(BaseModel):
    model_config = ConfigDict(extra="forbid")

    target: int
    aspect: AspectRefField
    kind: pure.CompelKind = pure.CompelKind.DECISION
    proposal: str = Field(min_length=1, max_length=1000)
    compeller: int | None = None  # the compelling character (a player's own); none: the GM


class NegotiateParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    proposal: str = Field(min_length=1, max_length=1000)


KIND_WORDS = {
    pure.CompelKind.DECISION: gettext_lazy("Forzado de decisión"),
    pure.CompelKind.EVENT: gettext_lazy("Forzado de situación"),
}


def opening_choices(table: Table, viewer: Viewer) -> dict[str, list[Choice]]:
    approved = sorted((c for c in table.characters.values() if c.approved), key=lambda c: c.name)
    own = [c for c in approved if not c.is_npc and policy.controls_character(viewer, c)]
    return {
        "target": [Choice(str(c.id), c.name) for c in approved],
        "aspect": aspect_choices(table, viewer, aspects_of),
        "kind": [Choice(k.value, str(w)) for k, w in KIND_WORDS.items()],
        "compeller": [Choice(str(c.id), c.name) for c in own],
    }


def _compeller(given: OpeningInput[CompelOpen]) -> tuple[str, int | None, Actor, str]:
    """Who compels (a character id, or the GM side), their fate points, who acts for them, their name."""
    p, table, viewer = given.params, given.table, given.viewer
    if p.compeller is None:
        if not policy.may_run_gm_procedure(viewer):
            raise PermissionDenied(_("Para forzar como jugador elige tu personaje."))
        return PURE_GM, None, GM, ""
    compeller = table.character(p.compeller)
    require_controls(viewer, compeller)
    if compeller.is_npc:  # the GM compels through an NPC: the GM funds it
        return PURE_GM, None, GM, compeller.name
    return str(compeller.id), sheet_of(table, compeller).fate_points, compeller.actor, compeller.name


def _opening(given: OpeningInput[CompelOpen]) -> Outcome[CompelState]:
    p, table = given.params, given.table
    target = table.character(p.target)
    offered = opening_choices(table, given.viewer)["aspect"]
    ref = picked(p.aspect, offered)
    if not ref.on_board and ref.character_id != target.id:
        raise refuse(
            "compel_aspect_not_target",
            "Elige un aspecto del personaje forzado o de la escena.",
            "Choose an aspect of the compelled character or of the scene.",
        )
    compeller_id, fate_points, compeller_actor, compeller_name = _compeller(given)
    compel = pure.offer_compel(
        str(target.id),
        str(ref),
        p.kind,
        compeller_id,
        p.proposal,
        compeller_fate_points=fate_points,
        settings=fae_settings(table),
    )
    text = aspect_text(table, ref, aspects_of)
    state = CompelState(
        phase=CompelPhase.OFFERED,
        compel=compel,
        aspect_text=text,
        target=target.id,
        target_name=target.name,
        target_actor=target.actor,
        compeller_name=compeller_name,
        compeller_actor=compeller_actor,
    )
    return Outcome(state=state, record=[RecordLine(words(lambda: _offer_words(state)))])


def _offer_words(state: CompelState) -> str:
    return _("%(who)s ofrece un %(kind)s a %(target)s sobre «%(aspect)s»: %(proposal)s") % {
        "who": state.compeller_name or _("El DJ"),
        "kind": str(KIND_WORDS[state.compel.kind]).lower(),
        "target": state.target_name,
        "aspect": state.aspect_text,
        "proposal": state.compel.proposal,
    }


def _negotiate(given: StepInput[CompelState, NegotiateParams]) -> Outcome[CompelState]:
    state = given.state
    compel = pure.negotiate_compel(state.compel, given.params.proposal)
    state = state.model_copy(update={"compel": compel})
    said = words(
        lambda: (
            _("%(name)s propone otro forzado: %(proposal)s") % {"name": state.target_name, "proposal": compel.proposal}
        )
    )
    return Outcome(state=state, record=[RecordLine(said)])


def _accept(given: StepInput[CompelState, NoParams]) -> Outcome[CompelState]:
    state = given.state
    done = pure.accept_compel(state.compel)
    state = state.model_copy(update={"compel": done.compel})
    said = RecordLine(words(lambda: _("%(name)s acepta el forzado.") % {"name": state.target_name}))
    if state.target_actor == GM:  # an NPC's compel: the GM takes and records it at once
        delivered = _deliver_outcome(given.table, state)
        return Outcome(
            state=delivered.state, closes="settled", ledger=delivered.ledger, record=[said, *delivered.record]
        )
    return Outcome(state=state.model_copy(update={"phase": CompelPhase.ACCEPTED}), record=[said])


def _deliver(given: StepInput[CompelState, NoParams]) -> Outcome[CompelState]:
    return _deliver_outcome(given.table, given.state)


def _deliver_outcome(table: Table, state: CompelState) -> Outcome[CompelState]:
    compel = state.compel
    ledger: list[LedgerOp] = []
    record: list[RecordLine] = []
    target = table.character(state.target)
    if compel.fp_source != PURE_GM:
        ledger.append(LedgerOp("fund_compel_offer", {}, int(compel.fp_source), "forzado: pago de la oferta"))
        payer = party_name(table, compel.fp_source)
        record.append(
            RecordLine(words(lambda: _("%(name)s paga 1 punto de destino por el forzado.") % {"name": payer}))
        )
    if not target.is_npc:
        ledger.append(LedgerOp("accept_compel", {}, target.id, "forzado aceptado"))
        record.append(RecordLine(words(lambda: _("%(name)s gana 1 punto de destino.") % {"name": target.name})))
    elif compel.fp_source != PURE_GM and fae_settings(table).gm_fate_point_pool:
        # §6.7.4: the fate point a player pays to compel an NPC's aspect goes to the GM's pool ([P] at once:
        # the procedure cannot tell whether the compel ends the scene).
        ledger.append(LedgerOp("gm_pool_gain", {}, None, "forzado a un PNJ"))
        record.append(RecordLine(words(lambda: _("La reserva del DJ gana 1 punto de destino."))))
    done = state.model_copy(update={"phase": CompelPhase.DELIVERED})
    return Outcome(state=done, closes="settled", ledger=ledger, record=record)


def _refuse(given: StepInput[CompelState, NoParams]) -> Outcome[CompelState]:
    state, table = given.state, given.table
    target = table.character(state.target)
    ledger = [LedgerOp("refuse_compel", {}, target.id, "forzado rechazado")]
    if target.is_npc:
        # §6.7.4: with the GM's pool an NPC refusing pays from it (none left, no refusal); without it the
        # GM's fate points are unlimited. A PC's refusal point leaves play.
        pool = fae_settings(table).gm_fate_point_pool
        fate_points = int(table.rules_state.get("gm_fate_points", 0)) if pool else 1
        ledger = [LedgerOp("gm_pool_spend", {"amount": 1}, None, "forzado rechazado")] if pool else []
    else:
        fate_points = sheet_of(table, target).fate_points
    done = pure.refuse_compel(state.compel, fate_points)
    state = state.model_copy(update={"phase": CompelPhase.REFUSED, "compel": done.compel})
    said = words(lambda: _("%(name)s rechaza el forzado y paga 1 punto de destino.") % {"name": target.name})
    return Outcome(state=state, closes="settled", ledger=ledger, record=[RecordLine(said)])


def _withdraw(given: StepInput[CompelState, NoParams]) -> Outcome[CompelState]:
    state = given.state
    done = pure.withdraw_compel(state.compel)
    state = state.model_copy(update={"phase": CompelPhase.WITHDRAWN, "compel": done.compel})
    said = words(lambda: _("%(who)s retira el forzado.") % {"who": state.compeller_name or _("El DJ")})
    return Outcome(state=state, closes="cancelled", record=[RecordLine(said)])


def _waiting_answer(state: CompelState, table: Table) -> Names:
    return words(lambda: _("%(name)s acepta o rechaza el forzado") % {"name": state.target_name})


def _waiting_deliver(state: CompelState, table: Table) -> Names:
    return words(lambda: _("el DJ entrega el punto de destino a %(name)s") % {"name": state.target_name})


def _offered_to_target(state: CompelState) -> set[Actor]:
    return {state.target_actor} if state.phase is CompelPhase.OFFERED else set()


COMPEL: Procedure[CompelState] = Procedure(
    key="compel",
    title=gettext_lazy("Forzado"),
    state=CompelState,
    reads=Reads(board=True, rules_state=True),
    opening=Opening(params=CompelOpen, run=_opening, choices=opening_choices),
    steps=(
        Step(
            key="accept",
            label=gettext_lazy("Aceptar"),
            params=NoParams,
            who=_offered_to_target,
            run=_accept,
            waiting=_waiting_answer,
        ),
        Step(
            key="refuse",
            label=gettext_lazy("Rechazar (1 punto de destino)"),
            params=NoParams,
            who=_offered_to_target,
            run=_refuse,
            awaited=False,
        ),
        Step(
            key="negotiate",
            label=gettext_lazy("Proponer cambio"),
            params=NegotiateParams,
            who=_offered_to_target,
            run=_negotiate,
            awaited=False,
            form="fate_accelerated/steps/negotiate.html",
        ),
        Step(
            key="withdraw",
            label=gettext_lazy("Retirar"),
            params=NoParams,
            who=lambda s: {s.compeller_actor, GM} if s.phase is CompelPhase.OFFERED else set(),
            run=_withdraw,
            awaited=False,
        ),
        Step(
            key="deliver",
            label=gettext_lazy("Entregar el punto de destino"),
            params=NoParams,
            who=lambda s: {GM} if s.phase is CompelPhase.ACCEPTED else set(),
            run=_deliver,
            waiting=_waiting_deliver,
        ),
    ),
)

__all__ = ["COMPEL", "CompelState"]
