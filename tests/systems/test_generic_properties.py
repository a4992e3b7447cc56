"""Properties of generic notation (hypothesis) and chi-square fits against exact distributions."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from systems.dice import ScriptedDice, SeededDice
from systems.errors import RulesError
from systems.generic import (
    BinaryOp,
    Compare,
    Constant,
    Dice,
    Negate,
    Notation,
    Part,
    Select,
    parse,
    roll_notation,
    roll_parsed,
)
from tests.systems.stats import assert_fits

SAMPLES = 20_000

# ---------------------------------------------------------------------------------------------
# Strategies: valid ASTs, built directly, for the canonical round trip.

compare_ops = st.sampled_from([">", ">=", "<", "<=", "="])


@st.composite
def dice_nodes(draw: st.DrawFn) -> Dice:
    count = draw(st.integers(1, 6))
    sides = draw(st.one_of(st.integers(1, 20), st.just("F"), st.just(100)))
    low, high = (-1, 1) if sides == "F" else (1, sides)

    def never_always(compare: Compare) -> bool:
        return not (compare.matches(low) and compare.matches(high))

    compares = st.builds(Compare, compare_ops, st.integers(0, 21))
    reroll = draw(st.none() | compares)
    reroll_repeat = reroll is not None and never_always(reroll) and draw(st.booleans())
    explode = draw(st.none() | compares.filter(never_always))
    select = draw(
        st.none()
        | st.builds(Select, st.just(True), st.booleans(), st.integers(1, count))
        | st.builds(Select, st.just(False), st.booleans(), st.integers(0, count - 1))
    )
    success = draw(st.none() | compares)
    failure = draw(st.none() | compares) if success is not None else None
    return Dice(count, sides, reroll, reroll_repeat, explode, select, success, failure)


leaves = st.one_of(st.builds(Constant, st.integers(0, 50)), dice_nodes())
expressions = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.builds(Negate, inner),
        st.builds(BinaryOp, st.sampled_from(["+", "-", "*"]), inner, inner),
    ),
    max_leaves=4,
)
labels = st.none() | st.text(alphabet="abcñáéAZ09 ¡!¿?,#()-+*.", max_size=12).map(
    lambda text: " ".join(text.split()) or None
)
notations = st.builds(
    Notation,
    st.lists(st.builds(Part, expressions, labels), min_size=1, max_size=2).map(tuple),
)


@given(notations)
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_canonical_text_reparses_to_the_same_ast(notation: Notation) -> None:
    text = notation.canonical()
    try:
        reparsed = parse(text)
    except RulesError as exc:
        # Only the size caps may refuse a generated tree; anything else is a canonical-text bug.
        assume(exc.code not in {"notation_too_long", "notation_too_complex", "too_many_dice", "notation_too_deep"})
        raise
    assert reparsed == notation
    assert reparsed.canonical() == text


# ---------------------------------------------------------------------------------------------
# Rolling properties with faces chosen by hypothesis.


@given(st.data(), st.integers(1, 20), st.integers(1, 100))
def test_ndm_total_is_between_n_and_n_times_m(data: st.DataObject, n: int, m: int) -> None:
    faces = data.draw(st.lists(st.integers(1, m), min_size=n, max_size=n))
    result = roll_notation(f"{n}d{m}", ScriptedDice(faces))
    assert n <= result.total <= n * m
    assert result.total == sum(faces)


@given(st.lists(st.integers(1, 3), min_size=4, max_size=4))
def test_4df_is_between_minus_4_and_4(faces: list[int]) -> None:
    result = roll_notation("4dF", ScriptedDice(faces))
    assert -4 <= result.total <= 4
    assert result.total == sum(face - 2 for face in faces)


@given(st.data(), st.integers(1, 10), st.integers(2, 20))
def test_keep_highest_is_never_below_keep_lowest(data: st.DataObject, n: int, m: int) -> None:
    keep = data.draw(st.integers(1, n))
    faces = data.draw(st.lists(st.integers(1, m), min_size=n, max_size=n))
    high = roll_notation(f"{n}d{m}kh{keep}", ScriptedDice(faces)).total
    low = roll_notation(f"{n}d{m}kl{keep}", ScriptedDice(faces)).total
    assert high >= low
    assert high == sum(sorted(faces)[-keep:])
    assert low == sum(sorted(faces)[:keep])


@given(notations, st.integers(0, 2**32))
@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_every_result_verifies(notation: Notation, seed: int) -> None:
    try:
        parse(notation.canonical())  # the static check, as the resolver does
    except RulesError:
        assume(False)
    result = roll_parsed(notation, SeededDice(seed))
    assert result.verify()
    for part in result.parts:
        for roll in part.rolls:
            low, high = roll.term.face_range
            assert all(low <= die.face <= high for die in roll.dice)
            assert sum(die.counts for die in roll.dice) <= roll.term.count + sum(die.exploded for die in roll.dice)


NOTATION_ALPHABET = "0123456789dDfFkKhHlLrRoO!<>=+-*()%,#[] a"


@given(st.text(alphabet=NOTATION_ALPHABET, max_size=40), st.integers(0, 2**32))
@settings(max_examples=500)
def test_any_text_is_rolled_or_refused_with_a_rules_error(text: str, seed: int) -> None:
    try:
        notation = parse(text)
    except RulesError as exc:
        assert exc.code and exc.message_es and exc.message_en
        return
    assert parse(notation.canonical()) == notation
    assert roll_parsed(notation, SeededDice(seed)).verify()


# ---------------------------------------------------------------------------------------------
# Chi-square against exact distributions (seeded, so the tests are reproducible).


def exact(faces: range, count: int, value) -> dict[int, float]:
    outcomes = Counter(value(roll) for roll in itertools.product(faces, repeat=count))
    total = len(faces) ** count
    return {outcome: n / total for outcome, n in outcomes.items()}


def sample(notation: str, seed: int) -> list[int]:
    dice = SeededDice(seed)
    return [roll_notation(notation, dice).total for _ in range(SAMPLES)]


def test_3d6_fits_its_exact_distribution() -> None:
    assert_fits(sample("3d6", 1), exact(range(1, 7), 3, sum))


def test_4df_fits_its_exact_distribution() -> None:
    assert_fits(sample("4dF", 2), exact(range(-1, 2), 4, sum))


def test_4d6kh3_fits_its_exact_distribution() -> None:
    assert_fits(sample("4d6kh3", 3), exact(range(1, 7), 4, lambda roll: sum(sorted(roll)[1:])))


def test_success_count_fits_the_binomial() -> None:
    p = Fraction(4, 10)  # 7, 8, 9, 10 on a d10
    binomial = {k: float(math.comb(6, k) * p**k * (1 - p) ** (6 - k)) for k in range(7)}
    assert_fits(sample("6d10>=7", 4), binomial)
