"""``compel`` (forzado, §4.9): the GM offers; the target accepts (+stake) or declines; the GM escalates or
stands (the target pays the stake to avoid it). Off-screen compels cannot be refused (the point is given at
once); refusing the GM's foreshadowing gift costs one of the target's own points."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from pydantic import BaseModel, ConfigDict, Field

from campaigns import policy
from rulesets.fate_sotc.procedures.aspects import aspect_choices, parse_ref, resolve_aspect, written_back
from rulesets.fate_sotc.procedures.common import (
    Params,
    character_choices,
    fate_points_words,
    line,
    settings_of,
    wallet_of,
)
from rulesets.kit.procedures import (
    BoardChange,
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
from rulesets.kit.table import GM, Actor, CharacterFacts, Reads, Table, in_both
from systems.errors import RulesError
from systems.fate_sotc.compels import (
    Compel,
    CompelKind,
    accept_compel,
    buy_off_compel,
    decline_compel,
    escalate_compel,
)
from systems.fate_sotc.invocation import Payment, invoke_for_effect


class CompelState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    phase: Literal["offered", "declined", "done"]
    character_id: int
    name: str
    actor: Actor
    aspect: str
    description: str = ""
    compel: Compel
    # A tag for effect (§4.6, A9): the character whose invocation set the compel up, and paid for it.
    instigator_id: int | None = None
    instigator_name: str = ""


class CompelOpen(Params):
    character: int
    aspect: str = Field(min_length=1, max_length=120)  # a reference from the picker, or the aspect's words
    description: str = Field(default="", max_length=500)
    kind: CompelKind = CompelKind.GM
    # Only for ``tag_for_effect``: who tags the aspect (never its target), and how they pay (A9).
    instigator: int | None = None
    payment: Payment = Payment.PAID


def _aspect_text(given: OpeningInput[CompelOpen], character_id: int) -> str:
    """The compelled aspect: picked (a reference the table holds) or written (an aspect the GM names)."""
    value = given.params.aspect
    try:
        parse_ref(value)
    except RulesError:
        return value.strip()  # the GM names an aspect in words (one the board or sheets do not hold yet)
    aspect, _stored = resolve_aspect(given.table, value, str(character_id))
    return aspect.text


def _tag_for_effect(
    given: OpeningInput[CompelOpen], target: CharacterFacts
) -> tuple[CharacterFacts | None, list[LedgerOp], list[BoardChange]]:
    """A player's compel on someone else's aspect is a tag for effect (§4.6, §4.9, A9): its instigator pays
    1 PD (``player_compel_on_others_cost``) or a free invocation now, and is not refunded if it is bought off.
    Any other kind names no instigator."""
    chosen = given.params
    if chosen.kind is not CompelKind.TAG_FOR_EFFECT:
        if chosen.instigator is not None:
            raise refuse(
                "instigator_only_for_tag",
                "Solo un forzado provocado con un efecto tiene instigador.",
                "Only a tag-for-effect compel has an instigator.",
            )
        return None, [], []
    if chosen.instigator is None:
        raise refuse(
            "instigator_required",
            "Di qué personaje provoca el forzado (y lo paga).",
            "Say which character sets up the compel (and pays for it).",
        )
    instigator = given.table.character(chosen.instigator)
    if instigator.id == target.id:
        raise refuse(
            "instigator_is_target",
            "Forzar un aspecto propio no se paga: es un forzado normal.",
            "Compelling one's own aspect costs nothing: it is an ordinary compel.",
        )
    try:
        parse_ref(chosen.aspect)
    except RulesError:
        raise refuse(
            "tag_needs_a_known_aspect",
            "Para provocar un efecto, elige un aspecto que el instigador conozca.",
            "To tag for effect, pick an aspect the instigator knows.",
        ) from None
    aspect, stored = resolve_aspect(given.table, chosen.aspect, str(instigator.id))
    wallet = wallet_of(instigator)
    after, used = invoke_for_effect(
        wallet,
        str(instigator.id),
        aspect,
        chosen.payment,
        gm_approved=True,
        current_scene_id=str(given.table.scene_id),
        settings=settings_of(given.table),
    )
    reason = (_("Provocar un forzado: «%(a)s»") % {"a": aspect.text})[:300]
    paid = wallet.fate_points - after.fate_points
    ops = [LedgerOp("invoke_effect_other", {"gm_approved": True}, instigator.id, reason) for _n in range(paid)]
    sheet_ops, board = written_back(stored, aspect, used, chosen.payment is Payment.FREE)
    return instigator, [*ops, *sheet_ops], board


def open_compel(given: OpeningInput[CompelOpen]) -> Outcome[CompelState]:
    if not policy.may_run_gm_procedure(given.viewer):
        raise refuse("gm_only", "Solo el DJ ofrece un forzado.", "Only the GM offers a compel.")
    chosen = given.params
    character = given.table.character(chosen.character)
    instigator, paid, board = _tag_for_effect(given, character)
    text = _aspect_text(given, character.id)
    compel = Compel(chosen.kind)
    state = CompelState(
        phase="offered",
        character_id=character.id,
        name=character.name,
        actor=character.actor,
        aspect=text,
        description=chosen.description.strip(),
        compel=compel,
        instigator_id=instigator.id if instigator else None,
        instigator_name=instigator.name if instigator else "",
    )
    values = {"name": character.name, "aspect": text, "why": state.description}
    offer = line(
        lambda: (
            (
                _("El DJ fuerza «%(aspect)s» de %(name)s: %(why)s")
                if values["why"]
                else _("El DJ fuerza «%(aspect)s» de %(name)s")
            )
            % values
        )
    )
    if instigator is not None:
        tagged = line(
            lambda: (
                (_("%(who)s provoca el forzado y paga por ello") if paid else _("%(who)s provoca el forzado"))
                % {"who": instigator.name}
            )
        )
        return Outcome(state=state, ledger=paid, board=board, record=[offer, tagged])
    if chosen.kind is CompelKind.OFFSCREEN:  # the GM gives the point; it cannot be refused (§4.9)
        compel, _wallet = accept_compel(compel, wallet_of(character))
        op = LedgerOp("offscreen_compel", {}, character.id, (_("Forzado fuera de escena: «%(a)s»") % {"a": text})[:300])
        gained = line(
            lambda: (
                _("Forzado fuera de escena: %(name)s gana %(fp)s")
                % {"name": character.name, "fp": fate_points_words(1)}
            )
        )
        done = state.model_copy(update={"phase": "done", "compel": compel})
        return Outcome(state=done, closes="settled", ledger=[op], record=[offer, gained])
    return Outcome(state=state, record=[offer])


def _reason(state: CompelState) -> str:
    return (_("Forzado: «%(a)s»") % {"a": state.aspect})[:300]


def run_accept(given: StepInput[CompelState, NoParams]) -> Outcome[CompelState]:
    state = given.state
    character = given.table.character(state.character_id)
    before = state.compel.credited
    compel, _wallet = accept_compel(state.compel, wallet_of(character))
    earned = compel.stake - before
    if compel.kind is CompelKind.FORESHADOW:
        op = LedgerOp("gm_foreshadow_gift", {}, character.id, _reason(state), by_rules=True)
    else:
        op = LedgerOp("compel_accepted", {"amount": earned}, character.id, _reason(state), by_rules=True)
    words = line(
        lambda: _("%(name)s acepta el forzado y gana %(fp)s") % {"name": state.name, "fp": fate_points_words(earned)}
    )
    done = state.model_copy(update={"phase": "done", "compel": compel})
    return Outcome(state=done, closes="settled", ledger=[op], record=[words])


def run_decline(given: StepInput[CompelState, NoParams]) -> Outcome[CompelState]:
    state = given.state
    character = given.table.character(state.character_id)
    wallet = wallet_of(character)
    compel = decline_compel(state.compel, wallet)
    if compel.kind is CompelKind.FORESHADOW:  # refusing the gift costs one of their own at once
        compel, _wallet = buy_off_compel(compel, wallet)
        op = LedgerOp(
            "refuse_gm_gift", {}, character.id, (_("Rechaza el punto del DJ: «%(a)s»") % {"a": state.aspect})[:300]
        )
        words = line(
            lambda: (
                _("%(name)s rechaza el punto del DJ y paga %(fp)s") % {"name": state.name, "fp": fate_points_words(1)}
            )
        )
        done = state.model_copy(update={"phase": "done", "compel": compel})
        return Outcome(state=done, closes="settled", ledger=[op], record=[words])
    words = line(lambda: _("%(name)s rechaza el forzado") % {"name": state.name})
    return Outcome(state=state.model_copy(update={"phase": "declined", "compel": compel}), record=[words])


def run_escalate(given: StepInput[CompelState, NoParams]) -> Outcome[CompelState]:
    state = given.state
    compel = escalate_compel(state.compel, settings_of(given.table))
    words = line(lambda: _("El DJ sube el forzado: ahora en juego %(fp)s") % {"fp": fate_points_words(compel.stake)})
    return Outcome(state=state.model_copy(update={"phase": "offered", "compel": compel}), record=[words])


def run_stand(given: StepInput[CompelState, NoParams]) -> Outcome[CompelState]:
    state = given.state
    character = given.table.character(state.character_id)
    compel, _wallet = buy_off_compel(state.compel, wallet_of(character))
    op = LedgerOp(
        "compel_buy_off",
        {"amount": compel.stake},
        character.id,
        (_("Evita el forzado: «%(a)s»") % {"a": state.aspect})[:300],
    )
    words = line(
        lambda: (
            _("%(name)s paga %(fp)s y evita el forzado") % {"name": state.name, "fp": fate_points_words(compel.stake)}
        )
    )
    done = state.model_copy(update={"phase": "done", "compel": compel})
    return Outcome(state=done, closes="settled", ledger=[op], record=[words])


def _target(state: CompelState) -> set[Actor]:
    return {state.actor} if state.phase == "offered" else set()


def _declinable(state: CompelState) -> set[Actor]:
    return _target(state) if state.compel.refusable else set()


def _gm_after_decline(state: CompelState) -> set[Actor]:
    return {GM} if state.phase == "declined" else set()


def opening_choices(table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    if not policy.may_run_gm_procedure(viewer):  # only the GM offers a compel: no form for anyone else
        return {}
    ids = [c.id for c in table.characters.values() if c.approved]
    return {
        "character": character_choices(table),
        "aspect": aspect_choices(table, ids, viewer),
        "kind": [
            Choice(CompelKind.GM.value, _("Forzado")),
            Choice(CompelKind.OFFSCREEN.value, _("Fuera de escena")),
            Choice(CompelKind.FORESHADOW.value, _("Punto del DJ")),
            Choice(CompelKind.TAG_FOR_EFFECT.value, _("Provocado por otro personaje (lo paga)")),
        ],
        "instigator": character_choices(table),
        "payment": [
            Choice(Payment.PAID.value, _("1 punto de destino")),
            Choice(Payment.FREE.value, _("Invocación gratuita")),
        ],
    }


def _accept_waiting(state: CompelState, table: Table) -> Any:
    return in_both(
        lambda: (
            _("%(name)s: aceptar el forzado (+%(fp)s) o rechazarlo")
            % {"name": state.name, "fp": fate_points_words(state.compel.stake)}
        )
    )


COMPEL: Procedure[Any] = Procedure(
    key="compel",
    title=gettext_lazy("Forzado"),
    state=CompelState,
    reads=Reads(board=True),
    opening=Opening(params=CompelOpen, run=open_compel, choices=opening_choices),
    steps=(
        Step(
            key="accept",
            label=gettext_lazy("Aceptar el forzado"),
            params=NoParams,
            who=_target,
            run=run_accept,
            waiting=_accept_waiting,
        ),
        Step(
            key="decline",
            label=gettext_lazy("Rechazar el forzado (pagar)"),
            params=NoParams,
            who=_declinable,
            run=run_decline,
            awaited=False,
        ),
        Step(
            key="stand",
            label=gettext_lazy("Dejarlo así: paga y lo evita"),
            params=NoParams,
            who=_gm_after_decline,
            run=run_stand,
            waiting=lambda s, t: in_both(
                lambda: _("El DJ sube el forzado o lo deja en %(fp)s") % {"fp": fate_points_words(s.compel.stake)}
            ),
        ),
        Step(
            key="escalate",
            label=gettext_lazy("Subir el forzado"),
            params=NoParams,
            who=_gm_after_decline,
            run=run_escalate,
            awaited=False,
        ),
    ),
)
