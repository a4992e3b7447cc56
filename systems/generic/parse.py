"""Text to AST: a length check, a cached parse (a hand-written reader for the common forms, lark's LALR
parser for the rest and for every error), and the static caps check.

``parse`` is what callers use. It refuses over-long text before touching the parser, then looks the
text up in an LRU cache of already parsed and checked notations (forum players repeat the same few
rolls all day). Refusals are never cached, but each one costs a fraction of a millisecond.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from systems.errors import RulesError
from systems.generic.ast import BinaryOp, Compare, Constant, Dice, Negate, Node, Notation, Part, Select
from systems.generic.fastparse import dice_node, parse_simple
from systems.generic.grammar import GRAMMAR
from systems.generic.limits import check_length, check_notation, check_tokens

PARSE_CACHE_SIZE = 1024

_MODIFIER_NAMES_ES = {
    "reroll": "repetir (r/rr)",
    "explode": "explosión (!)",
    "select": "conservar/descartar (k/d)",
    "success": "éxitos (>, >=, <, <=, =)",
    "failure": "fallos (f)",
}
_MODIFIER_NAMES_EN = {
    "reroll": "reroll (r/rr)",
    "explode": "explode (!)",
    "select": "keep/drop (k/d)",
    "success": "successes (>, >=, <, <=, =)",
    "failure": "failures (f)",
}


def parse(text: str) -> Notation:
    """Parse and check ``text``; raise RulesError (``notation_*``, ``too_many_*``...) if refused."""
    check_length(text)
    return _parse_checked(text)


def clear_parse_cache() -> None:
    """Empty the LRU cache (benchmarks time the uncached path with it)."""
    _parse_checked.cache_clear()


def parse_cache_info() -> Any:
    return _parse_checked.cache_info()


@lru_cache(maxsize=PARSE_CACHE_SIZE)
def _parse_checked(text: str) -> Notation:
    check_tokens(text)
    # What players write, read by hand (tens of microseconds); anything else, and every error, by lark.
    notation = parse_simple(text)
    if notation is None:
        notation = _parse_lark(text)
    check_notation(notation)
    return notation


def _parse_lark(text: str) -> Notation:
    try:
        # The transformer runs inside the parser: what comes back is the Notation, not a tree.
        notation: Notation = _parser().parse(text)  # type: ignore[assignment]
    except UnexpectedInput as exc:
        raise _syntax_error(text, exc) from None
    return notation


@cache
def _parser() -> Lark:
    # Built on first use, not at import: building the LALR tables takes a few tens of milliseconds.
    # The transformer runs inside the parser, so no intermediate parse tree is built.
    return Lark(GRAMMAR, parser="lalr", transformer=_AstBuilder(), maybe_placeholders=False)


def _syntax_error(text: str, exc: UnexpectedInput) -> RulesError:
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        column = len(text) + 1
        return RulesError(
            "notation_syntax",
            f"La notación está incompleta: falta algo al final (columna {column}).",
            f"The notation is incomplete: something is missing at the end (column {column}).",
            column=column,
        )
    column = exc.column if isinstance(exc.column, int) and exc.column > 0 else 1
    if isinstance(exc, UnexpectedCharacters):
        found = exc.char
    elif isinstance(exc, UnexpectedToken):
        found = str(exc.token)
    else:  # pragma: no cover - lark raises only the kinds above for LALR
        found = text[column - 1 : column]
    return RulesError(
        "notation_syntax",
        f"Notación de dados no válida en la columna {column}: no se esperaba «{found}».",
        f"Invalid dice notation at column {column}: unexpected '{found}'.",
        column=column,
        found=found,
    )


class _AstBuilder(Transformer):
    """Builds the immutable AST while parsing. Modifiers arrive as ``(kind, value)`` pairs."""

    def start(self, parts: list[Part]) -> Notation:
        return Notation(tuple(parts))

    def part(self, children: list[Any]) -> Part:
        labels = [_label(child) for child in children if isinstance(child, Token)]
        expression = next(child for child in children if not isinstance(child, Token))
        if len(labels) > 1:
            raise RulesError(
                "duplicate_label",
                "Usa una sola etiqueta por tirada: [etiqueta] 1d20 o 1d20 # etiqueta.",
                "Use one label per roll: [label] 1d20 or 1d20 # label.",
            )
        return Part(expression, labels[0] if labels else None)

    def add(self, children: list[Node]) -> BinaryOp:
        return BinaryOp("+", children[0], children[1])

    def sub(self, children: list[Node]) -> BinaryOp:
        return BinaryOp("-", children[0], children[1])

    def mul(self, children: list[Node]) -> BinaryOp:
        return BinaryOp("*", children[0], children[1])

    def neg(self, children: list[Node]) -> Negate:
        return Negate(children[0])

    def constant(self, children: list[Token]) -> Constant:
        return Constant(int(children[0]))

    def numeric_sides(self, children: list[Token]) -> int:
        return int(children[0])

    def fudge_sides(self, children: list[Token]) -> str:
        return "F"

    def percentile_sides(self, children: list[Token]) -> int:
        return 100

    def compare(self, children: list[Token]) -> Compare:
        if len(children) == 1:
            return Compare("=", int(children[0]))
        return Compare(str(children[0]), int(children[1]))  # type: ignore[arg-type]

    def explode(self, children: list[Compare]) -> tuple[str, Compare | None]:
        return ("explode", children[0] if children else None)

    def reroll_once(self, children: list[Any]) -> tuple[str, tuple[bool, Compare | None]]:
        return ("reroll", (False, children[1] if len(children) > 1 else None))

    def reroll_repeat(self, children: list[Any]) -> tuple[str, tuple[bool, Compare | None]]:
        return ("reroll", (True, children[1] if len(children) > 1 else None))

    def keep_high(self, children: list[Token]) -> tuple[str, Select]:
        return ("select", Select(True, True, _count(children)))

    def keep_low(self, children: list[Token]) -> tuple[str, Select]:
        return ("select", Select(True, False, _count(children)))

    def drop_high(self, children: list[Token]) -> tuple[str, Select]:
        return ("select", Select(False, True, _count(children)))

    def drop_low(self, children: list[Token]) -> tuple[str, Select]:
        return ("select", Select(False, False, _count(children)))

    def success(self, children: list[Token]) -> tuple[str, Compare]:
        return ("success", Compare(str(children[0]), int(children[1])))  # type: ignore[arg-type]

    def failure(self, children: list[Any]) -> tuple[str, Compare]:
        return ("failure", children[1])

    def dice(self, children: list[Any]) -> Dice:
        # [INT?] D sides modifier*
        if isinstance(children[0], Token) and children[0].type == "INT":
            count = int(children[0])
            rest = children[2:]
        else:
            count = 1  # ``d20`` is one die
            rest = children[1:]
        sides = rest[0]
        modifiers: dict[str, Any] = {}
        for kind, value in rest[1:]:
            if kind in modifiers:
                raise RulesError(
                    "duplicate_modifier",
                    f"El modificador {_MODIFIER_NAMES_ES[kind]} aparece dos veces en el mismo dado.",
                    f"The {_MODIFIER_NAMES_EN[kind]} modifier appears twice on the same dice.",
                    modifier=kind,
                )
            modifiers[kind] = value
        return dice_node(count, sides, modifiers)


def _count(children: list[Token]) -> int:
    """The number after ``k``/``kh``/``dl``...; when omitted it is 1 (``4d6k`` keeps one)."""
    return int(children[1]) if len(children) > 1 else 1


def _label(token: Token) -> str | None:
    text = token.value[1:-1] if token.type == "BRACKET_LABEL" else token.value[1:]
    text = " ".join(text.split())  # labels keep their case and accents; whitespace is collapsed
    return text or None
