"""Throwing a pool: die size, exploding dice with chain and cap, and the talent reroll (§3.9, §6.2, §6.3).

Dice are taken from the injected source in the spec's order: the initial dice left to right, then
explosions scanning left to right (including appended dice), then a talent reroll and its explosions.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat

from systems.dice import DiceSource
from systems.errors import RulesError
from systems.event.settings import EventSettings, ExplodeScope


@dataclass(frozen=True, slots=True)
class DiceRules:
    """What a throw needs to know, resolved once from the settings (kept out of the hot path)."""

    sides: int = 6
    explode: bool = False
    chain: bool = True
    max_extra: int = 100

    @classmethod
    def for_scope(cls, settings: EventSettings, scope: ExplodeScope) -> DiceRules:
        cache = settings.derived_cache
        rules = cache.get(scope)
        if rules is None:
            rule = settings.optional.exploding_dice
            rules = cache[scope] = cls(
                sides=settings.sides,
                explode=settings.explodes(scope),
                chain=rule.chain,
                max_extra=rule.max_extra_dice,
            )
        return rules


PLAIN_D6 = DiceRules()


def roll_pool(source: DiceSource, count: int, rules: DiceRules = PLAIN_D6) -> tuple[int, ...]:
    """Roll ``count`` dice at once, then explosions (§6.3). Without chain only initial dice explode."""
    sides = rules.sides
    roll = source.roll
    if not rules.explode:
        return tuple(map(roll, repeat(sides, count)))  # the common case, kept lean (bench: <= 5x a bare draw)
    dice = list(map(roll, repeat(sides, count)))
    if rules.explode:
        i = 0
        while i < len(dice):
            if dice[i] == sides and (rules.chain or i < count) and len(dice) - count < rules.max_extra:
                dice.append(roll(sides))
            i += 1
    return tuple(dice)


def reroll_one(
    dice: tuple[int, ...], index: int, initial: int, source: DiceSource, rules: DiceRules = PLAIN_D6
) -> tuple[int, ...]:
    """The talent reroll (§6.2): the new value replaces the old one even if lower, and may explode.

    ``initial`` is the pool size, so the explosion cap counts only extra dice.
    """
    if not 0 <= index < len(dice):
        raise RulesError(
            "DIE_INDEX",
            f"No hay ningún dado en la posición {index}.",
            f"There is no die at index {index}.",
        )
    sides = rules.sides
    new = list(dice)
    new[index] = source.roll(sides)
    if rules.explode and new[index] == sides and len(new) - initial < rules.max_extra:
        new.append(source.roll(sides))
        while rules.chain and new[-1] == sides and len(new) - initial < rules.max_extra:
            new.append(source.roll(sides))
    return tuple(new)
