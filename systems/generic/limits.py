"""Caps on dice notation, and the static check that enforces them before a single die is rolled.

Everything a player types is untrusted. A notation is refused in three cheap steps, all before rolling:
the raw length (before parsing), the parse itself, and a static walk of the AST here (dice count,
sides, keep/drop counts, explosions that could never stop).
"""

from __future__ import annotations

import re

from systems.errors import RulesError
from systems.generic.ast import BinaryOp, Compare, Constant, Dice, Negate, Node, Notation

MAX_EXPRESSION_LENGTH = 200
"""Characters in the whole text, labels included (checked before parsing)."""

MAX_PARTS = 10
"""Comma-separated parts in one notation (``1d20+5, 1d8+3``)."""

MAX_DICE = 100
"""Dice rolled up front by the whole notation (the sum of every ``N`` in ``NdM``)."""

MAX_SIDES = 1000
"""Faces of a single die."""

MAX_CONSTANT = 1_000_000
"""Largest integer constant, dice count or comparison value written in the notation."""

MAX_DEPTH = 16
"""Nesting of parentheses and operators: bounds the recursion of every later pass."""

MAX_TOKENS = 48
"""Tokens (numbers, letters, operators, labels) in the whole text, counted with one regular expression
before parsing. Parsing costs several microseconds per token, so this bounds the time of any refusal
that needs a full parse (target: under 1 ms). Real rolls are far below it: ``[ataque] 1d20+7, [daño]
2d6+3`` is 13 tokens; six ``4d6kh3`` parts for characteristics are 35."""

MAX_EXPLOSION_DEPTH = 20
"""Extra dice one die may chain by exploding (``1d2!`` stops after 20 explosions)."""

MAX_REROLL_DEPTH = 20
"""Rerolls one die may chain with ``rr`` (reroll while the condition holds)."""

MAX_EXTRA_DICE = 100
"""Extra dice (explosions plus rerolls) in one whole notation; past it the roll stops adding dice."""


def check_length(text: str) -> None:
    """Refuse empty or too long text; runs before any parsing so a huge paste costs nothing."""
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise RulesError(
            "notation_too_long",
            f"La notación es demasiado larga ({len(text)} caracteres; máximo {MAX_EXPRESSION_LENGTH}).",
            f"The notation is too long ({len(text)} characters; at most {MAX_EXPRESSION_LENGTH}).",
            length=len(text),
            limit=MAX_EXPRESSION_LENGTH,
        )
    if not text.strip():
        raise RulesError(
            "notation_empty",
            "Escribe una notación de dados, por ejemplo 3d6+2.",
            "Write a dice notation, for example 3d6+2.",
        )


# One token per label, number, run of letters, two-character comparison, or other visible character.
# It approximates the grammar's tokens (``dF`` counts as one) and only needs to be cheap and monotone.
_TOKEN = re.compile(r"\[[^\[\]\r\n]*\]|#[^,\[\]\r\n]*|[0-9]+|[A-Za-z]+|[<>]=|\S")


def check_tokens(text: str) -> None:
    """Refuse text with too many tokens, parts or nested parentheses, before the parser sees it.

    Parentheses leave no node in the AST, so their nesting is measured here, on the tokens (which
    also keeps parentheses inside labels out of the count).
    """
    tokens = _TOKEN.findall(text)
    if len(tokens) > MAX_TOKENS:
        raise RulesError(
            "notation_too_complex",
            f"La notación tiene demasiados elementos ({len(tokens)}; máximo {MAX_TOKENS}).",
            f"The notation has too many elements ({len(tokens)}; at most {MAX_TOKENS}).",
            tokens=len(tokens),
            limit=MAX_TOKENS,
        )
    parts = tokens.count(",") + 1  # labels are single tokens, so their commas do not count
    if parts > MAX_PARTS:
        raise _too_many_parts(parts)
    if tokens.count("(") > MAX_DEPTH:
        depth = 0
        for token in tokens:
            if token == "(":
                depth += 1
                if depth > MAX_DEPTH:
                    raise _too_deep()
            elif token == ")":
                depth -= 1


def _too_many_parts(parts: int) -> RulesError:
    return RulesError(
        "too_many_parts",
        f"Demasiadas tiradas separadas por comas ({parts}; máximo {MAX_PARTS}).",
        f"Too many comma-separated rolls ({parts}; at most {MAX_PARTS}).",
        parts=parts,
        limit=MAX_PARTS,
    )


def _too_deep() -> RulesError:
    return RulesError(
        "notation_too_deep",
        f"La notación anida demasiados paréntesis u operadores (máximo {MAX_DEPTH} niveles).",
        f"The notation nests too many parentheses or operators (at most {MAX_DEPTH} levels).",
        limit=MAX_DEPTH,
    )


def check_notation(notation: Notation) -> None:
    """Refuse a parsed notation that breaks a cap or could never finish rolling."""
    if len(notation.parts) > MAX_PARTS:
        raise _too_many_parts(len(notation.parts))
    total_dice = 0
    # Iterative walk (explicit stack): a deep expression must give a RulesError, not a RecursionError.
    stack: list[tuple[Node, int]] = [(part.expression, 1) for part in notation.parts]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _too_deep()
        if isinstance(node, BinaryOp):
            stack.append((node.left, depth + 1))
            stack.append((node.right, depth + 1))
        elif isinstance(node, Negate):
            stack.append((node.operand, depth + 1))
        elif isinstance(node, Constant):
            _check_number(node.value)
        elif isinstance(node, Dice):
            total_dice += node.count
            # Checked as we go so that ``99999999d6`` is refused at its own term.
            if total_dice > MAX_DICE:
                raise RulesError(
                    "too_many_dice",
                    f"Demasiados dados en la tirada (máximo {MAX_DICE}).",
                    f"Too many dice in the roll (at most {MAX_DICE}).",
                    limit=MAX_DICE,
                )
            _check_dice(node)


def _check_number(value: int) -> None:
    if value > MAX_CONSTANT:
        raise RulesError(
            "number_too_large",
            f"El número {_short(value)} es demasiado grande (máximo {MAX_CONSTANT}).",
            f"The number {_short(value)} is too large (at most {MAX_CONSTANT}).",
            limit=MAX_CONSTANT,
        )


def _short(value: int) -> str:
    text = str(value)
    return text if len(text) <= 12 else text[:9] + "…"


def _check_dice(dice: Dice) -> None:
    if dice.count < 1:
        raise RulesError(
            "invalid_dice_count",
            "Hay que tirar al menos un dado.",
            "Roll at least one die.",
        )
    if dice.sides != "F":
        if dice.sides > MAX_SIDES:
            raise RulesError(
                "too_many_sides",
                f"Un dado no puede tener más de {MAX_SIDES} caras.",
                f"A die cannot have more than {MAX_SIDES} sides.",
                limit=MAX_SIDES,
            )
        if dice.sides < 1:
            raise RulesError(
                "invalid_sides",
                "Un dado necesita al menos una cara.",
                "A die needs at least one side.",
            )
    for compare in (dice.reroll, dice.explode, dice.success, dice.failure):
        if compare is not None:
            _check_number(compare.value)
    low, high = dice.face_range
    if dice.explode is not None and _always(dice.explode, low, high):
        raise RulesError(
            "explosion_always",
            f"{dice.canonical_dice()} explotaría en cada tirada y no acabaría nunca.",
            f"{dice.canonical_dice()} would explode on every face and never stop.",
        )
    if dice.reroll is not None and dice.reroll_repeat and _always(dice.reroll, low, high):
        raise RulesError(
            "reroll_always",
            f"{dice.canonical_dice()} repetiría el dado en cada cara y no acabaría nunca.",
            f"{dice.canonical_dice()} would reroll on every face and never stop.",
        )
    if dice.select is not None:
        n = dice.select.count
        if dice.select.keep and not 1 <= n <= dice.count:
            raise RulesError(
                "invalid_keep",
                f"No se pueden conservar {n} de {dice.count} dados.",
                f"Cannot keep {n} of {dice.count} dice.",
            )
        if not dice.select.keep and not 0 <= n < dice.count:
            raise RulesError(
                "invalid_drop",
                f"No se pueden descartar {n} de {dice.count} dados: debe quedar al menos uno.",
                f"Cannot drop {n} of {dice.count} dice: at least one must remain.",
            )
    if dice.failure is not None and dice.success is None:
        raise RulesError(
            "failure_without_success",
            "Para contar fallos (f) indica también qué es un éxito, por ejemplo 6d10>=7f1.",
            "To count failures (f), also say what a success is, for example 6d10>=7f1.",
        )


def _always(compare: Compare, low: int, high: int) -> bool:
    """True when ``compare`` holds for every face ``low..high`` (a chain that could never stop).

    Every comparison matches an interval of faces, so checking both ends is enough (O(1) for a d1000).
    """
    return compare.matches(low) and compare.matches(high)
