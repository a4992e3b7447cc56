"""A hand-written parser for the notations players actually write, so an uncached parse is cheap.

It reads a strict subset of the grammar (``systems.generic.grammar``): comma-separated parts, each an
optional ``[label]``, dice and integers joined by ``+``/``-``, and an optional ``# label``; dice with any
of the grammar's modifiers. For anything else (``*``, parentheses, unary signs, two labels, a repeated
modifier, any syntax error) it answers None and the lark parser decides, with its error messages. On what
it accepts it builds exactly the AST lark builds (a property test holds the two parsers together), so
the choice of parser never changes a roll.

Tokens follow lark's lexer: whitespace anywhere between tokens is ignored, letters are case-insensitive,
``rr``/``kl``/``dh``/``dl`` win over their one-letter prefixes.
"""

from __future__ import annotations

import re
from typing import Any

from systems.generic.ast import BinaryOp, Compare, Constant, Dice, Node, Notation, Part, Select

_TOKEN = re.compile(
    r"""[ \t\r\n]*(?:
      (?P<int>[0-9]+)
    | (?P<cmp>>=|<=|>|<|=)
    | (?P<two>rr|kl|dh|dl|ro|kh)
    | (?P<one>[dfrk%!+\-,])
    | (?P<bracket>\[[^\[\]\r\n]*\])
    | (?P<hash>\#[^,\[\]\r\n]*)
    )""",
    re.VERBOSE | re.IGNORECASE,
)
_TRAILING_SPACE = re.compile(r"[ \t\r\n]*")


def _tokens(text: str) -> list[tuple[str, str]] | None:
    """(kind, text) pairs, kinds lower-cased letters or symbols; None at a character the subset lacks."""
    tokens: list[tuple[str, str]] = []
    position, end = 0, len(text)
    while True:
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            tail = _TRAILING_SPACE.match(text, position)
            return tokens if tail is not None and tail.end() == end else None
        kind = match.lastgroup or ""
        value = match.group(kind)
        if kind in ("two", "one"):
            kind = value.lower()
        tokens.append((kind, value))
        position = match.end()


class _Reader:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.index = 0

    def peek(self) -> str | None:
        return self.tokens[self.index][0] if self.index < len(self.tokens) else None

    def take(self) -> str:
        value = self.tokens[self.index][1]
        self.index += 1
        return value


class _Unsupported(Exception):
    """Outside the subset: lark decides."""


def parse_simple(text: str) -> Notation | None:
    """The notation's AST when ``text`` is in the subset, else None."""
    tokens = _tokens(text)
    if not tokens:
        return None
    reader = _Reader(tokens)
    try:
        parts = [_part(reader)]
        while reader.peek() == ",":
            reader.take()
            parts.append(_part(reader))
    except _Unsupported:
        return None
    if reader.peek() is not None:
        return None
    return Notation(tuple(parts))


def _label(token: str, bracket: bool) -> str | None:
    text = token[1:-1] if bracket else token[1:]
    text = " ".join(text.split())
    return text or None


def _part(reader: _Reader) -> Part:
    label: str | None = None
    bracketed = reader.peek() == "bracket"
    if bracketed:
        label = _label(reader.take(), True)
    expression = _term(reader)
    while reader.peek() in ("+", "-"):
        op = reader.take()
        expression = BinaryOp(op, expression, _term(reader))  # type: ignore[arg-type]
    if reader.peek() == "hash":
        if bracketed:
            raise _Unsupported  # two labels: lark's error
        label = _label(reader.take(), False)
    return Part(expression, label)


def _int(reader: _Reader) -> int:
    if reader.peek() != "int":
        raise _Unsupported
    return int(reader.take())


def _compare(reader: _Reader, *, required: bool) -> Compare | None:
    """``CMP? INT``; None when absent and not required."""
    kind = reader.peek()
    if kind == "cmp":
        op = reader.take()
        return Compare(op, _int(reader))  # type: ignore[arg-type]
    if kind == "int":
        return Compare("=", _int(reader))
    if required:
        raise _Unsupported
    return None


def _optional_int(reader: _Reader) -> int:
    return _int(reader) if reader.peek() == "int" else 1


def _term(reader: _Reader) -> Node:
    kind = reader.peek()
    count = 1
    if kind == "int":
        count = int(reader.take())
        if reader.peek() != "d":
            return Constant(count)
    elif kind != "d":
        raise _Unsupported
    reader.take()  # the d
    sides: int | str
    kind = reader.peek()
    if kind == "int":
        sides = int(reader.take())
    elif kind == "f":
        reader.take()
        sides = "F"
    elif kind == "%":
        reader.take()
        sides = 100
    else:
        raise _Unsupported
    modifiers: dict[str, Any] = {}
    while (kind := reader.peek()) in _MODIFIERS:
        name, value = _MODIFIERS[kind](reader)
        if name in modifiers:
            raise _Unsupported  # a repeated modifier: lark's error
        modifiers[name] = value
    return dice_node(count, sides, modifiers)


def _explode(reader: _Reader) -> tuple[str, Any]:
    reader.take()
    return "explode", _compare(reader, required=False)


def _reroll(repeat: bool) -> Any:
    def read(reader: _Reader) -> tuple[str, Any]:
        reader.take()
        return "reroll", (repeat, _compare(reader, required=False))

    return read


def _select(keep: bool, highest: bool) -> Any:
    def read(reader: _Reader) -> tuple[str, Any]:
        reader.take()
        return "select", Select(keep, highest, _optional_int(reader))

    return read


def _success(reader: _Reader) -> tuple[str, Any]:
    op = reader.take()
    return "success", Compare(op, _int(reader))  # type: ignore[arg-type]


def _failure(reader: _Reader) -> tuple[str, Any]:
    reader.take()
    return "failure", _compare(reader, required=True)


_MODIFIERS = {
    "!": _explode,
    "r": _reroll(False),
    "ro": _reroll(False),
    "rr": _reroll(True),
    "k": _select(True, True),
    "kh": _select(True, True),
    "kl": _select(True, False),
    "dh": _select(False, True),
    "dl": _select(False, False),
    "d": _select(False, False),
    "cmp": _success,
    "f": _failure,
}


def dice_node(count: int, sides: int | str, modifiers: dict[str, Any]) -> Dice:
    """The Dice node of ``count`` dice of ``sides`` with the parsed modifiers (bare ``!`` and ``r`` filled
    in): shared by both parsers, so they cannot disagree on the defaults."""
    low, high = (-1, 1) if sides == "F" else (1, sides)
    reroll_repeat, reroll = modifiers.get("reroll", (False, None))
    if "reroll" in modifiers and reroll is None:
        # Bare ``r`` rerolls the lowest face; Fudge's -1 is written ``<0`` (no negative numbers).
        reroll = Compare("<", 0) if sides == "F" else Compare("=", low)
    explode = modifiers.get("explode")
    if "explode" in modifiers and explode is None:
        explode = Compare("=", high)  # type: ignore[arg-type]  # bare ``!`` explodes on the highest face
    return Dice(
        count=count,
        sides=sides,  # type: ignore[arg-type]
        reroll=reroll,
        reroll_repeat=reroll_repeat,
        explode=explode,
        select=modifiers.get("select"),
        success=modifiers.get("success"),
        failure=modifiers.get("failure"),
    )
