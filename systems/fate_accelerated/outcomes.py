"""What each outcome does, per action (spec §3.8). Pure tables: no state, no dice."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from systems.errors import RulesError
from systems.fate_accelerated.actions import CAMode, Cost, FailChoice
from systems.fate_accelerated.ladder import Outcome


class Role(StrEnum):
    ACTOR = "actor"
    OPPONENT = "opponent"  # who receives the free invocation of a failed create/discover (option b)
    DEFENDER = "defender"


class AspectChange(StrEnum):
    CREATE_OR_REVEAL = "create_or_reveal"


@dataclass(frozen=True, slots=True)
class GrantAward:
    role: Role
    count: int
    same_roll_stacking: bool = False


@dataclass(frozen=True, slots=True)
class ActionEffects:
    goal_reached: bool | None = None  # overcome only
    cost: Cost | None = None  # overcome only
    aspect: AspectChange | None = None
    grants: tuple[GrantAward, ...] = ()
    boosts: tuple[Role, ...] = ()
    harm: int = 0

    def with_boost(self, role: Role) -> ActionEffects:
        return ActionEffects(self.goal_reached, self.cost, self.aspect, self.grants, (*self.boosts, role), self.harm)


def _fail_choice_required(allowed: tuple[FailChoice, ...]) -> RulesError:
    names = ", ".join(c.value for c in allowed)
    return RulesError(
        "fail_choice_required",
        f"Tras un fallo hay que elegir una opción: {names}.",
        f"After a fail, choose one option: {names}.",
        allowed=[c.value for c in allowed],
    )


def resolve_create_advantage(mode: CAMode, outcome: Outcome, fail_choice: FailChoice | None = None) -> ActionEffects:
    if mode in (CAMode.CREATE, CAMode.DISCOVER):
        if outcome is Outcome.FAIL:
            if fail_choice is FailChoice.NOTHING:
                return ActionEffects()
            if fail_choice is FailChoice.GRANT_OPPONENT:
                return ActionEffects(aspect=AspectChange.CREATE_OR_REVEAL, grants=(GrantAward(Role.OPPONENT, 1),))
            raise _fail_choice_required((FailChoice.NOTHING, FailChoice.GRANT_OPPONENT))
        if outcome is Outcome.TIE:
            if mode is CAMode.CREATE:
                return ActionEffects(boosts=(Role.ACTOR,))  # no situation aspect, a boost instead
            outcome = Outcome.SUCCESS  # discover: a tie counts as a success
        if outcome is Outcome.SUCCESS:
            return ActionEffects(aspect=AspectChange.CREATE_OR_REVEAL, grants=(GrantAward(Role.ACTOR, 1),))
        return ActionEffects(aspect=AspectChange.CREATE_OR_REVEAL, grants=(GrantAward(Role.ACTOR, 2, True),))
    if outcome is Outcome.FAIL:
        return ActionEffects()
    if outcome in (Outcome.TIE, Outcome.SUCCESS):
        return ActionEffects(grants=(GrantAward(Role.ACTOR, 1),))
    return ActionEffects(grants=(GrantAward(Role.ACTOR, 2, True),))  # exploit SwS stacks too


def resolve_overcome(outcome: Outcome, fail_choice: FailChoice | None = None) -> ActionEffects:
    if outcome is Outcome.FAIL:
        if fail_choice is FailChoice.FAIL:
            return ActionEffects(goal_reached=False)
        if fail_choice is FailChoice.SUCCESS_AT_MAJOR_COST:
            return ActionEffects(goal_reached=True, cost=Cost.MAJOR)
        raise _fail_choice_required((FailChoice.FAIL, FailChoice.SUCCESS_AT_MAJOR_COST))
    if outcome is Outcome.TIE:
        return ActionEffects(goal_reached=True, cost=Cost.MINOR)
    if outcome is Outcome.SUCCESS:
        return ActionEffects(goal_reached=True)
    return ActionEffects(goal_reached=True, boosts=(Role.ACTOR,))


def resolve_attack(outcome: Outcome, shifts: int, trade_shift_for_boost: bool = False) -> ActionEffects:
    if trade_shift_for_boost and outcome is not Outcome.SUCCESS_WITH_STYLE:
        raise RulesError(
            "trade_needs_success_with_style",
            "Solo un éxito crítico puede cambiar un aumento de daño por un impulso.",
            "Only a success with style may trade a shift for a boost.",
        )
    if outcome is Outcome.FAIL:
        return ActionEffects()
    if outcome is Outcome.TIE:
        return ActionEffects(boosts=(Role.ACTOR,))
    if trade_shift_for_boost:
        return ActionEffects(harm=shifts - 1, boosts=(Role.ACTOR,))
    return ActionEffects(harm=shifts)


class ActiveBranch(StrEnum):
    SUCCESS_OR_SWS = "success_or_sws"
    TIE = "tie"
    FAIL = "fail"


@dataclass(frozen=True, slots=True)
class DefendEffects:
    active_branch: ActiveBranch
    defender_boost: bool = False


def resolve_defend(defender_outcome: Outcome) -> DefendEffects:
    """Which branch of the active action's table applies, and the defender's own boost on SwS."""
    if defender_outcome is Outcome.FAIL:
        return DefendEffects(ActiveBranch.SUCCESS_OR_SWS)
    if defender_outcome is Outcome.TIE:
        return DefendEffects(ActiveBranch.TIE)
    if defender_outcome is Outcome.SUCCESS:
        return DefendEffects(ActiveBranch.FAIL)
    return DefendEffects(ActiveBranch.FAIL, defender_boost=True)
