"""Effort, simple and opposed actions, attacks and blocks (spec §3.3-§3.6, §3.9-§3.10)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from systems.fate_sotc.settings import DEFAULT_SETTINGS, FateSotcSettings, TiePolicy


class ModifierSource(StrEnum):
    COMBINE = "combine"
    SUPPLEMENTAL = "supplemental"
    BORDER = "border"
    DISARM_PICKUP = "disarm_pickup"
    CARRY = "carry"
    FULL_DEFENSE = "full_defense"
    INVOKE_BONUS = "invoke_bonus"
    FP_ADVANTAGE = "fp_advantage"
    SPIN = "spin"
    MINION_SIZE = "minion_size"
    STUNT = "stunt"
    GM = "gm"


@dataclass(frozen=True, slots=True)
class Modifier:
    """One additive modifier on a roll (§3.3); ``ref`` points at the aspect, stunt... behind it."""

    source: ModifierSource
    value: int
    ref: str | None = None


FULL_DEFENSE_BONUS = 2


def effort(skill_rating: int, dice_total: int, modifiers: Iterable[Modifier] = ()) -> int:
    """skill + dice + modifiers; never clamped (§3.2)."""
    return skill_rating + dice_total + sum(m.value for m in modifiers)


@dataclass(frozen=True, slots=True)
class SimpleOutcome:
    """Result of an action against a fixed difficulty; failures never have shifts (§3.4)."""

    success: bool
    shifts: int
    critical: bool
    failure_margin: int


def resolve_simple(effort_value: int, difficulty: int, settings: FateSotcSettings = DEFAULT_SETTINGS) -> SimpleOutcome:
    if effort_value >= difficulty:
        shifts = effort_value - difficulty
        return SimpleOutcome(True, shifts, shifts >= settings.critical_threshold, 0)
    return SimpleOutcome(False, 0, False, difficulty - effort_value)


@dataclass(frozen=True, slots=True)
class OpposedOutcome:
    """``winner`` is "a", "b" or None (tie). ``both_succeed``/``reroll`` record the tie policy (A1)."""

    winner: str | None
    shifts: int
    critical: bool
    both_succeed: bool = False
    reroll: bool = False


def resolve_opposed(effort_a: int, effort_b: int, settings: FateSotcSettings = DEFAULT_SETTINGS) -> OpposedOutcome:
    if effort_a > effort_b:
        shifts = effort_a - effort_b
        return OpposedOutcome("a", shifts, shifts >= settings.critical_threshold)
    if effort_b > effort_a:
        shifts = effort_b - effort_a
        return OpposedOutcome("b", shifts, shifts >= settings.critical_threshold)
    policy = settings.opposed_tie_policy
    return OpposedOutcome(
        None, 0, False, both_succeed=policy is TiePolicy.BOTH_SUCCEED, reroll=policy is TiePolicy.REROLL
    )


class Track(StrEnum):
    HEALTH = "health"  # Salud
    COMPOSURE = "composure"  # Serenidad


class ConflictType(StrEnum):
    PHYSICAL = "physical"
    SOCIAL = "social"
    MENTAL = "mental"


def default_track(conflict_type: ConflictType) -> Track:
    """Physical harm goes to Salud; social and mental harm to Serenidad (§5.1)."""
    return Track.HEALTH if conflict_type is ConflictType.PHYSICAL else Track.COMPOSURE


@dataclass(frozen=True, slots=True)
class AttackResult:
    """Stress equals the attack's shifts; a defender winning by the critical margin earns spin."""

    hit: int
    track: Track
    defender_spin: bool
    defense_margin: int = 0  # available as overflow when the defender does not take spin (§3.6)


def resolve_attack(
    attack_effort: int,
    defense_effort: int,
    track: Track = Track.HEALTH,
    settings: FateSotcSettings = DEFAULT_SETTINGS,
) -> AttackResult:
    if attack_effort > defense_effort:
        return AttackResult(attack_effort - defense_effort, track, False)
    margin = defense_effort - attack_effort
    spin = settings.spin_enabled and margin >= settings.critical_threshold
    return AttackResult(0, track, spin, margin)


def defense_effort(
    skill_rating: int, dice_total: int, modifiers: Iterable[Modifier] = (), full_defense: bool = False
) -> int:
    """A defense roll: full defense adds +2 to every defense that exchange (§3.9)."""
    return effort(skill_rating, dice_total, modifiers) + (FULL_DEFENSE_BONUS if full_defense else 0)


# --- Blocks (§3.9, A21) ---


def block_strength(blocker_effort: int, gm_penalty: int = 0) -> int:
    """The blocker's effort after any GM penalty for a broad or hard block (A21: a penalty is <= 0)."""
    return blocker_effort + gm_penalty


def protected_defense(defense: int, strength: int) -> int:
    """A protected character defends with the better of their own defense and the block."""
    return max(defense, strength)


def passes_block(attempt_effort: int, strength: int) -> bool:
    """Getting past a block needs at least one shift over its strength (a tie stays blocked)."""
    return attempt_effort - strength >= 1


# --- Uses of shifts (§3.4) ---


def quality_after(base_quality: int, shifts_spent_on_quality: int) -> int:
    return base_quality + shifts_spent_on_quality


def detection_difficulty(base: int, shifts_spent_on_subtlety: int) -> int:
    return base + shifts_spent_on_subtlety
