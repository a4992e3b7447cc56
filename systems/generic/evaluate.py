"""Rolling a parsed notation with an injected DiceSource into an immutable, verifiable result.

The result keeps every die that hit the table: rolled, rerolled away, added by an explosion, dropped by
keep/drop, counted as a success or failure. A UI can draw each one, and :meth:`RollResult.verify`
recomputes every total from those faces and the AST, so anyone can check the server's arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from systems.dice import DiceSource
from systems.errors import RulesError
from systems.generic.ast import BinaryOp, Constant, Dice, Negate, Node, Notation, Part, render
from systems.generic.limits import MAX_EXPLOSION_DEPTH, MAX_EXTRA_DICE, MAX_REROLL_DEPTH
from systems.generic.parse import parse


class DieOrigin(StrEnum):
    ROLLED = "rolled"  # one of the N dice of NdM
    EXPLOSION = "explosion"  # added because the previous die exploded
    REROLL = "reroll"  # replaced the previous die, which was rerolled away


@dataclass(frozen=True, slots=True)
class Die:
    """One die on the table. Only dice with ``counts`` add to the total (or to the successes)."""

    face: int
    origin: DieOrigin = DieOrigin.ROLLED
    rerolled: bool = False  # replaced by a reroll: drawn struck through, never counts
    exploded: bool = False  # its face triggered one more die
    dropped: bool = False  # left out by keep/drop
    success: bool = False
    failure: bool = False

    @property
    def counts(self) -> bool:
        return not (self.rerolled or self.dropped)

    def text(self) -> str:
        """Plain-text face: ``~2~`` rerolled, ``(1)`` dropped, ``6!`` exploded, ``8*`` success, ``1_`` failure."""
        face = str(self.face)
        if self.exploded:
            face += "!"
        if self.success:
            face += "*"
        if self.failure:
            face += "_"
        if self.rerolled:
            return f"~{face}~"
        if self.dropped:
            return f"({face})"
        return face


@dataclass(frozen=True, slots=True)
class DiceRoll:
    """The outcome of one ``NdM`` term: its dice in rolling order and its value in the expression."""

    term: Dice
    dice: tuple[Die, ...]
    value: int  # sum of the counted faces, or successes minus failures when counting successes
    capped: bool = False  # an explosion/reroll chain stopped at a cap (see limits)

    def text(self) -> str:
        """``4d6kh3[6, 4, 3, (1)]``: the term and every die."""
        return f"{self.term.canonical()}[{', '.join(_die_text(die, self.term) for die in self.dice)}]"

    def recompute(self) -> int:
        """The value again, from the faces and the term's rules (not from the success flags)."""
        counted = [die.face for die in self.dice if die.counts]
        success, failure = self.term.success, self.term.failure
        if success is not None:
            failures = sum(map(failure.matches, counted)) if failure is not None else 0
            return sum(map(success.matches, counted)) - failures
        return sum(counted)

    def consistent(self) -> bool:
        """Every flag agrees with the faces and the term: what was rerolled, exploded, dropped, counted."""
        term = self.term
        for die in self.dice:
            if die.rerolled and (term.reroll is None or not term.reroll.matches(die.face)):
                return False
            if die.exploded and (term.explode is None or not term.explode.matches(die.face)):
                return False
            expected_success = die.counts and term.success is not None and term.success.matches(die.face)
            expected_failure = die.counts and term.failure is not None and term.failure.matches(die.face)
            if die.success != expected_success or die.failure != expected_failure:
                return False
        live = [i for i, die in enumerate(self.dice) if not die.rerolled]
        dropped = {i for i in live if self.dice[i].dropped}
        return dropped == _dropped([die.face for die in self.dice], live, term)


@dataclass(frozen=True, slots=True)
class PartResult:
    """One comma-separated part: its label, canonical text, total and the dice behind it."""

    part: Part
    total: int
    rolls: tuple[DiceRoll, ...]  # in left-to-right order of the terms in the expression

    @property
    def label(self) -> str | None:
        return self.part.label

    @property
    def canonical(self) -> str:
        return self.part.canonical()

    def text(self) -> str:
        """``[ataque] 1d20[14]+5 = 19``: the expression with every die shown, and the total."""
        rolls = iter(self.rolls)
        body = render(self.part.expression, lambda _dice: next(rolls).text())
        prefix = f"[{self.label}] " if self.label else ""
        return f"{prefix}{body} = {self.total}"


@dataclass(frozen=True, slots=True)
class RollResult:
    """A whole rolled notation. ``totals`` has one entry per part; ``total`` is set for a single part."""

    expression: str  # exactly as written
    notation: Notation
    parts: tuple[PartResult, ...]
    label: str | None = None  # the roll's own label (e.g. from the request), besides the parts' labels

    @property
    def canonical(self) -> str:
        return self.notation.canonical()

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(part.total for part in self.parts)

    @property
    def total(self) -> int | None:
        return self.parts[0].total if len(self.parts) == 1 else None

    @property
    def capped(self) -> bool:
        return any(roll.capped for part in self.parts for roll in part.rolls)

    @property
    def dice_count(self) -> int:
        return sum(len(roll.dice) for part in self.parts for roll in part.rolls)

    def text(self) -> str:
        return ", ".join(part.text() for part in self.parts)

    def verify(self) -> bool:
        """Recompute every term value and part total from the dice faces and flags."""
        for part in self.parts:
            values = [roll.recompute() for roll in part.rolls]
            if values != [roll.value for roll in part.rolls]:
                return False
            if not all(roll.consistent() for roll in part.rolls):
                return False
            if _fold(part.part.expression, _in_order(values)) != part.total:
                return False
        return True


# Dice are immutable values, so equal dice can be one shared object: interning them skips the cost of
# building a frozen dataclass per die (the bulk of a roll's time otherwise). Bounded: faces are
# capped at limits.MAX_SIDES and there are few flag combinations.
_die = lru_cache(maxsize=8192)(Die)


def roll_notation(expression: str, dice: DiceSource, label: str | None = None) -> RollResult:
    """Parse (cached), check and roll ``expression`` with ``dice``."""
    notation = parse(expression)
    return roll_parsed(notation, dice, expression=expression, label=label)


def roll_parsed(
    notation: Notation, dice: DiceSource, expression: str | None = None, label: str | None = None
) -> RollResult:
    """Roll an already parsed and checked notation."""
    budget = _Budget()
    rolls: list[DiceRoll] = []

    def roll_term(term: Dice) -> int:
        result = _roll_dice(term, dice, budget)
        rolls.append(result)
        return result.value

    parts = []
    for part in notation.parts:
        total = _fold(part.expression, roll_term)
        parts.append(PartResult(part, total, tuple(rolls)))
        rolls.clear()
    return RollResult(expression if expression is not None else notation.canonical(), notation, tuple(parts), label)


def _in_order(values: list[int]) -> Callable[[Dice], int]:
    """A dice_value callback for _fold that hands out already known term values left to right."""
    remaining = iter(values)
    return lambda _dice: next(remaining)


class _Budget:
    """Extra dice (explosions and rerolls) left for this whole roll: one per evaluation, never shared."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_EXTRA_DICE

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        return True


def _fold(node: Node, dice_value: Callable[[Dice], int]) -> int:
    """Evaluate ``node`` left to right; ``dice_value`` supplies each dice term's value.

    Recursive, but the static check caps the depth (limits.MAX_DEPTH), far below Python's limit.
    """
    kind = type(node)
    if kind is Dice:
        return dice_value(node)  # type: ignore[arg-type]
    if kind is Constant:
        return node.value  # type: ignore[union-attr]
    if kind is BinaryOp:
        left = _fold(node.left, dice_value)  # type: ignore[union-attr]
        right = _fold(node.right, dice_value)  # type: ignore[union-attr]
        op = node.op  # type: ignore[union-attr]
        return left + right if op == "+" else left - right if op == "-" else left * right
    if kind is Negate:
        return -_fold(node.operand, dice_value)  # type: ignore[union-attr]
    raise RulesError(  # pragma: no cover - the parser builds only the nodes above
        "notation_syntax", "Notación de dados no válida.", "Invalid dice notation."
    )


def _roll_dice(term: Dice, source: DiceSource, budget: _Budget) -> DiceRoll:
    fudge = term.sides == "F"
    sides = 3 if fudge else term.sides
    offset = -2 if fudge else 0  # a Fudge die is a d3 read as -1, 0, +1
    roll = source.roll
    reroll, explode = term.reroll, term.explode

    if reroll is None and explode is None:
        # Fast path, by far the most common: every die is rolled once and stays.
        if term.count == 1 and term.select is None and term.success is None:
            face = roll(sides) + offset  # type: ignore[arg-type]
            return DiceRoll(term, (_die(face),), face)
        if offset:
            faces = [roll(sides) + offset for _ in range(term.count)]  # type: ignore[arg-type]
        else:
            faces = [roll(sides) for _ in range(term.count)]  # type: ignore[arg-type]
        if term.select is None and term.success is None:
            return DiceRoll(term, tuple(map(_die, faces)), sum(faces))
        return _finish(term, faces, None, None, None, False)

    faces = []
    origins: list[DieOrigin] = []
    rerolled_at: set[int] = set()
    exploded_at: set[int] = set()
    capped = False
    for _ in range(term.count):
        origin = DieOrigin.ROLLED
        explosions = 0
        while True:
            face = roll(sides) + offset  # type: ignore[arg-type]
            if reroll is not None:
                rerolls = 0
                while reroll.matches(face) and (rerolls == 0 or term.reroll_repeat):
                    if rerolls >= MAX_REROLL_DEPTH or not budget.take():
                        capped = True
                        break
                    rerolled_at.add(len(faces))
                    faces.append(face)
                    origins.append(origin)
                    face = roll(sides) + offset  # type: ignore[arg-type]
                    origin = DieOrigin.REROLL
                    rerolls += 1
            faces.append(face)
            origins.append(origin)
            if explode is None or not explode.matches(face):
                break
            if explosions >= MAX_EXPLOSION_DEPTH or not budget.take():
                capped = True
                break
            exploded_at.add(len(faces) - 1)
            origin = DieOrigin.EXPLOSION
            explosions += 1
    return _finish(term, faces, origins, rerolled_at, exploded_at, capped)


def _finish(
    term: Dice,
    faces: list[int],
    origins: list[DieOrigin] | None,
    rerolled_at: set[int] | None,
    exploded_at: set[int] | None,
    capped: bool,
) -> DiceRoll:
    """Apply keep/drop and success counting, then freeze every die."""
    select = term.select
    dropped: set[int] = set()
    if select is not None:
        live = range(len(faces)) if not rerolled_at else [i for i in range(len(faces)) if i not in rerolled_at]
        dropped = _dropped(faces, live, term)

    success, failure = term.success, term.failure
    if origins is None and select is None and success is None:
        dice = tuple(map(_die, faces))
        return DiceRoll(term, dice, sum(faces), capped)

    built = []
    value = 0
    for i, face in enumerate(faces):
        is_rerolled = rerolled_at is not None and i in rerolled_at
        is_dropped = i in dropped
        counts = not (is_rerolled or is_dropped)
        is_success = counts and success is not None and success.matches(face)
        is_failure = counts and failure is not None and failure.matches(face)
        if counts:
            value += (is_success - is_failure) if success is not None else face
        built.append(
            _die(
                face,
                origins[i] if origins is not None else DieOrigin.ROLLED,
                is_rerolled,
                exploded_at is not None and i in exploded_at,
                is_dropped,
                is_success,
                is_failure,
            )
        )
    return DiceRoll(term, tuple(built), value, capped)


def _dropped(faces: list[int], live: Sequence[int], term: Dice) -> set[int]:
    """Indexes (among ``live``, the dice not rerolled away) that keep/drop leaves out."""
    select = term.select
    if select is None:
        return set()
    # Highest first; on equal faces the earlier die ranks first, so the choice is reproducible.
    sign = -1 if select.highest else 1
    ranked = sorted(live, key=lambda i: (sign * faces[i], i))
    chosen = ranked[: select.count]
    if select.keep:
        kept = set(chosen)
        return {i for i in live if i not in kept}
    return set(chosen)


def _die_text(die: Die, term: Dice) -> str:
    text = die.text()
    if term.sides == "F" and die.face > 0:
        # Fudge faces read +1 / 0 / -1, as on the physical dice.
        return text.replace(str(die.face), f"+{die.face}", 1)
    return text
