"""Fate Accelerated: each roll kind against its exact distribution (enumerated), with fixed seeds."""

from __future__ import annotations

from itertools import product

import pytest

import systems.fate_accelerated as fate_accelerated_rules
from systems.dice import SeededDice
from systems.fate_accelerated.dice import FACES, dice_sum
from systems.fate_accelerated.ladder import classify
from systems.fate_accelerated.roll_kinds import ActionRollRequest, FateDiceRequest
from tests.systems.stats import assert_fits

SAMPLES = 20_000
RULESET = fate_accelerated_rules.RULESET


def exact(modifier: int, difficulty: int | None) -> tuple[dict[int, float], dict[str, float]]:
    """Distribution of the total and of the outcome, by enumerating the 81 face sequences."""
    totals: dict[int, float] = {}
    outcomes: dict[str, float] = {}
    for seq in product(FACES, repeat=4):
        total = dice_sum(seq) + modifier
        totals[total] = totals.get(total, 0) + 1 / 81
        if difficulty is not None:
            o = classify(total, difficulty)[0].value
            outcomes[o] = outcomes.get(o, 0) + 1 / 81
    return totals, outcomes


CASES = {
    "create_advantage": (ActionRollRequest(approach="sneaky", approach_rating=3, stunt_bonus=2, difficulty=4), 5, 4),
    "overcome": (ActionRollRequest(approach="forceful", approach_rating=1, difficulty=2), 1, 2),
    "attack": (ActionRollRequest(approach="quick", approach_rating=2, helpers=2), 4, None),
    "defend": (ActionRollRequest(approach="careful", approach_rating=2), 2, None),
    "fate_dice": (FateDiceRequest(modifier=-1, difficulty=0), -1, 0),
}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_roll_kind_fits_exact_distribution(kind: str) -> None:
    request, modifier, difficulty = CASES[kind]
    dice = SeededDice(20_261_122 + len(kind))
    results = [RULESET.resolve(kind, request, dice) for _ in range(SAMPLES)]  # type: ignore[misc]
    totals, outcomes = exact(modifier, difficulty)
    assert_fits((r.total for r in results), totals)
    if difficulty is not None:
        assert_fits((r.outcome.value for r in results), outcomes)


def test_biased_dice_are_caught() -> None:
    """The test above has teeth: a resolver that drops '-' faces fails it."""

    class NoMinus(SeededDice):
        def roll(self, sides: int) -> int:
            return max(2, super().roll(sides))

    dice = NoMinus(7)
    totals, _ = exact(0, None)
    results = [RULESET.resolve("fate_dice", FateDiceRequest(), dice).total for _ in range(2_000)]  # type: ignore[misc]
    with pytest.raises(AssertionError):
        assert_fits(results, totals)
