"""The invocation window every rolling SotC procedure opens on its roll (spec §3.13).

The sides ask to invoke aspects (+2 or reroll, paid with a fate point or a free invocation; once per aspect
per roll); the GM approves or rejects each request (the GM's own, for NPCs, apply at once); a side may buy
+1 with a fate point, or guess an aspect it suspects (§4.11: the point is charged at once, the GM rules);
the holder of spin (§3.6) may put +1 or −1 on one roll of this, the very next action; the GM closes the
window. Each procedure continues with its own ``after_close``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal, TypeVar

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from pydantic import BaseModel, ConfigDict, Field

from campaigns import policy
from rulesets.fate_sotc.procedures.aspects import aspect_choices, offered, resolve_aspect, written_back
from rulesets.fate_sotc.procedures.common import (
    Params,
    Side,
    character_choices,
    fate_points_words,
    ladder,
    settings_of,
    sheet_of,
    wallet_of,
)
from rulesets.fate_sotc.rolls import glyphs
from rulesets.kit.procedures import (
    BoardChange,
    Choice,
    FollowUp,
    LedgerOp,
    NoParams,
    Outcome,
    RecordLine,
    Step,
    StepInput,
)
from rulesets.kit.refusals import refuse
from rulesets.kit.rolls import RollSpec
from rulesets.kit.table import GM, Actor, CharacterFacts, Table, in_both
from systems.dice import ScriptedDice
from systems.fate_sotc.conflict import Spin, apply_spin
from systems.fate_sotc.errors import fate_error
from systems.fate_sotc.fate_points import FpKind
from systems.fate_sotc.guessing import Guess, GuessRuling, rule_guess, start_guess
from systems.fate_sotc.invocation import InvokeMode, Payment, buy_advantage, close_window, invoke
from systems.fate_sotc.resolution import Modifier, ModifierSource
from systems.registry import Names

SideKey = Literal["a", "b"]


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int
    side: SideKey
    aspect: str
    aspect_text: str
    mode: InvokeMode
    payment: Payment
    detrimental: bool = False
    by: int


class PendingGuess(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int
    side: SideKey
    text: str
    justification: str
    mode: InvokeMode


class SpinUse(BaseModel):
    """The spin this action may use: earned by a defender in the scene's previous action."""

    model_config = ConfigDict(extra="forbid")

    holder: int
    name: str
    actor: Actor
    from_procedure: int
    status: str = "available"


class Final(BaseModel):
    """The action's result once the window closed, in words (a secret difficulty stays out)."""

    model_config = ConfigDict(extra="forbid")

    es: str
    en: str
    success: bool | None = None
    critical: bool | None = None
    shifts: int | None = None
    failure_margin: int | None = None
    winner: str | None = None
    hit: int | None = None


class WindowState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    phase: str = "window"
    roll: int
    sides: dict[SideKey, Side]
    requests: list[Request] = Field(default_factory=list)
    guesses: list[PendingGuess] = Field(default_factory=list)
    next_request: int = 1
    spin_use: SpinUse | None = None
    pending_release: list[int] = Field(default_factory=list)
    final: Final | None = None


class WindowSecret(BaseModel):
    model_config = ConfigDict(extra="forbid")

    difficulty: int | None = None


S = TypeVar("S", bound=WindowState)
AfterClose = Callable[[StepInput[Any, NoParams], Any], Outcome[Any]]


# --- Params --------------------------------------------------------------------------------------


class InvokeParams(Params):
    side: SideKey = "a"
    aspect: str = Field(min_length=3, max_length=80)
    mode: InvokeMode = InvokeMode.BONUS
    payment: Payment = Payment.PAID
    detrimental: bool = False  # invoked against its owner: the point goes to them at the window's end


class RequestParams(Params):
    request: int | None = None


class SideParams(Params):
    side: SideKey = "a"


class GuessParams(Params):
    side: SideKey = "a"
    text: str = Field(min_length=1, max_length=120)  # the aspect the side suspects
    justification: str = Field(min_length=1, max_length=500)  # "there must always be a justification"
    mode: InvokeMode = InvokeMode.BONUS


class RuleGuessParams(Params):
    guess: int | None = None
    ruling: GuessRuling
    aspect: str = Field(default="", max_length=80)  # close enough: the real aspect
    deceiver: int | None = None
    returns_point: bool = False  # deceived: the deceiver gives the point back
    place_text: str = Field(default="", max_length=120)  # ... and may place how they fooled the guesser


class SpinParams(Params):
    side: SideKey = "a"
    sign: int = Field(ge=-1, le=1)


# --- Opening -------------------------------------------------------------------------------------


def spin_available(table: Table) -> SpinUse | None:
    """The spin this action may use (§3.6): earned by the defender in the scene's previous rolling action;
    any later action finds it lapsed."""
    previous = next(
        (p for p in table.earlier if p.kind in ROLLING_KINDS and p.status != "cancelled"),
        None,
    )
    if previous is None or previous.kind != "attack" or previous.state.get("spin") is not True:
        return None
    defender = Side.model_validate(previous.state["sides"]["b"])
    if defender.character_id is None:
        return None
    return SpinUse(holder=defender.character_id, name=defender.name, actor=defender.actor, from_procedure=previous.id)


ROLLING_KINDS = ("invocation", "attack", "advantage")


# --- Who ------------------------------------------------------------------------------------------


def _open(state: WindowState) -> bool:
    return state.phase == "window"


def side_actors(state: WindowState) -> set[Actor]:
    """Whoever speaks for a side's character: its player, or the GMs for an NPC's side (a GM never acts on a
    player's roll, so a window between two PCs offers the GMs no invocation)."""
    return {s.actor for s in state.sides.values() if s.character_id is not None} if _open(state) else set()


def gm_if(condition: bool) -> set[Actor]:
    return {GM} if condition else set()


def spin_actors(state: WindowState) -> set[Actor]:
    spin = state.spin_use
    return {GM, spin.actor} if _open(state) and spin is not None and spin.status == "available" else set()


# --- Shared pieces -------------------------------------------------------------------------------


def own_side(given: StepInput[Any, Any], key: str) -> tuple[Side, CharacterFacts]:
    """The side a step acts on and its character, refused unless the viewer speaks for that character."""
    state: WindowState = given.state
    side = state.sides.get(key)  # type: ignore[call-overload]
    if side is None or side.character_id is None:
        raise refuse("no_character", "Ese bando no tiene personaje.", "That side has no character.")
    character = given.table.character(side.character_id)
    if not policy.controls_character(given.viewer, character):
        raise refuse(
            "not_your_side", "Solo puedes actuar sobre tu propia tirada.", "You may only act on your own roll."
        )
    return side, character


def told(side: Side, kind: str, words: Names, *, character_id: int | None = None, **data: Any) -> FollowUp:
    """A follow-up under the side's roll: what happened to it, and its effort now."""
    result = {"effort": side.effort, "dice": list(side.roll.dice.faces)}
    return FollowUp(side.roll_id, kind, words, data=data, result=result, character_id=character_id)


def with_side(state: S, key: str, side: Side) -> S:
    return state.model_copy(update={"sides": {**state.sides, key: side}})


def payment_words(payment: Payment) -> str:
    return _("gratis") if payment is Payment.FREE else fate_points_words(1)


def mode_words(mode: InvokeMode) -> str:
    return _("repetir la tirada") if mode is InvokeMode.REROLL else "+2"


# --- invoke / approve / reject -------------------------------------------------------------------


def _check_request(given: StepInput[Any, InvokeParams], side: Side, character: CharacterFacts) -> str:
    """Refuse now what the rules would refuse on approval (the GM's approval is the only missing piece)."""
    chosen, state = given.params, given.state
    offered(chosen.aspect, invoke_choices(state, given.table, given.viewer)["aspect"])
    aspect, _stored = resolve_aspect(given.table, chosen.aspect, str(character.id))
    mine = [r for r in state.requests if r.side == chosen.side]
    if aspect.id in side.roll.invoked_aspect_ids or chosen.aspect in {r.aspect for r in mine}:
        raise fate_error("aspect_already_invoked_on_roll")
    if not aspect.active:
        raise fate_error("aspect_inactive")
    if not aspect.known_to(str(character.id)):
        raise fate_error("aspect_unknown_to_invoker")
    wallet = wallet_of(character)
    if chosen.payment is Payment.PAID and wallet.fate_points < 1 + sum(r.payment is Payment.PAID for r in mine):
        raise fate_error("insufficient_fate_points", have=wallet.fate_points, need=1)
    if chosen.payment is Payment.FREE:
        if aspect.free_invocation_index(str(character.id), str(given.table.scene_id)) is None:
            raise fate_error("free_invocation_unavailable")
        limit = settings_of(given.table).max_free_invocations_per_roll
        if (
            limit is not None
            and side.roll.free_invocations_used + sum(r.payment is Payment.FREE for r in mine) >= limit
        ):
            raise fate_error("free_invocation_limit")
    return aspect.text


def run_invoke(given: StepInput[S, InvokeParams]) -> Outcome[S]:
    chosen, state = given.params, given.state
    side, character = own_side(given, chosen.side)
    text = _check_request(given, side, character)
    request = Request(
        id=state.next_request,
        side=chosen.side,
        aspect=chosen.aspect,
        aspect_text=text,
        mode=chosen.mode,
        payment=chosen.payment,
        detrimental=chosen.detrimental,
        by=given.viewer.user_id or 0,
    )
    state = state.model_copy(update={"next_request": state.next_request + 1})
    if policy.may_run_gm_procedure(given.viewer):  # the GM's own request (an NPC's) needs no approval
        return apply_request(given, state, request)
    words = in_both(
        lambda: (
            _("%(name)s pide invocar «%(aspect)s» (%(mode)s, %(paid)s); espera al DJ")
            % {
                "name": character.name,
                "aspect": text,
                "mode": mode_words(chosen.mode),
                "paid": payment_words(chosen.payment),
            }
        )
    )
    follow = told(side, "invoke_requested", words, character_id=character.id, aspect=text, request=request.id)
    state = state.model_copy(update={"requests": [*state.requests, request]})
    return Outcome(state=state, follow_ups=[follow], record=[RecordLine(words)])


def _reroll_dice(given: StepInput[Any, Any], side: Side, character_id: int, label: str) -> tuple[int, ScriptedDice]:
    roll = given.roll(
        RollSpec(kind="effort", data={"skill": side.skill or None}, character_id=character_id, label=label)
    )
    return roll.id, ScriptedDice(roll.result["sides"][0]["dice"]["d6"])


def apply_request(given: StepInput[Any, Any], state: S, request: Request) -> Outcome[S]:
    """The GM approved ``request``: the pure ``invoke`` decides; its effects become ledger operations."""
    table = given.table
    side = state.sides[request.side]
    character = table.character(side.character_id)
    aspect, stored = resolve_aspect(table, request.aspect, str(character.id))
    owner_id = aspect.owner_character_id
    owner = table.characters.get(int(owner_id)) if owner_id and owner_id != str(character.id) else None
    dice, reroll = None, None
    if request.mode is InvokeMode.REROLL:
        label = _("Repetir la tirada: %(aspect)s") % {"aspect": aspect.text[:80]}
        reroll, dice = _reroll_dice(given, side, character.id, label)
    result = invoke(
        side.roll,
        str(character.id),
        wallet_of(character),
        aspect,
        request.mode,
        request.payment,
        gm_approved=True,
        dice=dice,
        detrimental_to_owner=request.detrimental,
        owner=wallet_of(owner) if owner else None,
        current_scene_id=str(table.scene_id),
        settings=settings_of(table),
    )
    ops: list[LedgerOp] = []
    reason = _("Invocar «%(aspect)s»") % {"aspect": aspect.text}
    if request.payment is Payment.PAID:
        kind = "invoke_own" if owner_id == str(character.id) else "invoke_other"
        ops.append(LedgerOp(kind, {"gm_approved": True}, character.id, reason[:300]))
        if result.owner is not None and owner is not None and result.owner.pending > wallet_of(owner).pending:
            ops.append(LedgerOp("tag_compensation", {}, owner.id, reason[:300]))
    sheet_ops, board = written_back(stored, aspect, result.aspect, request.payment is Payment.FREE)
    new_side = side.model_copy(update={"roll": result.roll})
    state = with_side(state, request.side, new_side)
    if result.owner is not None and owner is not None:
        state = state.model_copy(update={"pending_release": sorted({*state.pending_release, owner.id})})
    words = _invoke_words(character.name, aspect.text, request, new_side)
    follow = told(
        new_side,
        "reroll" if request.mode is InvokeMode.REROLL else "invoke",
        words,
        character_id=character.id,
        aspect=aspect.text,
        mode=request.mode.value,
        payment=request.payment.value,
    )
    rolls = (reroll,) if reroll else ()
    return Outcome(
        state=state,
        ledger=[*ops, *sheet_ops],
        board=board,
        follow_ups=[follow],
        record=[RecordLine(words, rolls=rolls)],
    )


def _invoke_words(name: str, text: str, request: Request, side: Side) -> Names:
    values = {"name": name, "aspect": text, "effort": "", "dice": glyphs(list(side.roll.dice.faces))}

    def render() -> str:
        values["effort"] = ladder(side.effort)
        if request.payment is Payment.FREE:
            if request.mode is InvokeMode.REROLL:
                return (
                    _("%(name)s invoca «%(aspect)s» gratis y repite la tirada: %(dice)s; esfuerzo %(effort)s") % values
                )
            return _("%(name)s invoca «%(aspect)s» gratis: +2; esfuerzo %(effort)s") % values
        if request.mode is InvokeMode.REROLL:
            return (
                _(
                    "%(name)s invoca «%(aspect)s» con un punto de destino y repite la tirada: %(dice)s; "
                    "esfuerzo %(effort)s"
                )
                % values
            )
        return _("%(name)s invoca «%(aspect)s» con un punto de destino: +2; esfuerzo %(effort)s") % values

    return in_both(render)


def _pending(state: WindowState, wanted: int | None) -> tuple[Request, list[Request]]:
    if not state.requests:
        raise refuse("no_request", "No hay invocaciones pendientes.", "There is no pending invocation.")
    ids = [r.id for r in state.requests]
    if wanted is not None and wanted not in ids:
        raise refuse("no_request", "Esa invocación ya no está pendiente.", "That invocation is not pending.")
    index = ids.index(wanted) if wanted is not None else 0
    return state.requests[index], [r for i, r in enumerate(state.requests) if i != index]


def run_approve(given: StepInput[S, RequestParams]) -> Outcome[S]:
    request, rest = _pending(given.state, given.params.request)
    return apply_request(given, given.state.model_copy(update={"requests": rest}), request)


def run_reject(given: StepInput[S, RequestParams]) -> Outcome[S]:
    request, rest = _pending(given.state, given.params.request)
    side = given.state.sides[request.side]
    words = in_both(
        lambda: (
            _("El DJ no aprueba invocar «%(aspect)s»; no se gasta ningún punto de destino")
            % {"aspect": request.aspect_text}
        )
    )
    follow = told(side, "invoke_rejected", words, character_id=side.character_id, aspect=request.aspect_text)
    return Outcome(
        state=given.state.model_copy(update={"requests": rest}), follow_ups=[follow], record=[RecordLine(words)]
    )


# --- advantage / spin ----------------------------------------------------------------------------


def run_advantage(given: StepInput[S, SideParams]) -> Outcome[S]:
    side, character = own_side(given, given.params.side)
    roll, _wallet = buy_advantage(side.roll, wallet_of(character), settings_of(given.table))
    new_side = side.model_copy(update={"roll": roll})
    words = in_both(
        lambda: (
            _("%(name)s gana una ventaja (+1) con un punto de destino; esfuerzo %(effort)s")
            % {"name": character.name, "effort": ladder(new_side.effort)}
        )
    )
    op = LedgerOp("fp_advantage", {}, character.id, _("Ganar una ventaja (+1)"))
    return Outcome(
        state=with_side(given.state, given.params.side, new_side),
        ledger=[op],
        follow_ups=[told(new_side, "fp_advantage", words, character_id=character.id)],
        record=[RecordLine(words)],
    )


def run_spin(given: StepInput[S, SpinParams]) -> Outcome[S]:
    """§3.6 [PROPOSED·SotC]: +1 or −1 on any single roll of the very next action, once."""
    state, chosen = given.state, given.params
    spin = state.spin_use
    side = state.sides.get(chosen.side)
    if spin is None or side is None:
        raise fate_error("spin_expired", holder="")
    if chosen.sign == 0:
        raise fate_error("invalid_value", sign=0)
    used, _effort = apply_spin(Spin(str(spin.holder), spin.status), side.effort, chosen.sign)
    modifiers = (*side.roll.modifiers, Modifier(ModifierSource.SPIN, chosen.sign, str(spin.holder)))
    new_side = side.model_copy(update={"roll": replace(side.roll, modifiers=modifiers)})
    settings = settings_of(given.table)
    words = in_both(
        lambda: (
            _("%(holder)s usa su ventaja de la defensa (%(sign)s) en %(side)s; esfuerzo %(effort)s")
            % {
                "holder": spin.name,
                "sign": f"{chosen.sign:+d}",
                "side": side.label(settings),
                "effort": ladder(new_side.effort),
            }
        )
    )
    state = with_side(state, chosen.side, new_side)
    state = state.model_copy(update={"spin_use": spin.model_copy(update={"status": used.status})})
    follow = told(new_side, "spin", words, sign=chosen.sign, holder=spin.holder)
    return Outcome(state=state, follow_ups=[follow], record=[RecordLine(words)])


# --- guesses --------------------------------------------------------------------------------------


def run_guess(given: StepInput[S, GuessParams]) -> Outcome[S]:
    """§4.11: invoke an aspect one suspects exists; the point is charged now (A34), the GM rules next."""
    chosen, state = given.params, given.state
    side, character = own_side(given, chosen.side)
    start_guess(str(character.id), chosen.text, wallet_of(character))  # refuses without a point
    guess = PendingGuess(
        id=state.next_request, side=chosen.side, text=chosen.text, justification=chosen.justification, mode=chosen.mode
    )
    state = state.model_copy(update={"next_request": state.next_request + 1, "guesses": [*state.guesses, guess]})
    op = LedgerOp(FpKind.GUESS.value, {}, character.id, (_("Adivinar «%(text)s»") % {"text": chosen.text})[:300])
    words = in_both(
        lambda: (
            _("%(name)s cree que hay «%(text)s» y lo invoca con un punto de destino: %(why)s")
            % {"name": character.name, "text": chosen.text, "why": chosen.justification}
        )[:300]
    )
    follow = told(side, "guess", words, character_id=character.id, text=chosen.text, guess=guess.id)
    return Outcome(state=state, ledger=[op], follow_ups=[follow], record=[RecordLine(words)])


def _pending_guess(state: WindowState, wanted: int | None) -> tuple[PendingGuess, list[PendingGuess]]:
    ids = [g.id for g in state.guesses]
    if not ids or (wanted is not None and wanted not in ids):
        raise refuse("no_guess", "No hay ningún aspecto adivinado pendiente.", "There is no pending guess.")
    index = ids.index(wanted) if wanted is not None else 0
    return state.guesses[index], [g for i, g in enumerate(state.guesses) if i != index]


def run_rule_guess(given: StepInput[S, RuleGuessParams]) -> Outcome[S]:
    chosen, table = given.params, given.table
    guess, rest = _pending_guess(given.state, chosen.guess)
    state = given.state.model_copy(update={"guesses": rest})
    side = state.sides[guess.side]
    guesser = table.character(side.character_id)
    real, stored = None, None
    if chosen.ruling is GuessRuling.CLOSE_ENOUGH:
        if not chosen.aspect:
            raise refuse("aspect_required", "Indica el aspecto real.", "Name the real aspect.")
        offered(chosen.aspect, guess_choices(state, table, given.viewer)["aspect"])
        real, stored = resolve_aspect(table, chosen.aspect, str(guesser.id))
    deceiver = table.character(chosen.deceiver) if chosen.deceiver is not None else None
    dice, reroll = None, None
    if real is not None and guess.mode is InvokeMode.REROLL:
        reroll, dice = _reroll_dice(given, side, guesser.id, _("Repetir la tirada: %(aspect)s") % {"aspect": real.text})
    outcome = rule_guess(
        Guess(str(guesser.id), guess.text),
        wallet_of(guesser),
        chosen.ruling,
        real_aspect=real,
        roll=side.roll if real is not None else None,
        mode=guess.mode,
        dice=dice,
        deceiver_id=str(deceiver.id) if deceiver else None,
        deceiver_returns_point=chosen.returns_point,
        deceiver_places_aspect=bool(chosen.place_text.strip()),
        placed_aspect_id=f"deception-{given.procedure_id}-{guess.id}",
        placed_text=chosen.place_text.strip(),
        scene_id=str(table.scene_id),
        settings=settings_of(table),
    )
    ops: list[LedgerOp] = []
    board: list[BoardChange] = []
    reason = (_("Adivinar «%(text)s»") % {"text": guess.text})[:300]
    name = guesser.name
    values = {"name": name, "aspect": real.text if real else "", "effort": "", "placed": ""}
    if outcome.roll is not None and real is not None and stored is not None and outcome.revealed is not None:
        side = side.model_copy(update={"roll": outcome.roll})
        state = with_side(state, guess.side, side)
        ops, board = written_back(stored, real, outcome.revealed, False)
        template = gettext_lazy(
            "El DJ da por buena la suposición: es «%(aspect)s»; %(name)s lo invoca con ese punto; esfuerzo %(effort)s"
        )
    elif chosen.ruling is GuessRuling.MISS_NOT_SECRET:
        ops.append(LedgerOp(FpKind.GUESS_REFUND.value, {}, guesser.id, reason))
        template = gettext_lazy("No existe; %(name)s recupera su punto de destino")
    elif chosen.ruling is GuessRuling.MISS_SECRET:
        template = gettext_lazy("No existe, y eso dice algo: el punto de destino se pierde")
    elif outcome.guesser.fate_points > wallet_of(guesser).fate_points:
        ops.append(LedgerOp(FpKind.DECEIVER_RETURNS_POINT.value, {}, guesser.id, reason))
        template = gettext_lazy("Era un engaño; el engañador devuelve el punto de destino a %(name)s")
        if outcome.placed is not None:
            aspect = outcome.placed.model_dump(mode="json")
            ops.append(LedgerOp("add_temporary_aspect", {"aspect": aspect}, guesser.id, reason))
            values["placed"] = outcome.placed.text
            template = gettext_lazy(
                "Era un engaño; el engañador devuelve el punto de destino a %(name)s y le deja «%(placed)s»"
            )
    else:
        template = gettext_lazy("Era un engaño; %(name)s pierde el punto de destino")

    def render() -> str:
        values["effort"] = ladder(side.effort)
        return (str(template) % values)[:300]

    words = in_both(render)
    follow = told(side, "guess_ruled", words, character_id=guesser.id, guess=guess.id, ruling=chosen.ruling.value)
    rolls = (reroll,) if reroll else ()
    return Outcome(state=state, ledger=ops, board=board, follow_ups=[follow], record=[RecordLine(words, rolls=rolls)])


# --- close ----------------------------------------------------------------------------------------


def closer(after_close: AfterClose) -> Callable[[StepInput[Any, NoParams]], Outcome[Any]]:
    """The GM closes the window: every roll is final, pending tag compensation is released, then the
    procedure goes on (``after_close``)."""

    def run_close(given: StepInput[Any, NoParams]) -> Outcome[Any]:
        state: WindowState = given.state
        sides = {key: side.model_copy(update={"roll": close_window(side.roll)}) for key, side in state.sides.items()}
        release = [
            LedgerOp("release_pending", {}, cid, _("Fin de la ventana de invocaciones"))
            for cid in state.pending_release
            if cid in given.table.characters and sheet_of(given.table.characters[cid]).fate_points_pending > 0
        ]
        closed = state.model_copy(update={"sides": sides, "pending_release": []})
        outcome = after_close(given, closed)
        return replace(outcome, ledger=[*release, *outcome.ledger])

    return run_close


def close_record(state: WindowState, final: Final) -> tuple[FollowUp, RecordLine]:
    """The window's last words: under the roll, and in the record with the dice of every side."""
    words = in_both(lambda: _("Ventana cerrada. %(result)s") % {"result": final.en if _is_en() else final.es})
    data = final.model_dump(exclude={"es", "en"}, exclude_none=True)
    follow = FollowUp(state.roll, "window_closed", words, result=data)
    rolls = tuple(dict.fromkeys(side.roll_id for side in state.sides.values()))
    return follow, RecordLine(words, rolls=rolls)


def _is_en() -> bool:
    from rulesets.fate_sotc.procedures.common import language

    return language().startswith("en")


# --- Pickers and the table's rows -------------------------------------------------------------------


def _side_choices(state: WindowState, table: Table, viewer: policy.Viewer) -> list[Choice]:
    settings = settings_of(table)
    return [
        Choice(key, side.label(settings))
        for key, side in state.sides.items()
        if side.character_id is not None
        and side.character_id in table.characters
        and policy.controls_character(viewer, table.characters[side.character_id])
    ]


def invoke_choices(state: WindowState, table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    # The sides' characters first, then everyone else's aspects in play (a maneuver's aspect on a third).
    ids = [s.character_id for s in state.sides.values() if s.character_id is not None]
    ids += [c.id for c in table.characters.values() if c.approved]
    return {
        "side": _side_choices(state, table, viewer),
        "aspect": aspect_choices(table, ids, viewer),
        "mode": [Choice(InvokeMode.BONUS.value, "+2"), Choice(InvokeMode.REROLL.value, _("Repetir la tirada"))],
        "payment": [
            Choice(Payment.PAID.value, _("Pagar un punto de destino")),
            Choice(Payment.FREE.value, _("Invocación gratuita")),
        ],
    }


def side_choices(state: WindowState, table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    return {
        "side": _side_choices(state, table, viewer),
        "mode": [Choice(InvokeMode.BONUS.value, "+2"), Choice(InvokeMode.REROLL.value, _("Repetir la tirada"))],
    }


def request_choices(state: WindowState, table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    names = {key: side.name for key, side in state.sides.items()}
    return {
        "request": [
            Choice(
                str(r.id),
                _("%(name)s: «%(aspect)s» (%(mode)s, %(paid)s)")
                % {
                    "name": names[r.side],
                    "aspect": r.aspect_text,
                    "mode": mode_words(r.mode),
                    "paid": payment_words(r.payment),
                },
            )
            for r in state.requests
        ]
    }


def guess_choices(state: WindowState, table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    ids = [c.id for c in table.characters.values() if c.approved]
    return {
        "guess": [Choice(str(g.id), f"«{g.text}»: {g.justification}") for g in state.guesses],
        "ruling": [
            Choice(GuessRuling.CLOSE_ENOUGH.value, _("Se parece: es este aspecto")),
            Choice(GuessRuling.MISS_NOT_SECRET.value, _("No existe (devolver el punto de destino)")),
            Choice(GuessRuling.MISS_SECRET.value, _("No existe, y eso es un secreto (el punto se pierde)")),
            Choice(GuessRuling.DECEIVED.value, _("Era un engaño")),
        ],
        "aspect": aspect_choices(table, ids, viewer),
        "deceiver": character_choices(table),
    }


def spin_choices(state: WindowState, table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    settings = settings_of(table)
    return {
        "side": [Choice(key, side.label(settings)) for key, side in state.sides.items()],
        "sign": [Choice("1", "+1"), Choice("-1", "−1")],
    }


FIELDS = "fate_sotc/procedures/fields/"


def window_steps(after_close: AfterClose) -> tuple[Step[Any, Any], ...]:
    """The window's rows of a procedure's step table."""
    return (
        Step(
            key="rule_guess",
            label=gettext_lazy("Juzgar el aspecto adivinado"),
            params=RuleGuessParams,
            who=lambda s: gm_if(_open(s) and bool(s.guesses)),
            run=run_rule_guess,
            form=FIELDS + "rule_guess.html",
            choices=guess_choices,
            waiting=lambda s, t: in_both(lambda: _("El DJ juzga el aspecto adivinado")),
        ),
        Step(
            key="approve",
            label=gettext_lazy("Aprobar la invocación"),
            params=RequestParams,
            who=lambda s: gm_if(_open(s) and bool(s.requests)),
            run=run_approve,
            form=FIELDS + "request.html",
            choices=request_choices,
            waiting=lambda s, t: in_both(lambda: _("Aprobar o rechazar la invocación")),
        ),
        Step(
            key="reject",
            label=gettext_lazy("Rechazar la invocación"),
            params=RequestParams,
            who=lambda s: gm_if(_open(s) and bool(s.requests)),
            run=run_reject,
            awaited=False,
            form=FIELDS + "request.html",
            choices=request_choices,
        ),
        Step(
            key="invoke",
            label=gettext_lazy("Invocar un aspecto"),
            params=InvokeParams,
            who=side_actors,
            run=run_invoke,
            awaited=False,
            form=FIELDS + "invoke.html",
            choices=invoke_choices,
        ),
        Step(
            key="guess",
            label=gettext_lazy("Adivinar un aspecto (un punto de destino)"),
            params=GuessParams,
            who=side_actors,
            run=run_guess,
            awaited=False,
            form=FIELDS + "guess.html",
            choices=side_choices,
        ),
        Step(
            key="advantage",
            label=gettext_lazy("Ganar una ventaja (+1 por un punto de destino)"),
            params=SideParams,
            who=side_actors,
            run=run_advantage,
            awaited=False,
            form=FIELDS + "side.html",
            choices=side_choices,
        ),
        Step(
            key="spin",
            label=gettext_lazy("Usar la ventaja de la defensa"),
            params=SpinParams,
            who=spin_actors,
            run=run_spin,
            awaited=False,
            form=FIELDS + "spin.html",
            choices=spin_choices,
        ),
        Step(
            key="close",
            label=gettext_lazy("Cerrar la ventana de invocaciones"),
            params=NoParams,
            who=lambda s: gm_if(_open(s) and not s.requests and not s.guesses),
            run=closer(after_close),
            waiting=lambda s, t: in_both(lambda: _("Invocaciones de los bandos; el DJ cierra la ventana")),
        ),
    )
