"""Fate Accelerated: dice (§9.2) and outcome classification (§9.4), with properties."""

from __future__ import annotations

from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from systems.errors import RulesError
from systems.fate_accelerated.dice import FACES, dice_sum, roll_4df, sum_histogram
from systems.fate_accelerated.ladder import Outcome, classify, ladder_label
from tests.systems.test_fate_accelerated_fixtures import dice
from tests.systems.vectors import vector

SUMS = {
    "fate-accelerated-TV-001": ("-+0+", 1),
    "fate-accelerated-TV-002": ("+-00", 0),
    "fate-accelerated-TV-003": ("+++-", 2),
    "fate-accelerated-TV-004": ("-000", -1),
    "fate-accelerated-TV-005": ("----", -4),
    "fate-accelerated-TV-006": ("++++", 4),
}


@vector(*SUMS)
def test_dice_sum_of_worked_examples(vector_id: str) -> None:
    faces, expected = SUMS[vector_id]
    assert dice_sum(faces) == expected
    # the same faces come out of the injected source unchanged
    assert roll_4df(dice(faces)) == faces


@vector("fate-accelerated-TV-007")
def test_histogram_of_81_sequences(vector_id: str) -> None:
    assert sum_histogram() == {-4: 1, -3: 4, -2: 10, -1: 16, 0: 19, 1: 16, 2: 10, 3: 4, 4: 1}
    assert sum(1 for _ in product(FACES, repeat=4)) == 81


@vector("fate-accelerated-TV-008")
def test_dice_sum_refuses_bad_faces(vector_id: str) -> None:
    for bad in ("-+0", "-+0x"):
        with pytest.raises(RulesError) as err:
            dice_sum(bad)
        assert err.value.code == "invalid_faces"
        assert err.value.message_es and err.value.message_en


CLASSIFY = {
    "fate-accelerated-TV-016": ((1, 2), (Outcome.FAIL, -1)),
    "fate-accelerated-TV-017": ((2, 2), (Outcome.TIE, 0)),
    "fate-accelerated-TV-018": ((3, 2), (Outcome.SUCCESS, 1)),
    "fate-accelerated-TV-019": ((4, 2), (Outcome.SUCCESS, 2)),
    "fate-accelerated-TV-020": ((5, 2), (Outcome.SUCCESS_WITH_STYLE, 3)),
    "fate-accelerated-TV-021": ((9, 2), (Outcome.SUCCESS_WITH_STYLE, 7)),
    "fate-accelerated-TV-022": ((-3, -1), (Outcome.FAIL, -2)),
    "fate-accelerated-TV-023": ((-1, -4), (Outcome.SUCCESS_WITH_STYLE, 3)),
    "fate-accelerated-TV-024": ((0, 0), (Outcome.TIE, 0)),
}


@vector(*CLASSIFY)
def test_classify(vector_id: str) -> None:
    args, expected = CLASSIFY[vector_id]
    assert classify(*args) == expected


@given(st.text(alphabet="-0+", min_size=4, max_size=4))
def test_sum_in_range(faces: str) -> None:
    assert -4 <= dice_sum(faces) <= 4


@given(st.integers(-20, 20), st.integers(-20, 20))
def test_classify_mirror(total: int, target: int) -> None:
    """Opposed rolls mirror: active fail <-> defender success/SwS, tie <-> tie (§3.6)."""
    a, shifts = classify(total, target)
    d, d_shifts = classify(target, total)
    assert shifts == total - target and d_shifts == -shifts
    assert (a is Outcome.TIE) == (d is Outcome.TIE)
    assert (a is Outcome.FAIL) == (d in (Outcome.SUCCESS, Outcome.SUCCESS_WITH_STYLE))
    assert (a is Outcome.SUCCESS_WITH_STYLE) == (shifts >= 3)


def test_ladder_labels() -> None:
    assert ladder_label(3, "es") == "Grande (+3)"
    assert ladder_label(3, "en") == "Good (+3)"
    assert ladder_label(-3) == "-3"
