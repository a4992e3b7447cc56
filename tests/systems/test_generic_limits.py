"""Every refusal of generic notation, with its code, and abusive input refused fast and safely."""

from __future__ import annotations

import sys
from types import FrameType

import pytest

from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.generic import clear_parse_cache, limits, roll_notation
from systems.generic.limits import (
    MAX_DEPTH,
    MAX_DICE,
    MAX_EXPRESSION_LENGTH,
    MAX_PARTS,
    MAX_SIDES,
    MAX_TOKENS,
)


def refusal(text: str) -> RulesError:
    dice = ScriptedDice([])  # no faces: any refusal must come before the first die is rolled
    with pytest.raises(RulesError) as caught:
        roll_notation(text, dice)
    error = caught.value
    assert error.code != "dice_exhausted", f"{text!r} started rolling before being refused"
    assert error.message_es and error.message_en and error.message_es != error.message_en
    return error


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "notation_empty"),
        ("   ", "notation_empty"),
        ("1" * (MAX_EXPRESSION_LENGTH + 1), "notation_too_long"),
        ("1+" * 5000 + "1", "notation_too_long"),
        ("99999999d6", "too_many_dice"),
        (f"{MAX_DICE + 1}d6", "too_many_dice"),
        ("60d6+60d6", "too_many_dice"),
        ("50d6, 51d6", "too_many_dice"),
        ("99999999999999999999999999999999999999d6", "too_many_dice"),
        ("1d99999999", "too_many_sides"),
        (f"1d{MAX_SIDES + 1}", "too_many_sides"),
        ("0d6", "invalid_dice_count"),
        ("1d0", "invalid_sides"),
        ("2000000+1", "number_too_large"),
        ("1d6!>9999999", "number_too_large"),
        (",".join(["1d6"] * (MAX_PARTS + 1)), "too_many_parts"),
        ("+".join(["1"] * (MAX_TOKENS // 2 + 1)), "notation_too_complex"),
        ("(" * 99 + "1" + ")" * 99, "notation_too_complex"),
        ("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1), "notation_too_deep"),
        ("(" * (MAX_DEPTH + 1) + "1", "notation_too_deep"),
        ("-" * (MAX_DEPTH + 1) + "1", "notation_too_deep"),
        ("-" * 150 + "1", "notation_too_complex"),
        ("1d1!", "explosion_always"),
        ("d1!", "explosion_always"),
        ("1d6!>0", "explosion_always"),
        ("1d6!<7", "explosion_always"),
        ("4dF!>=-0", "notation_syntax"),
        ("4dF!<2", "explosion_always"),
        ("1d6rr<7", "reroll_always"),
        ("1d1rr", "reroll_always"),
        ("4d6kh5", "invalid_keep"),
        ("4d6kh0", "invalid_keep"),
        ("4d6dl4", "invalid_drop"),
        ("6d10f1", "failure_without_success"),
        ("4d6kh3kl1", "duplicate_modifier"),
        ("[a] 1d6 # b", "duplicate_label"),
        ("3d6+*2", "notation_syntax"),
        ("1d6 ** 2", "notation_syntax"),
        ("1d6/2", "notation_syntax"),
        ("ataque", "notation_syntax"),
    ],
)
def test_refusals(text: str, code: str) -> None:
    assert refusal(text).code == code


def test_harmless_edge_cases_are_accepted() -> None:
    # Rerolling every face once is wasteful, not endless; an explosion that never fires is fine.
    assert roll_notation("1d6r<7", ScriptedDice([1, 2])).total == 2
    assert roll_notation("3d6!>6", ScriptedDice([6, 6, 6])).total == 18
    assert roll_notation("1d1", ScriptedDice([1])).total == 1
    assert roll_notation(f"{MAX_DICE}d{MAX_SIDES}", ScriptedDice([1] * MAX_DICE)).total == MAX_DICE
    assert roll_notation("(" * MAX_DEPTH + "1" + ")" * MAX_DEPTH, ScriptedDice([])).total == 1
    assert roll_notation(",".join(["1"] * MAX_PARTS), ScriptedDice([])).totals == (1,) * MAX_PARTS


def test_syntax_error_messages_are_bilingual() -> None:
    error = refusal("3d6 x")
    assert error.message_es == "Notación de dados no válida en la columna 5: no se esperaba «x»."
    assert error.message_en == "Invalid dice notation at column 5: unexpected 'x'."


def test_length_is_checked_before_parsing_and_never_cached() -> None:
    clear_parse_cache()
    refusal("1" * 10_000)
    from systems.generic import parse_cache_info

    assert parse_cache_info().currsize == 0


ABUSIVE = [
    "99999999d6",
    "1d99999999",
    "(" * 99 + "1" + ")" * 99,
    "(" * 5000,
    "1+" * 5000,
    "x" * 10_000,
    "-" * 199 + "1",
    "1d1!",
    "d1!",
    "1d1!>0",
    "1d2rr<3",
    "+".join(["9d6"] * 12),  # the worst full parse: just under the token cap, refused for its dice
    ",".join(["1d6"] * 11),
    "[" + "a" * 190 + "] 1d6" + "!" * 4,
]


# The most work any refusal below may take, in Python and C function calls once lark's grammar is built
# (the worst, the long label, goes through lark: about 11,000). Counting calls instead of timing them
# keeps the test deterministic on a loaded CI box; `make bench` reports the time (target < 1 ms).
MAX_CALLS_PER_REFUSAL = 20_000


def calls_to_refuse(text: str) -> int:
    calls = 0

    def count(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    clear_parse_cache()
    sys.setprofile(count)
    try:
        roll_notation(text, ScriptedDice([]))
    except RulesError:
        pass
    finally:
        sys.setprofile(None)
    return calls


@pytest.mark.parametrize("text", ABUSIVE, ids=lambda text: text[:20])
def test_abusive_input_is_refused_with_bounded_work(text: str) -> None:
    refusal(text)  # also builds lark's grammar once, which is not the input's cost
    assert 0 < calls_to_refuse(text) <= MAX_CALLS_PER_REFUSAL


def test_the_work_bound_catches_a_parse_that_grows_with_the_input(monkeypatch: pytest.MonkeyPatch) -> None:
    # Only the caps keep this sum of 5,000 terms from being read whole; without them it costs far more.
    long_sum = "+".join(["1"] * 5000)
    assert calls_to_refuse(long_sum) <= MAX_CALLS_PER_REFUSAL
    monkeypatch.setattr(limits, "MAX_EXPRESSION_LENGTH", len(long_sum))
    monkeypatch.setattr(limits, "MAX_TOKENS", len(long_sum))
    assert calls_to_refuse(long_sum) > MAX_CALLS_PER_REFUSAL


@pytest.mark.parametrize("text", ["(", ")", "d", "!", "%", "#", "[", "]", "1d", "dd6", "6d10>", "6d10f", "r1", ","])
def test_fragments_are_syntax_errors(text: str) -> None:
    assert refusal(text).code == "notation_syntax"
