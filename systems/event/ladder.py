"""Complexity levels, difficulty values, outcomes and the ordered roll evaluation (spec §3.2, §3.5, §6.6)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import IntEnum, StrEnum

from systems.errors import RulesError
from systems.registry import Names

VETO_THRESHOLD = 2  # §8 A-34: constant everywhere (answers, narrations, communal takes, progress picks)
D6 = 6


class Outcome(StrEnum):
    ABSOLUTE_SUCCESS = "ABSOLUTE_SUCCESS"
    PARTIAL_SUCCESS = "PARTIAL_SUCCESS"
    FAILURE = "FAILURE"
    CRITICAL_FAILURE = "CRITICAL_FAILURE"


OUTCOME_NAMES: dict[Outcome, Names] = {
    Outcome.ABSOLUTE_SUCCESS: Names("Éxito absoluto", "Absolute success"),
    Outcome.PARTIAL_SUCCESS: Names("Éxito parcial", "Partial success"),
    Outcome.FAILURE: Names("Fallo", "Failure"),
    Outcome.CRITICAL_FAILURE: Names("Fallo crítico", "Critical failure"),
}

# §3.7: narration goes from the worst result to the best.
OUTCOME_RANK: dict[Outcome, int] = {
    Outcome.CRITICAL_FAILURE: 0,
    Outcome.FAILURE: 1,
    Outcome.PARTIAL_SUCCESS: 2,
    Outcome.ABSOLUTE_SUCCESS: 3,
}

FAILURES = frozenset({Outcome.FAILURE, Outcome.CRITICAL_FAILURE})


class Narrator(StrEnum):
    PLAYER = "PLAYER"
    GM = "GM"


def narrator_for(outcome: Outcome) -> Narrator:
    """§3.6: only an absolute success hands the narration to the player."""
    return Narrator.PLAYER if outcome is Outcome.ABSOLUTE_SUCCESS else Narrator.GM


class Level(IntEnum):
    TRIVIAL = 1
    EASY = 2
    COMMON = 3
    COMPLICATED = 4
    HARD = 5
    VERY_HARD = 6


LEVEL_NAMES: dict[Level, Names] = {
    Level.TRIVIAL: Names("Trivial", "Trivial"),
    Level.EASY: Names("Fácil", "Easy"),
    Level.COMMON: Names("Común", "Common"),
    Level.COMPLICATED: Names("Complicado", "Complicated"),
    Level.HARD: Names("Difícil", "Hard"),
    Level.VERY_HARD: Names("Muy difícil", "Very hard"),
}

Scale = tuple[tuple[int, int], ...]  # six inclusive [lo, hi] ranges, Trivial..Muy difícil


def derived_scale(sides: int) -> Scale:
    """§6.6 formula for N >= 6; reproduces the d6 table and the source's d10 table exactly."""
    if sides < 6:
        raise RulesError(
            "SCALE_REQUIRED",
            f"Con dados de {sides} caras hace falta una escala de dificultad propia.",
            f"Dice with {sides} sides need a custom difficulty scale.",
        )
    span = sides - 2
    middle = tuple((2 + math.ceil(j * span / 4), 1 + math.ceil((j + 1) * span / 4)) for j in range(4))
    return ((1, 1), *middle, (sides, sides))


def check_scale(scale: Sequence[Sequence[int]], sides: int) -> Scale:
    """A custom scale: 6 contiguous, ascending, non-empty ranges covering exactly 1..sides."""
    ranges = tuple((int(r[0]), int(r[1])) for r in scale if len(r) == 2)
    expected_lo = 1
    ok = len(ranges) == 6 and len(ranges) == len(scale)
    for lo, hi in ranges if ok else ():
        if lo != expected_lo or hi < lo:
            ok = False
            break
        expected_lo = hi + 1
    if not ok or expected_lo != sides + 1:
        raise RulesError(
            "SCALE_INVALID",
            f"La escala debe tener 6 tramos seguidos, sin huecos ni solapes, de 1 a {sides}.",
            f"The scale needs 6 contiguous ranges, no gaps or overlaps, covering 1 to {sides}.",
        )
    return ranges


def level_of(value: int, scale: Scale) -> Level:
    """The complexity level whose range holds ``value``."""
    for rank, (lo, hi) in enumerate(scale, start=1):
        if lo <= value <= hi:
            return Level(rank)
    raise difficulty_out_of_range(value, scale[-1][1])


def difficulty_out_of_range(value: int, sides: int) -> RulesError:
    return RulesError(
        "DIFFICULTY_OUT_OF_RANGE",
        f"La dificultad {value} no existe: debe estar entre 1 y {sides}.",
        f"Difficulty {value} is out of range: it must be between 1 and {sides}.",
    )


def check_difficulty(value: int, sides: int) -> int:
    if not 1 <= value <= sides:
        raise difficulty_out_of_range(value, sides)
    return value


def evaluate(dice: Sequence[int], difficulty: int) -> Outcome:
    """§3.5: the ordered conditions; the first that holds decides (critical only with zero hits)."""
    if not dice:
        raise RulesError(
            "EMPTY_POOL",
            "Una reserva de dados nunca está vacía.",
            "A dice pool is never empty.",
        )
    hits = 0
    all_ones = True
    for d in dice:
        if d >= difficulty:
            hits += 1
        if d != 1:
            all_ones = False
    if hits >= 2:
        return Outcome.ABSOLUTE_SUCCESS
    if hits == 1:
        return Outcome.PARTIAL_SUCCESS
    if all_ones:
        return Outcome.CRITICAL_FAILURE
    return Outcome.FAILURE
