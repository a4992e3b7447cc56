"""Roll kinds (spec §3): request models validated at the edge, fast resolvers, immutable results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from systems.dice import DiceSource
from systems.fate_sotc.dice import FateDice, roll_4df
from systems.fate_sotc.errors import fate_error
from systems.fate_sotc.ladder import ladder_label
from systems.fate_sotc.movement import sprint_reach
from systems.fate_sotc.resolution import (
    FULL_DEFENSE_BONUS,
    AttackResult,
    Modifier,
    ModifierSource,
    OpposedOutcome,
    SimpleOutcome,
    Track,
    block_strength,
    resolve_attack,
    resolve_opposed,
    resolve_simple,
)
from systems.fate_sotc.settings import DEFAULT_SETTINGS, FateSotcSettings

# --- Request models (untrusted input: API, forms) ---


class ModifierIn(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    source: ModifierSource
    value: int = Field(ge=-20, le=20)
    ref: str | None = Field(default=None, max_length=64)


class RollSide(BaseModel):
    """One side's roll: the skill's rating (0 if unlisted) plus known modifiers."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    skill_key: str | None = Field(default=None, max_length=40)
    skill_rating: int = Field(default=0, ge=-10, le=20)
    modifiers: tuple[ModifierIn, ...] = Field(default=(), max_length=20)

    def fast(self) -> tuple[int, tuple[Modifier, ...]]:
        return self.skill_rating, tuple(Modifier(m.source, m.value, m.ref) for m in self.modifiers)


class EffortRequest(RollSide):
    pass


class SimpleRequest(RollSide):
    difficulty: int = Field(ge=-10, le=20)


class OpposedRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    a: RollSide
    b: RollSide


class AttackRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    attacker: RollSide
    defender: RollSide
    defender_full_defense: bool = False
    track: Track = Track.HEALTH


class ManeuverRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    maneuverer: RollSide
    target: RollSide
    target_full_defense: bool = False


class BlockRequest(RollSide):
    gm_penalty: int = Field(default=0, ge=-20, le=0)


class SprintRequest(RollSide):
    borders_on_path: tuple[int, ...] = Field(default=(0,), max_length=30)
    carried_weight: int = Field(default=0, ge=0, le=20)


# --- Results ---


@dataclass(frozen=True, slots=True)
class EffortRoll:
    dice: FateDice
    skill_rating: int
    modifiers: tuple[Modifier, ...]
    effort: int

    @property
    def label(self) -> str:
        return ladder_label(self.effort)


@dataclass(frozen=True, slots=True)
class SimpleRollResult:
    roll: EffortRoll
    difficulty: int
    outcome: SimpleOutcome


@dataclass(frozen=True, slots=True)
class OpposedRollResult:
    a: EffortRoll
    b: EffortRoll
    outcome: OpposedOutcome


@dataclass(frozen=True, slots=True)
class AttackRollResult:
    attack: EffortRoll
    defense: EffortRoll
    result: AttackResult


@dataclass(frozen=True, slots=True)
class ManeuverRollResult:
    maneuver: EffortRoll
    resistance: EffortRoll
    outcome: OpposedOutcome
    succeeded: bool  # needs at least one shift: a tie fails (§3.5)
    sticky_allowed: bool  # a critical success lets the GM allow a sticky aspect (§3.6)


@dataclass(frozen=True, slots=True)
class BlockRollResult:
    roll: EffortRoll
    strength: int


@dataclass(frozen=True, slots=True)
class SprintRollResult:
    roll: EffortRoll
    outcome: SimpleOutcome
    zones: int


# --- Fast resolvers (dice injected; no pydantic here) ---


def roll_effort(dice: DiceSource, skill_rating: int, modifiers: tuple[Modifier, ...] = ()) -> EffortRoll:
    d = roll_4df(dice)
    total = skill_rating + d.total
    for m in modifiers:
        total += m.value
    return EffortRoll(d, skill_rating, modifiers, total)


def roll_simple(
    dice: DiceSource,
    skill_rating: int,
    difficulty: int,
    modifiers: tuple[Modifier, ...] = (),
    settings: FateSotcSettings = DEFAULT_SETTINGS,
) -> SimpleRollResult:
    r = roll_effort(dice, skill_rating, modifiers)
    return SimpleRollResult(r, difficulty, resolve_simple(r.effort, difficulty, settings))


def roll_opposed(
    dice: DiceSource,
    a: tuple[int, tuple[Modifier, ...]],
    b: tuple[int, tuple[Modifier, ...]],
    settings: FateSotcSettings = DEFAULT_SETTINGS,
) -> OpposedRollResult:
    ra = roll_effort(dice, *a)
    rb = roll_effort(dice, *b)
    return OpposedRollResult(ra, rb, resolve_opposed(ra.effort, rb.effort, settings))


def _with_full_defense(side: tuple[int, tuple[Modifier, ...]], full_defense: bool) -> tuple[int, tuple[Modifier, ...]]:
    if not full_defense:
        return side
    return side[0], (*side[1], Modifier(ModifierSource.FULL_DEFENSE, FULL_DEFENSE_BONUS))


def roll_attack(
    dice: DiceSource,
    attacker: tuple[int, tuple[Modifier, ...]],
    defender: tuple[int, tuple[Modifier, ...]],
    track: Track = Track.HEALTH,
    defender_full_defense: bool = False,
    settings: FateSotcSettings = DEFAULT_SETTINGS,
) -> AttackRollResult:
    ra = roll_effort(dice, *attacker)
    rd = roll_effort(dice, *_with_full_defense(defender, defender_full_defense))
    return AttackRollResult(ra, rd, resolve_attack(ra.effort, rd.effort, track, settings))


def roll_maneuver(
    dice: DiceSource,
    maneuverer: tuple[int, tuple[Modifier, ...]],
    target: tuple[int, tuple[Modifier, ...]],
    target_full_defense: bool = False,
    settings: FateSotcSettings = DEFAULT_SETTINGS,
) -> ManeuverRollResult:
    rm = roll_effort(dice, *maneuverer)
    rt = roll_effort(dice, *_with_full_defense(target, target_full_defense))
    outcome = resolve_opposed(rm.effort, rt.effort, settings)
    ok = outcome.winner == "a" and outcome.shifts >= 1
    return ManeuverRollResult(rm, rt, outcome, ok, ok and outcome.shifts >= settings.critical_threshold)


def roll_block(
    dice: DiceSource, skill_rating: int, modifiers: tuple[Modifier, ...] = (), gm_penalty: int = 0
) -> BlockRollResult:
    r = roll_effort(dice, skill_rating, modifiers)
    return BlockRollResult(r, block_strength(r.effort, gm_penalty))


def roll_sprint(
    dice: DiceSource,
    skill_rating: int,
    borders_on_path: Sequence[int],
    carried_weight: int = 0,
    modifiers: tuple[Modifier, ...] = (),
    settings: FateSotcSettings = DEFAULT_SETTINGS,
) -> SprintRollResult:
    r = roll_effort(dice, skill_rating, modifiers)
    outcome = resolve_simple(r.effort, settings.sprint_difficulty, settings)
    return SprintRollResult(r, outcome, sprint_reach(outcome.shifts, borders_on_path, carried_weight, settings))


# --- Dispatch (the Ruleset's ``resolve``) ---

REQUEST_MODELS: dict[str, type[BaseModel]] = {
    "effort": EffortRequest,
    "simple": SimpleRequest,
    "opposed": OpposedRequest,
    "attack": AttackRequest,
    "maneuver": ManeuverRequest,
    "block": BlockRequest,
    "sprint": SprintRequest,
}


def resolve(
    kind_key: str, request: BaseModel | dict[str, Any], dice: DiceSource, settings: BaseModel | None = None
) -> object:
    """Validate ``request`` (a dict or the kind's model) at the edge, then resolve it with ``dice``."""
    model = REQUEST_MODELS.get(kind_key)
    if model is None:
        raise fate_error("unknown_roll_kind", kind=kind_key)
    req: Any = request if isinstance(request, model) else model.model_validate(request)
    cfg = settings if isinstance(settings, FateSotcSettings) else DEFAULT_SETTINGS
    if kind_key == "effort":
        return roll_effort(dice, *req.fast())
    if kind_key == "simple":
        rating, mods = req.fast()
        return roll_simple(dice, rating, req.difficulty, mods, cfg)
    if kind_key == "opposed":
        return roll_opposed(dice, req.a.fast(), req.b.fast(), cfg)
    if kind_key == "attack":
        return roll_attack(dice, req.attacker.fast(), req.defender.fast(), req.track, req.defender_full_defense, cfg)
    if kind_key == "maneuver":
        return roll_maneuver(dice, req.maneuverer.fast(), req.target.fast(), req.target_full_defense, cfg)
    if kind_key == "block":
        rating, mods = req.fast()
        return roll_block(dice, rating, mods, req.gm_penalty)
    rating, mods = req.fast()
    return roll_sprint(dice, rating, req.borders_on_path, req.carried_weight, mods, cfg)
