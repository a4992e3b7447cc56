"""The immutable syntax tree of a dice notation, and its canonical text.

Parsing ``4D6 KH3 + 2`` or ``4d6k3+2`` gives the same tree, and ``canonical()`` renders it back in
one normal form (``4d6kh3+2``) that re-parses to an equal tree. Modifiers live in named fields, not in
a list, so their written order does not matter and each kind appears at most once.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

CompareOp = Literal[">", ">=", "<", "<=", "="]
BinaryOperator = Literal["+", "-", "*"]
Sides = int | Literal["F"]

_COMPARE: dict[str, Callable[[int, int], bool]] = {
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
    "=": operator.eq,
}

# Binding strength of each operator, for minimal parentheses in the canonical text.
_PRECEDENCE = {"+": 1, "-": 1, "*": 2}
_ATOM = 4


@dataclass(frozen=True, slots=True)
class Compare:
    """A condition on one die's face: ``>=7``, ``<2``, ``=1``."""

    op: CompareOp
    value: int

    def matches(self, face: int) -> bool:
        return _COMPARE[self.op](face, self.value)

    def canonical(self, bare_equals: bool = True) -> str:
        # ``r1`` and ``!10`` read better than ``r=1``; a success count always shows its operator.
        if self.op == "=" and bare_equals:
            return str(self.value)
        return f"{self.op}{self.value}"


@dataclass(frozen=True, slots=True)
class Select:
    """Keep or drop the ``count`` highest or lowest dice (``kh3``, ``kl1``, ``dl1``, ``dh1``)."""

    keep: bool
    highest: bool
    count: int

    def canonical(self) -> str:
        return ("k" if self.keep else "d") + ("h" if self.highest else "l") + str(self.count)


@dataclass(frozen=True, slots=True)
class Constant:
    value: int

    def canonical(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class Negate:
    operand: Node

    def canonical(self) -> str:
        return render(self)


@dataclass(frozen=True, slots=True)
class BinaryOp:
    op: BinaryOperator
    left: Node
    right: Node

    def canonical(self) -> str:
        return render(self)


@dataclass(frozen=True, slots=True)
class Dice:
    """``NdM`` or ``NdF`` with its modifiers, applied in a fixed order whatever order they were
    written in: reroll, explode, keep/drop, then count successes and failures."""

    count: int
    sides: Sides
    reroll: Compare | None = None
    reroll_repeat: bool = False  # ``rr``: reroll while the condition holds; ``r``: once
    explode: Compare | None = None
    select: Select | None = None
    success: Compare | None = None
    failure: Compare | None = None

    @property
    def fudge(self) -> bool:
        return self.sides == "F"

    @property
    def face_range(self) -> tuple[int, int]:
        """Lowest and highest face: Fudge dice show -1, 0 or +1."""
        return (-1, 1) if self.sides == "F" else (1, self.sides)

    def canonical_dice(self) -> str:
        """Just ``NdM`` (or ``NdF``), for error messages."""
        return f"{self.count}d{self.sides}"

    def canonical(self) -> str:
        text = [f"{self.count}d{self.sides}"]
        if self.reroll is not None:
            text.append(("rr" if self.reroll_repeat else "r") + self.reroll.canonical())
        if self.explode is not None:
            # Bare ``!`` means "on the highest face", unless a success condition follows right away:
            # ``3d6!>4`` would read as "explode above 4", so write ``3d6!6>4``.
            if self._explodes_on_max() and (self.select is not None or self.success is None):
                text.append("!")
            else:
                text.append("!" + self.explode.canonical())
        if self.select is not None:
            text.append(self.select.canonical())
        if self.success is not None:
            text.append(self.success.canonical(bare_equals=False))
        if self.failure is not None:
            text.append("f" + self.failure.canonical())
        return "".join(text)

    def _explodes_on_max(self) -> bool:
        return self.explode == Compare("=", self.face_range[1])


Node = Constant | Negate | BinaryOp | Dice


@dataclass(frozen=True, slots=True)
class Part:
    """One comma-separated roll, with an optional label (``[ataque] 1d20+5``)."""

    expression: Node
    label: str | None = None

    def canonical(self) -> str:
        body = self.expression.canonical()
        return f"[{self.label}] {body}" if self.label else body


@dataclass(frozen=True, slots=True)
class Notation:
    """A whole notation: one or more parts (``1d20+5 # ataque, 1d8+3 # daño``)."""

    parts: tuple[Part, ...]

    def canonical(self) -> str:
        return ", ".join(part.canonical() for part in self.parts)


def render(node: Node, dice_text: Callable[[Dice], str] | None = None) -> str:
    """Canonical text of ``node`` with the fewest parentheses that keep the same tree.

    ``dice_text`` replaces each dice term's text (results use it to show the faces in place).
    Recursive, but parsed trees are capped at limits.MAX_DEPTH levels.
    """
    if isinstance(node, Dice):
        return dice_text(node) if dice_text is not None else node.canonical()
    if isinstance(node, Constant):
        return str(node.value)
    if isinstance(node, Negate):
        inner = render(node.operand, dice_text)
        return f"-({inner})" if _precedence(node.operand) < _ATOM else f"-{inner}"
    mine = _PRECEDENCE[node.op]
    left = render(node.left, dice_text)
    right = render(node.right, dice_text)
    # Left-associative: the left side needs parentheses only when it binds more loosely, the
    # right side also when it binds equally (``2-(3-1)``, ``2*(3*4)`` keep their tree).
    if _precedence(node.left) < mine:
        left = f"({left})"
    if _precedence(node.right) <= mine:
        right = f"({right})"
    return f"{left}{node.op}{right}"


def _precedence(node: Node) -> int:
    if isinstance(node, BinaryOp):
        return _PRECEDENCE[node.op]
    if isinstance(node, Negate):
        return 3
    return _ATOM
