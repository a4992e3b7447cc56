"""Statistical tests: each roll kind, driven by SeededDice, against its exact enumerated distribution."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Hashable

import pytest

from systems.dice import SeededDice
from systems.dont_rest_your_head import RULESET
from systems.dont_rest_your_head.domination import dominant, strength, successes
from systems.dont_rest_your_head.outcome import compute_outcome
from systems.dont_rest_your_head.resolve import (
    ConflictRoll,
    ConflictRollRequest,
    HelperDiceRequest,
    LeaderDiceRequest,
    PainDiceRequest,
)
from systems.dont_rest_your_head.roll import HelperRoll, LeaderRoll, PainRoll
from tests.systems.stats import assert_fits

SAMPLES = 20_000
FACES = range(1, 7)


def exact(n_dice: int, key: Callable[[tuple[int, ...]], Hashable]) -> dict[Hashable, float]:
    """Enumerate every face combination of ``n_dice`` d6: the exact distribution of ``key``."""
    counts: Counter[Hashable] = Counter(key(faces) for faces in itertools.product(FACES, repeat=n_dice))
    total = 6**n_dice
    return {k: c / total for k, c in counts.items()}


def sample(kind: str, request: object, key: Callable[[object], Hashable], seed: int) -> list[Hashable]:
    assert RULESET.resolve is not None
    dice = SeededDice(seed)
    return [key(RULESET.resolve(kind, request, dice)) for _ in range(SAMPLES)]


def test_conflict_roll_fits_exact_distribution() -> None:
    # D3 E1 vs P2 (6 dice): the (won, dominant pool) pair covers degrees and every tie-break.
    def by_faces(f: tuple[int, ...]) -> Hashable:
        res = compute_outcome(f[0:3], f[3:4], (), f[4:6])
        return (res.success, res.dominant_pool)

    def by_result(r: object) -> Hashable:
        assert isinstance(r, ConflictRoll)
        return (r.outcome.success, r.outcome.dominant_pool)

    request = ConflictRollRequest(discipline=3, exhaustion=1, madness=0, pain=2)
    assert_fits(sample("conflict", request, by_result, seed=4004), exact(6, by_faces))


def test_conflict_roll_with_major_use_and_helper_fits() -> None:
    # D1 E1 + helper 1 vs P2, major use (+1 success per exhaustion die rolled): the degree matters.
    def by_faces(f: tuple[int, ...]) -> Hashable:
        res = compute_outcome(f[0:1], f[1:2], (), f[3:5], helpers=[f[2:3]], talent_use="major", exhaustion_at_roll=1)
        return (res.player_degree, res.gm_degree, res.dominant_pool)

    def by_result(r: object) -> Hashable:
        assert isinstance(r, ConflictRoll)
        o = r.outcome
        return (o.player_degree, o.gm_degree, o.dominant_pool)

    request = ConflictRollRequest(discipline=1, exhaustion=1, pain=2, helpers=(1,), talent_use="major")
    assert_fits(sample("conflict", request, by_result, seed=4005), exact(5, by_faces))


def test_leader_roll_fits_exact_distribution() -> None:
    # D3 E1 M1: total successes and the player's top pool.
    def by_faces(f: tuple[int, ...]) -> Hashable:
        pools = {"discipline": f[0:3], "exhaustion": f[3:4], "madness": f[4:5]}
        return (sum(successes(p) for p in pools.values()), dominant(pools))

    def by_result(r: object) -> Hashable:
        assert isinstance(r, LeaderRoll)
        pools = {"discipline": r.discipline, "exhaustion": r.exhaustion, "madness": r.madness}
        return (r.all_successes(), dominant(pools))

    request = LeaderDiceRequest(discipline=3, exhaustion=1, madness=1)
    assert_fits(sample("leader", request, by_result, seed=4006), exact(5, by_faces))


@pytest.mark.parametrize("pain", [3, 4])
def test_pain_roll_fits_exact_distribution(pain: int) -> None:
    def by_result(r: object) -> Hashable:
        assert isinstance(r, PainRoll)
        return (successes(r.dice), strength(r.dice))

    expected = exact(pain, lambda f: (successes(f), strength(f)))
    assert_fits(sample("pain", PainDiceRequest(pain=pain), by_result, seed=4007 + pain), expected)


def test_helper_roll_fits_exact_distribution() -> None:
    def by_result(r: object) -> Hashable:
        assert isinstance(r, HelperRoll)
        return (successes(r.discipline), strength(r.discipline))

    expected = exact(3, lambda f: (successes(f), strength(f)))
    assert_fits(sample("helper", HelperDiceRequest(discipline=3), by_result, seed=4011), expected)


def test_a_biased_die_is_caught() -> None:
    """The test has teeth: a source that never rolls 6 must fail the same check."""

    class NoSixes(SeededDice):
        def roll(self, sides: int) -> int:
            return min(super().roll(sides), 5)

    dice = NoSixes(1)
    assert RULESET.resolve is not None
    got = [
        (lambda r: (successes(r.dice), strength(r.dice)))(RULESET.resolve("pain", PainDiceRequest(pain=3), dice))
        for _ in range(SAMPLES)
    ]
    with pytest.raises(AssertionError):
        assert_fits(got, exact(3, lambda f: (successes(f), strength(f))))
