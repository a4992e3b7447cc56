"""Statistical tests per roll kind: a seeded sample must fit the exact distribution computed here by
enumeration (independently of the resolvers), so a biased or mis-wired resolver fails."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from itertools import product

import pytest

from systems.dice import SeededDice
from systems.event import resolve
from systems.event.action import Choice, choose, start_action, talent_reroll
from systems.event.pool import PoolBreakdown
from systems.event.settings import EventSettings
from tests.systems.stats import assert_fits

SAMPLE = 20_000


def classify(dice: tuple[int, ...], difficulty: int) -> str:
    """§3.5 written out again on purpose (not imported), so the test does not trust the resolver."""
    hits = len([d for d in dice if d >= difficulty])
    if hits > 1:
        return "ABSOLUTE_SUCCESS"
    if hits == 1:
        return "PARTIAL_SUCCESS"
    return "CRITICAL_FAILURE" if max(dice) == 1 else "FAILURE"


def normalized(weights: Counter[str]) -> dict[str, float]:
    total = sum(weights.values())
    return {k: float(Fraction(v) / total) for k, v in weights.items() if v}


def exact_action(pool: int, difficulty: int, sides: int = 6) -> dict[str, float]:
    return normalized(Counter(classify(d, difficulty) for d in product(range(1, sides + 1), repeat=pool)))


def exploded(initial: tuple[int, ...], sides: int, cap: int) -> Iterator[tuple[tuple[int, ...], Fraction]]:
    """Every final roll (with its probability) when each maximum face adds a die, chained, up to ``cap``."""

    def grow(
        dice: tuple[int, ...], pending: int, extra: int, p: Fraction
    ) -> Iterator[tuple[tuple[int, ...], Fraction]]:
        if pending == 0 or extra == cap:
            yield dice, p
            return
        for face in range(1, sides + 1):
            yield from grow((*dice, face), pending - 1 + (face == sides), extra + 1, p / sides)

    yield from grow(initial, initial.count(sides), 0, Fraction(1))


def exact_exploding(pool: int, difficulty: int, cap: int) -> dict[str, float]:
    weights: Counter[str] = Counter()
    for initial in product(range(1, 7), repeat=pool):
        for dice, p in exploded(initial, 6, cap):
            weights[classify(dice, difficulty)] += p * Fraction(1, 6**pool)  # type: ignore[assignment]
    return {k: float(v) for k, v in weights.items() if v}


ACTION_CASES = [(1, 3), (2, 4), (3, 5), (4, 6), (6, 6)]


@pytest.mark.parametrize(("pool", "difficulty"), ACTION_CASES)
def test_action_roll_fits_exact_distribution(pool: int, difficulty: int) -> None:
    dice = SeededDice(20_260 + pool * 10 + difficulty)
    request = {"difficulty": difficulty, "skill_dice": pool - 1, "choice": "ROLL"}
    samples = [resolve("action", request, dice).outcome.value for _ in range(SAMPLE)]  # type: ignore[attr-defined]
    assert_fits(samples, exact_action(pool, difficulty))


def test_action_table_matches_spec_311() -> None:
    """Spot-check the enumeration against the spec's §3.11 probability table."""
    assert round(exact_action(3, 4)["ABSOLUTE_SUCCESS"] * 100, 1) == 50.0
    assert round(exact_action(4, 5)["PARTIAL_SUCCESS"] * 100, 1) == 39.5
    assert round(exact_action(2, 5)["FAILURE"] * 100, 1) == 41.7


def test_d10_action_fits_exact_distribution() -> None:
    settings = EventSettings.model_validate({"optional": {"n_sided": {"enabled": True, "sides": 10}}})
    dice = SeededDice(1010)
    request = {"difficulty": 7, "skill_dice": 2, "choice": "ROLL"}
    samples = [resolve("action", request, dice, settings).outcome.value for _ in range(SAMPLE)]  # type: ignore[attr-defined]
    assert_fits(samples, exact_action(3, 7, sides=10))


def test_exploding_action_fits_exact_distribution() -> None:
    settings = EventSettings.model_validate({"optional": {"exploding_dice": {"enabled": True, "max_extra_dice": 3}}})
    dice = SeededDice(606)
    request = {"difficulty": 6, "skill_dice": 1, "choice": "ROLL"}
    samples = [resolve("action", request, dice, settings).outcome.value for _ in range(SAMPLE)]  # type: ignore[attr-defined]
    assert_fits(samples, exact_exploding(2, 6, cap=3))


def test_talent_reroll_of_the_lowest_die_fits_exact_distribution() -> None:
    settings = EventSettings.model_validate({"optional": {"talent": {"enabled": True}}})
    weights: Counter[str] = Counter()
    for a, b, new in product(range(1, 7), repeat=3):
        first = (a, b)
        i = first.index(min(first))
        weights[classify(tuple(new if j == i else d for j, d in enumerate(first)), 4)] += 1
    dice = SeededDice(4242)
    samples = []
    for _ in range(SAMPLE):
        state = choose(start_action(PoolBreakdown(skill_dice=1, talent_built=True), 4, settings), Choice.ROLL, dice)
        state = talent_reroll(state, state.dice.index(min(state.dice)), dice)
        samples.append(state.outcome.value)  # type: ignore[union-attr]
    assert_fits(samples, normalized(weights))


def exact_fist(counts: tuple[int, int], use_total: bool) -> dict[str, float]:
    weights: Counter[str] = Counter()
    for faces in product(range(1, 7), repeat=sum(counts)):
        a, b = sorted(faces[: counts[0]], reverse=True), sorted(faces[counts[0] :], reverse=True)
        if use_total:
            score_a = sum(x >= y for x, y in zip(a, b, strict=False))
            score_b = sum(y >= x for x, y in zip(a, b, strict=False))
        else:
            score_a, score_b = a[0], b[0]
        weights["A" if score_a > score_b else "B" if score_b > score_a else "TIE"] += 1
    return normalized(weights)


@pytest.mark.parametrize("use_total", [False, True])
def test_fist_tiebreak_fits_exact_distribution(use_total: bool) -> None:
    settings = EventSettings.model_validate({"optional": {"total_challenge": {"enabled": use_total}}})
    dice = SeededDice(7 + use_total)
    samples = []
    for _ in range(SAMPLE):
        result = resolve("fist_tiebreak", {"side": "LEFT", "counts": {"A": 2, "B": 2}}, dice, settings)
        samples.append(result.winners[0] if len(result.winners) == 1 else "TIE")  # type: ignore[attr-defined]
    assert_fits(samples, exact_fist((2, 2), use_total))


def test_order_roll_fits_exact_distribution() -> None:
    exact = normalized(Counter(sum(d) for d in product(range(1, 7), repeat=3)))
    dice = SeededDice(333)
    samples = [resolve("order_roll", {}, dice).total for _ in range(SAMPLE)]  # type: ignore[attr-defined]
    assert_fits(samples, exact)
