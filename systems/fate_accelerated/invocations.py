"""Invoking aspects (Invocar, spec §4.3): knowing the aspect, paying, once per roll, the four effects."""

from __future__ import annotations

from dataclasses import dataclass, replace

from systems.dice import DiceSource
from systems.errors import RulesError
from systems.fate_accelerated.aspects import GM, Aspect, AspectKind, FreeInvocationGrant, RemovedReason, remove_aspect
from systems.fate_accelerated.dice import roll_4df
from systems.fate_accelerated.fate_points import FatePointChange, LedgerReason
from systems.fate_accelerated.rolls import ActionRoll, Invocation, InvokeEffect, InvokePayment, RollPhase
from systems.fate_accelerated.settings import FaeSettings, settings_or_default
from systems.fate_accelerated.sheet import SceneStatus


@dataclass(frozen=True, slots=True)
class InvocationResult:
    roll: ActionRoll  # the roll whose number changed
    aspect: Aspect  # the aspect after the invocation (a used boost comes back removed)
    invoker_fate_points: int | None  # None for the GM without a pool
    ledger: tuple[FatePointChange, ...]


def invoke(
    roll: ActionRoll,
    aspect: Aspect,
    *,
    invoker: str,
    effect: InvokeEffect,
    payment: InvokePayment,
    invoker_fate_points: int | None,
    justification: str,
    dice: DiceSource | None = None,
    grant_holder: str | None = None,
    holder_consents: bool = False,
    invoker_status: SceneStatus = SceneStatus.ACTIVE,
    fp_recipient: str = GM,
    settings: FaeSettings | None = None,
    opposing: ActionRoll | None = None,
) -> InvocationResult:
    """Invoke ``aspect`` on ``roll`` (the roll whose number changes: for ``aid_ally`` the ally's roll,
    for ``oppose`` the opponent's roll against a fixed difficulty, or the roll serving as the
    opponent's target in a contest).

    ``opposing``: in a contest, the roll an ``oppose`` invocation is aimed at, while ``roll`` is the other
    side's roll that books its +2 (A-11); who may oppose is judged against ``opposing``'s actor.

    ``invoker_fate_points`` is the invoker's FP (None = the GM without a pool: unlimited).
    ``fp_recipient`` is who receives a paid FP: the GM, or the target PC under
    ``pvp_invoke_fp_to_target`` (credited at the end of the scene).
    """
    s = settings_or_default(settings)
    if not roll.window_open:
        if roll.phase is RollPhase.DECLARED:
            raise RulesError(
                "invocation_window_not_open",
                "Primero hay que tirar los dados: se invoca después de ver la tirada.",
                "Roll the dice first: invocations come after the roll is visible.",
            )
        raise RulesError(
            "invocation_window_closed",
            "Esta tirada ya está resuelta; no admite invocaciones.",
            "This roll is already resolved; it accepts no invocations.",
        )
    if invoker_status is not SceneStatus.ACTIVE:
        raise RulesError(
            "invoker_out_of_scene",
            "Un personaje fuera de la escena no puede invocar aspectos.",
            "A character out of the scene cannot invoke aspects.",
        )
    if not aspect.active:
        raise RulesError(
            "aspect_gone",
            f"El aspecto «{aspect.text}» ya no existe.",
            f"The aspect '{aspect.text}' no longer exists.",
        )
    if not aspect.known_to(invoker):
        raise RulesError(
            "aspect_unknown",
            "Solo puedes invocar un aspecto que sabes que existe.",
            "You can only invoke an aspect you know exists.",
        )
    if not justification.strip():
        raise RulesError(
            "justification_required",
            "Explica cómo te ayuda el aspecto en esta situación.",
            "Explain how the aspect helps in this situation.",
        )
    if opposing is not None and (effect is not InvokeEffect.OPPOSE or not roll.opposed or not opposing.opposed):
        raise RulesError(
            "invoke_not_a_contest",
            "Solo una oposición en un enfrentamiento se apunta en la tirada del otro bando.",
            "Only an oppose invocation in a contest is booked on the other side's roll.",
        )
    if effect is InvokeEffect.OPPOSE and roll.opposed and opposing is None:
        # In a contest the +2 lands on the roll that is the opposed roll's target: without knowing which roll
        # is opposed, booking it here would help the very roll it was meant to oppose.
        raise RulesError(
            "oppose_needs_the_opposed_roll",
            "En un enfrentamiento, di a qué tirada te opones.",
            "In a contest, say which roll you oppose.",
        )
    # An oppose is judged against the roll it is aimed at, wherever its +2 is booked.
    aimed_at = opposing if opposing is not None else roll
    own_roll = invoker == (aimed_at.actor if effect is InvokeEffect.OPPOSE else roll.actor)
    if effect in (InvokeEffect.BONUS, InvokeEffect.REROLL) and not own_roll:
        raise RulesError(
            "invoke_effect_not_own_roll",
            "+2 y volver a tirar son para tu propia tirada.",
            "+2 and reroll apply to your own roll.",
        )
    if effect in (InvokeEffect.AID_ALLY, InvokeEffect.OPPOSE) and own_roll:
        raise RulesError(
            "invoke_effect_own_roll",
            "Ayudar a un aliado u oponerse se hace sobre la tirada de otro.",
            "Aiding an ally or opposing applies to someone else's roll.",
        )
    if effect is InvokeEffect.REROLL and dice is None:
        raise RulesError("dice_required", "Volver a tirar necesita dados.", "A reroll needs dice.")

    prior = [i for i in roll.invocations if i.aspect_key == aspect.key]
    new_aspect = aspect
    stacking = False
    holder: str | None = None
    ledger: tuple[FatePointChange, ...] = ()
    fp_after = invoker_fate_points

    if aspect.kind is AspectKind.BOOST:
        # a boost is always invoked free and only by its holder; then it vanishes.
        if invoker != aspect.character:
            raise RulesError(
                "boost_not_yours",
                "Solo quien tiene el impulso puede invocarlo.",
                "Only the boost's holder can invoke it.",
            )
        if payment is not InvokePayment.FREE:
            raise RulesError(
                "boost_is_free",
                "Un impulso se invoca gratis, una sola vez.",
                "A boost is invoked for free, once.",
            )
        new_aspect = remove_aspect(aspect, RemovedReason.BOOST_USED)
    elif payment is InvokePayment.FREE:
        holder = grant_holder or invoker
        if holder != invoker and not holder_consents:
            raise RulesError(
                "grant_not_lent",
                "El poseedor de la invocación gratuita no te la ha cedido.",
                "The holder of the free invocation has not let you use it.",
            )
        index = _usable_grant(aspect.grants, holder, need_stacking=bool(prior))
        if index is None and prior:
            _check_once_per_roll(prior, payment, False, s)
        if index is None:
            raise RulesError(
                "no_free_invocation",
                f"No hay invocaciones gratuitas disponibles en «{aspect.text}».",
                f"There is no free invocation available on '{aspect.text}'.",
            )
        grant = aspect.grants[index]
        stacking = grant.same_roll_stacking
        used = grant.model_copy(update={"remaining": grant.remaining - 1})
        grants = (*aspect.grants[:index], used, *aspect.grants[index + 1 :])
        new_aspect = aspect.model_copy(update={"grants": grants})
    else:
        if invoker_fate_points is not None:
            if invoker_fate_points < 1:
                raise RulesError(
                    "not_enough_fate_points",
                    "No te quedan puntos de destino para invocar.",
                    "You have no fate points left to invoke.",
                )
            fp_after = invoker_fate_points - 1
            ledger = (
                FatePointChange(invoker, -1, LedgerReason.INVOKE),
                FatePointChange(fp_recipient, 1, LedgerReason.INVOKE, at_scene_end=fp_recipient != GM),
            )

    _check_once_per_roll(prior, payment, stacking, s)

    faces, history = roll.faces, roll.face_history
    if effect is InvokeEffect.REROLL:
        assert dice is not None and roll.faces is not None
        faces, history = roll_4df(dice), (*roll.face_history, roll.faces)
    record = Invocation(aspect.key, invoker, effect, payment, stacking, justification, holder)
    new_roll = replace(
        roll,
        faces=faces,
        face_history=history,
        invocations=(*roll.invocations, record),
        phase=RollPhase.INVOCATION_WINDOW,
    )
    return InvocationResult(new_roll, new_aspect, fp_after, ledger)


def _usable_grant(grants: tuple[FreeInvocationGrant, ...], holder: str, *, need_stacking: bool) -> int | None:
    for i, g in enumerate(grants):
        if g.holder == holder and g.remaining > 0 and (g.same_roll_stacking or not need_stacking):
            return i
    return None


def _check_once_per_roll(prior: list[Invocation], payment: InvokePayment, stacking: bool, s: FaeSettings) -> None:
    """Once per aspect per roll (A-02), except the two free invocations of a success with style (A-04);
    a paid invocation on top of free ones only when ``paid_and_free_same_aspect_same_roll`` (A-03)."""
    if not prior:
        return
    if payment is InvokePayment.FREE and stacking and all(p.same_roll_stacking for p in prior):
        return
    if (
        payment is InvokePayment.FATE_POINT
        and s.paid_and_free_same_aspect_same_roll
        and all(p.payment is InvokePayment.FREE for p in prior)
    ):
        return
    raise RulesError(
        "aspect_already_invoked",
        "Cada aspecto solo se puede invocar una vez por tirada.",
        "Each aspect can be invoked only once per roll.",
    )
