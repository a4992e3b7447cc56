"""Invoking aspects on a posted roll (spec §3.13, §4.2-§4.7, §4.12): the invocation window.

A :class:`RollState` is the roll while its window is open; every change returns a new state.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from systems.dice import DiceSource
from systems.fate_sotc.aspects import Aspect, Persistence, deactivate
from systems.fate_sotc.dice import FateDice, roll_4df
from systems.fate_sotc.errors import fate_error
from systems.fate_sotc.fate_points import FpKind, Wallet, credit_pending, spend
from systems.fate_sotc.resolution import Modifier, ModifierSource, SimpleOutcome, resolve_simple
from systems.fate_sotc.rolls import EffortRoll
from systems.fate_sotc.settings import DEFAULT_SETTINGS, FateSotcSettings


class InvokeMode(StrEnum):
    BONUS = "bonus"  # +2 to the final result
    REROLL = "reroll"  # roll all four dice again


class Payment(StrEnum):
    PAID = "paid"
    FREE = "free"


@dataclass(frozen=True)
class RollState:
    """A posted roll that invocations, PD advantages and spin may still change."""

    roller_id: str
    dice: FateDice
    skill_rating: int
    modifiers: tuple[Modifier, ...] = ()
    history: tuple[FateDice, ...] = ()  # earlier throws replaced by rerolls, kept as evidence
    invoked_aspect_ids: frozenset[str] = frozenset()
    free_invocations_used: int = 0
    fp_advantages: int = 0
    difficulty: int | None = None
    window_open: bool = True

    @property
    def effort(self) -> int:
        return self.skill_rating + self.dice.total + sum(m.value for m in self.modifiers)

    def outcome(self, settings: FateSotcSettings = DEFAULT_SETTINGS) -> SimpleOutcome | None:
        return None if self.difficulty is None else resolve_simple(self.effort, self.difficulty, settings)


def open_roll(roller_id: str, roll: EffortRoll, difficulty: int | None = None) -> RollState:
    return RollState(roller_id, roll.dice, roll.skill_rating, roll.modifiers, difficulty=difficulty)


def close_window(roll: RollState) -> RollState:
    """All parties passed or the GM closed it: stress and consequences may now be applied."""
    if not roll.window_open:
        raise fate_error("window_closed")
    return replace(roll, window_open=False)


def _require_open(roll: RollState) -> None:
    if not roll.window_open:
        raise fate_error("window_closed")


@dataclass(frozen=True)
class InvocationResult:
    roll: RollState
    invoker: Wallet
    aspect: Aspect
    owner: Wallet | None = None  # the aspect owner's wallet when compensation was credited


def invoke(
    roll: RollState,
    invoker_id: str,
    invoker: Wallet,
    aspect: Aspect,
    mode: InvokeMode,
    payment: Payment,
    gm_approved: bool,
    *,
    dice: DiceSource | None = None,
    detrimental_to_owner: bool = False,
    owner: Wallet | None = None,
    current_scene_id: str | None = None,
    settings: FateSotcSettings = DEFAULT_SETTINGS,
    prepaid: bool = False,
) -> InvocationResult:
    """One invocation (§4.3). ``prepaid`` is for a guess ruled close enough: its PD pays this one."""
    if not gm_approved:
        raise fate_error("gm_approval_required")
    _require_open(roll)
    if not aspect.active:
        raise fate_error("aspect_inactive")
    if aspect.id in roll.invoked_aspect_ids:
        raise fate_error("aspect_already_invoked_on_roll")  # a reroll is still the same action
    if not aspect.known_to(invoker_id):
        raise fate_error("aspect_unknown_to_invoker")
    if mode is InvokeMode.REROLL and dice is None:
        raise fate_error("invalid_value", reason="a reroll needs dice")
    new_aspect = aspect
    new_owner = owner
    free_used = roll.free_invocations_used
    if payment is Payment.FREE:
        index = aspect.free_invocation_index(invoker_id, current_scene_id)
        if index is None:
            raise fate_error("free_invocation_unavailable")
        limit = settings.max_free_invocations_per_roll
        if limit is not None and free_used >= limit:
            raise fate_error("free_invocation_limit")
        used = aspect.free_invocations[index].model_copy(update={"used": True})
        new_aspect = aspect.model_copy(
            update={"free_invocations": (*aspect.free_invocations[:index], used, *aspect.free_invocations[index + 1 :])}
        )
        free_used += 1
    elif not prepaid:
        own = aspect.owner_character_id == invoker_id
        invoker = spend(invoker, 1, FpKind.INVOKE_OWN if own else FpKind.INVOKE_OTHER)
        owner_id = aspect.owner_character_id
        if owner_id is not None and owner_id != invoker_id and detrimental_to_owner:
            if owner is None:
                raise fate_error("invalid_value", reason="the owner's wallet is needed for compensation")
            # Usable only after the exchange ends (or the window closes outside a conflict).
            new_owner = credit_pending(owner, 1, FpKind.TAG_COMPENSATION, counterparty=invoker_id)
    if mode is InvokeMode.REROLL:
        assert dice is not None
        new_roll = replace(roll, history=(*roll.history, roll.dice), dice=roll_4df(dice))
    else:
        new_roll = replace(roll, modifiers=(*roll.modifiers, Modifier(ModifierSource.INVOKE_BONUS, 2, aspect.id)))
    new_roll = replace(
        new_roll, invoked_aspect_ids=roll.invoked_aspect_ids | {aspect.id}, free_invocations_used=free_used
    )
    if new_aspect.persistence is Persistence.FRAGILE:
        new_aspect = deactivate(new_aspect)  # A8: gone after its first invocation
    return InvocationResult(new_roll, invoker, new_aspect, new_owner)


def buy_advantage(
    roll: RollState, wallet: Wallet, settings: FateSotcSettings = DEFAULT_SETTINGS
) -> tuple[RollState, Wallet]:
    """1 PD for +1 on the spender's own roll (§4.2, A30)."""
    if not settings.allow_fp_advantage:
        raise fate_error("fp_advantage_disabled")
    _require_open(roll)
    cap = settings.max_fp_advantage_per_roll
    if cap is not None and roll.fp_advantages >= cap:
        raise fate_error("fp_advantage_limit")
    wallet = spend(wallet, 1, FpKind.FP_ADVANTAGE)
    new_roll = replace(
        roll,
        modifiers=(*roll.modifiers, Modifier(ModifierSource.FP_ADVANTAGE, 1)),
        fp_advantages=roll.fp_advantages + 1,
    )
    return new_roll, wallet


def apply_spin_to_roll(roll: RollState, sign: int) -> RollState:
    _require_open(roll)
    return replace(roll, modifiers=(*roll.modifiers, Modifier(ModifierSource.SPIN, sign)))


@dataclass(frozen=True)
class EnvironmentUse:
    """Using the environment (§3.12): a scene aspect justifies an unusual skill for one roll."""

    wallet: Wallet
    aspect_id: str
    skill_key: str
    lasts: str  # "roll" (default) or "scene" at GM discretion


def use_environment(
    wallet: Wallet, aspect: Aspect, skill_key: str, gm_approved: bool, whole_scene: bool = False
) -> EnvironmentUse:
    if not gm_approved:
        raise fate_error("gm_approval_required")
    if not aspect.active:
        raise fate_error("aspect_inactive")
    wallet = spend(wallet, 1, FpKind.USE_ENVIRONMENT)
    return EnvironmentUse(wallet, aspect.id, skill_key, "scene" if whole_scene else "roll")


def invoke_for_effect(
    wallet: Wallet,
    invoker_id: str,
    aspect: Aspect,
    payment: Payment,
    gm_approved: bool,
    current_scene_id: str | None = None,
    settings: FateSotcSettings = DEFAULT_SETTINGS,
) -> tuple[Wallet, Aspect]:
    """A narrative benefit with no roll (§4.6). On someone else's aspect it sets up a compel."""
    if not gm_approved:
        raise fate_error("gm_approval_required")
    if not aspect.active:
        raise fate_error("aspect_inactive")
    if not aspect.known_to(invoker_id):
        raise fate_error("aspect_unknown_to_invoker")
    own = aspect.owner_character_id == invoker_id
    new_aspect = aspect
    if payment is Payment.FREE:
        index = aspect.free_invocation_index(invoker_id, current_scene_id)
        if index is None:
            raise fate_error("free_invocation_unavailable")
        used = aspect.free_invocations[index].model_copy(update={"used": True})
        new_aspect = aspect.model_copy(
            update={"free_invocations": (*aspect.free_invocations[:index], used, *aspect.free_invocations[index + 1 :])}
        )
    elif own:
        wallet = spend(wallet, 1, FpKind.INVOKE_EFFECT_OWN)
    else:
        wallet = spend(wallet, settings.player_compel_on_others_cost, FpKind.INVOKE_EFFECT_OTHER)
    if new_aspect.persistence is Persistence.FRAGILE:
        new_aspect = deactivate(new_aspect)
    return wallet, new_aspect
