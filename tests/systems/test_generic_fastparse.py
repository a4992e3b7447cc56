"""The hand-written notation reader and lark agree (issue 12: an uncached parse must be cheap). On every
text the fast reader accepts it builds exactly lark's AST; on every text lark refuses it answers None, so
the error comes from lark with its message and column."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from systems.errors import RulesError
from systems.generic.fastparse import parse_simple
from systems.generic.parse import _parse_lark, parse

# Pieces of notations, valid and not, glued in any order: the reader must never disagree with lark.
PIECES = [
    "1", "3", "20", "0", "d", "D", "6", "10", "%", "F", "f", "!", "r", "R", "ro", "rr", "k", "kh", "KL", "kl",
    "dh", "dl", "d", ">", ">=", "<", "<=", "=", "+", "-", "*", "(", ")", ",", " ", "  ", "\t", "[a b]", "[x]",
    "# ataque", "#daño  ", "\u00a0", "x", "h",
]  # fmt: skip


def _lark(text: str) -> object:
    try:
        return _parse_lark(text)
    except RulesError as error:
        return error.code


@settings(max_examples=3000)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=12).map("".join))
def test_the_reader_agrees_with_lark_or_steps_aside(text: str) -> None:
    fast = parse_simple(text)
    if fast is not None:
        assert fast == _lark(text), text


@pytest.mark.parametrize(
    "text",
    [
        "3d6+2", "1d20+5 # ataque", "4dF+2", "4d6kh3", "2d20kl1", "3d6!", "4d6r1", "6d10>=7f1", "10d6",
        "[ataque] 1d20+7, [daño] 2d6+3", "d%", "3d10!>9", "3d6!6>4", "4d6rr<2", "4d6ro<3", "4d6d1", "4D6KH3",
        "3 d 6 + 2", "1d6 - 1d4 - 2",
    ],
)  # fmt: skip
def test_what_players_write_is_read_by_hand_as_lark_reads_it(text: str) -> None:
    fast = parse_simple(text)
    assert fast is not None, text
    assert fast == _lark(text)
    assert parse(text) == fast


@pytest.mark.parametrize("text", ["2*(1d6+1)", "-1d6", "[a] 1d6 # b", "4d6kh3kh2", "1d6f", "3d6+*2", "1d6\u00a0+2"])
def test_the_rest_goes_to_lark(text: str) -> None:
    assert parse_simple(text) is None
