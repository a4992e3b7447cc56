"""Benchmark cases for the ``generic`` ruleset (dice notation).

``CASES`` is the format every module in ``bench/rolls/`` shares: ``(name, dice_per_call, call)`` where
``call(dice)`` resolves one roll with the given DiceSource, exactly as the server would (request
already validated). ``dice_per_call`` is the nominal number of dice, used for the SystemRandom floor.

The extras below are generic-only: the notation rows timed with a cached and an uncached parse, and
the abusive notations whose refusal time the runner reports.
"""

from __future__ import annotations

from collections.abc import Callable

from systems.dice import DiceSource
from systems.errors import RulesError
from systems.generic import RULESET, NotationRequest, clear_parse_cache, roll_notation


def _resolver(expression: str) -> Callable[[DiceSource], object]:
    request = NotationRequest(expression=expression)
    resolve = RULESET.resolve
    assert resolve is not None

    def call(dice: DiceSource) -> object:
        return resolve("notation", request, dice)

    return call


NOTATIONS: tuple[tuple[str, int], ...] = (
    ("3d6+2", 3),
    ("1d20+5 # ataque", 1),
    ("4dF+2", 4),
    ("4d6kh3", 4),
    ("2d20kl1", 2),
    ("3d6!", 3),  # nominal: explosions add 0.6 dice per call on average
    ("4d6r1", 4),
    ("6d10>=7f1", 6),
    ("10d6", 10),
    ("[ataque] 1d20+7, [daño] 2d6+3", 3),
)

CASES: tuple[tuple[str, int, Callable[[DiceSource], object]], ...] = tuple(
    (f"generic {expression}", dice, _resolver(expression)) for expression, dice in NOTATIONS
)


def cached_call(expression: str) -> Callable[[DiceSource], object]:
    def call(dice: DiceSource) -> object:
        return roll_notation(expression, dice)

    return call


def uncached_call(expression: str) -> Callable[[DiceSource], object]:
    def call(dice: DiceSource) -> object:
        clear_parse_cache()
        return roll_notation(expression, dice)

    return call


ABUSIVE: tuple[tuple[str, str], ...] = (
    ("99999999d6", "99999999d6"),
    ("1d99999999", "1d99999999"),
    ("10k chars (1+1+...)", "1+" * 5000 + "1"),
    ("99 nested parentheses", "(" * 99 + "1" + ")" * 99),
    ("17 nested parentheses", "(" * 17 + "1d6" + ")" * 17),
    ("150 unary minus", "-" * 150 + "1"),
    ("17 unary minus", "-" * 17 + "1d6"),
    ("11 parts of 1d6", ",".join(["1d6"] * 11)),
    ("64 tokens", "+".join(["1"] * 32)),
    ("12 x 9d6 (47 tokens, 108 dice)", "+".join(["9d6"] * 12)),
    ("1d1! (always explodes)", "1d1!"),
    ("1d6!>0 (always explodes)", "1d6!>0"),
    ("1d6rr<7 (always rerolls)", "1d6rr<7"),
    ("60d6+60d6", "60d6+60d6"),
    ("4d6kh5", "4d6kh5"),
    ("syntax: 3d6+*2", "3d6+*2"),
)


def refusal_code(text: str, dice: DiceSource) -> str | None:
    """The RulesError code ``text`` is refused with, or None if it was rolled."""
    try:
        roll_notation(text, dice)
    except RulesError as exc:
        return exc.code
    return None
