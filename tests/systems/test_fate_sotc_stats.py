"""fate-sotc statistical tests (spec §9): each roll kind against its exact distribution.

Exact distributions come from enumerating the 81 equally likely Fudge face tuples (each d6 maps to
-1/0/+1 with probability exactly 1/3), combined per roll kind; samples come from seeded dice.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable

from systems.dice import SeededDice
from systems.fate_sotc.dice import roll_4df
from systems.fate_sotc.movement import sprint_reach
from systems.fate_sotc.resolution import resolve_attack, resolve_opposed, resolve_simple
from systems.fate_sotc.rolls import (
    roll_attack,
    roll_block,
    roll_effort,
    roll_maneuver,
    roll_opposed,
    roll_simple,
    roll_sprint,
)
from tests.systems.stats import assert_fits

N = 20_000
CAP = 5  # shifts above this share one bin, so no bin has a tiny expected count


def dice_distribution() -> dict[int, float]:
    counts = Counter(sum(t) for t in itertools.product((-1, 0, 1), repeat=4))
    return {total: n / 81 for total, n in counts.items()}


DICE = dice_distribution()


def one_roll(fn: Callable[[int], Hashable]) -> dict[Hashable, float]:
    dist: dict[Hashable, float] = defaultdict(float)
    for total, p in DICE.items():
        dist[fn(total)] += p
    return dict(dist)


def two_rolls(fn: Callable[[int, int], Hashable]) -> dict[Hashable, float]:
    dist: dict[Hashable, float] = defaultdict(float)
    for (ta, pa), (tb, pb) in itertools.product(DICE.items(), repeat=2):
        dist[fn(ta, tb)] += pa * pb
    return dict(dist)


def sample(fn: Callable[[SeededDice], Hashable], seed: int, n: int = N) -> list[Hashable]:
    dice = SeededDice(seed)
    return [fn(dice) for _ in range(n)]


def test_4df_sum_and_faces_are_fair() -> None:
    dice = SeededDice(81)
    rolls = [roll_4df(dice) for _ in range(81_000)]
    assert_fits([r.total for r in rolls], DICE)
    assert_fits([d for r in rolls for d in r.d6], {d: 1 / 6 for d in range(1, 7)})
    assert abs(sum(r.total for r in rolls) / len(rolls)) < 0.0229


def test_effort_roll() -> None:
    assert_fits(sample(lambda d: roll_effort(d, 2).effort, 1), one_roll(lambda t: 2 + t))


def test_simple_roll() -> None:
    def key(success: bool, shifts: int, margin: int) -> Hashable:
        return (success, min(shifts, CAP), margin)

    expected = one_roll(lambda t: key(*_simple(2 + t, 3)))
    observed = sample(lambda d: key(*_simple_outcome(roll_simple(d, 2, 3).outcome)), 2)
    assert_fits(observed, expected)


def _simple(eff: int, difficulty: int) -> tuple[bool, int, int]:
    return _simple_outcome(resolve_simple(eff, difficulty))


def _simple_outcome(out) -> tuple[bool, int, int]:  # type: ignore[no-untyped-def]
    return out.success, out.shifts, out.failure_margin


def test_opposed_roll() -> None:
    def key(winner: str | None, shifts: int) -> Hashable:
        return (winner, min(shifts, CAP))

    expected = two_rolls(lambda a, b: key(*_opp(3 + a, 2 + b)))
    observed = sample(lambda d: key(*_opp_out(roll_opposed(d, (3, ()), (2, ())).outcome)), 3)
    assert_fits(observed, expected)


def _opp(a: int, b: int) -> tuple[str | None, int]:
    return _opp_out(resolve_opposed(a, b))


def _opp_out(out) -> tuple[str | None, int]:  # type: ignore[no-untyped-def]
    return out.winner, out.shifts


def test_attack_roll() -> None:
    def key(hit: int, spin: bool) -> Hashable:
        return (min(hit, CAP), spin)

    expected = two_rolls(lambda a, b: key(resolve_attack(3 + a, 2 + b).hit, resolve_attack(3 + a, 2 + b).defender_spin))

    def observe(d: SeededDice) -> Hashable:
        r = roll_attack(d, (3, ()), (2, ())).result
        return key(r.hit, r.defender_spin)

    assert_fits(sample(observe, 4), expected)


def test_maneuver_roll() -> None:
    def exact(a: int, b: int) -> Hashable:
        out = resolve_opposed(3 + a, 3 + b)
        ok = out.winner == "a" and out.shifts >= 1
        return (ok, ok and out.shifts >= 3)

    def observe(d: SeededDice) -> Hashable:
        r = roll_maneuver(d, (3, ()), (3, ()))
        return (r.succeeded, r.sticky_allowed)

    assert_fits(sample(observe, 5), two_rolls(exact))


def test_block_roll() -> None:
    assert_fits(sample(lambda d: roll_block(d, 3, gm_penalty=-1).strength, 6), one_roll(lambda t: 3 + t - 1))


def test_sprint_roll() -> None:
    path = [0, 1, 0, 0]
    expected = one_roll(lambda t: sprint_reach(resolve_simple(2 + t, 0).shifts, path))
    assert_fits(sample(lambda d: roll_sprint(d, 2, path).zones, 7), expected)
