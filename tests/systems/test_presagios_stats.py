"""Statistical tests: each roll kind, seeded, against its exact distribution by enumeration."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import systems.presagios as presagios_rules
from systems.dice import SeededDice
from systems.presagios.challenge import resolve_challenge
from systems.presagios.conflict import SideRoll, resolve_conflict
from systems.presagios.dice import core_result, pool_size, roll_pool
from systems.presagios.settings import DEFAULT_SETTINGS, OmenFaceValue, PresagiosSettings
from systems.presagios.sheet import Kind
from tests.systems.stats import assert_fits

SAMPLES = 20_000
FACES = range(1, 7)


def _exact(pool: int, trait: int = 0, rules: PresagiosSettings = DEFAULT_SETTINGS) -> dict[tuple[int, int], Fraction]:
    """P(total, omens) for ``pool`` d6 + ``trait``, over all 6**pool equally likely faces."""
    counts = Counter(
        (r.total, r.omens) for r in (core_result(dice, trait, rules) for dice in product(FACES, repeat=pool))
    )
    return {k: Fraction(v, 6**pool) for k, v in counts.items()}


def test_roll_fits_exact_distribution() -> None:
    dice = SeededDice(20261122)
    exact = _exact(3, 1)
    ruleset = presagios_rules.RULESET
    request = ruleset.roll_kind("roll").request_model.model_validate({"current": 3, "trait_bonus": 1})  # type: ignore[union-attr]
    samples = [((r := ruleset.resolve("roll", request, dice)).total, r.omens) for _ in range(SAMPLES)]
    assert_fits(samples, {k: float(p) for k, p in exact.items()})


def test_roll_with_omens_worth_zero_fits() -> None:
    rules = PresagiosSettings(omen_face_value=OmenFaceValue.ZERO)
    dice = SeededDice(7)
    exact = _exact(4, 0, rules)
    samples = [((r := roll_pool(dice, pool_size(2, 2), 0, rules)).total, r.omens) for _ in range(SAMPLES)]
    assert_fits(samples, {k: float(p) for k, p in exact.items()})


def test_challenge_fits_exact_distribution() -> None:
    dice = SeededDice(314159)
    difficulty = 7
    exact: Counter[tuple[bool, int]] = Counter()
    for (total, omens), p in _exact(4, 1).items():
        exact[(total >= difficulty, omens)] += p  # type: ignore[assignment]
    samples = []
    for _ in range(SAMPLES):
        result = resolve_challenge(dice, 3, difficulty, 1, 1)
        samples.append((result.success, result.roll.omens))
    assert_fits(samples, {k: float(p) for k, p in exact.items()})


def _conflict_exact(
    pool_a: int, pool_b: int, trait_a: int, principal_vs_principal: bool
) -> dict[tuple[str, int], float]:
    """P(winner, combined final-pair omens). Ties that reroll are conditioned away (geometric series)."""
    a_dist, b_dist = _exact(pool_a, trait_a), _exact(pool_b)
    decided: Counter[tuple[str, int]] = Counter()
    for (ta, oa), pa in a_dist.items():
        for (tb, ob), pb in b_dist.items():
            if ta == tb and principal_vs_principal:
                continue  # rerolled: the final pair is a fresh draw
            winner = "a" if ta >= tb else "b"  # a is the principal; it wins ties against b if b is not
            decided[(winner, oa + ob)] += pa * pb  # type: ignore[assignment]
    mass = sum(decided.values())
    return {k: float(p / mass) for k, p in decided.items()}


def test_conflict_principal_vs_monster_fits() -> None:
    dice = SeededDice(2718)
    exact = _conflict_exact(2, 2, 0, principal_vs_principal=False)
    a, b = SideRoll(Kind.PRINCIPAL, 2), SideRoll(Kind.MONSTRUO, 2)
    samples = [((r := resolve_conflict(dice, a, b)).winner, r.combined_omens) for _ in range(SAMPLES)]
    assert_fits(samples, exact)


def test_conflict_with_rerolled_ties_fits() -> None:
    dice = SeededDice(1618)
    exact = _conflict_exact(2, 2, 1, principal_vs_principal=True)
    a, b = SideRoll(Kind.PRINCIPAL, 2, 0, 1), SideRoll(Kind.PRINCIPAL, 2)
    samples = [((r := resolve_conflict(dice, a, b)).winner, r.combined_omens) for _ in range(SAMPLES)]
    assert_fits(samples, exact)
