"""Presagios resolvers for the rolls benchmark: one main roll of each kind per call."""

from __future__ import annotations

from collections.abc import Callable

from systems.dice import DiceSource
from systems.presagios.challenge import resolve_challenge
from systems.presagios.conflict import SideRoll, resolve_conflict
from systems.presagios.dice import pool_size, roll_pool
from systems.presagios.sheet import Kind

_PRINCIPAL = SideRoll(Kind.PRINCIPAL, 3, 0, 1)
_SECONDARY = SideRoll(Kind.SECUNDARIO, 3, 0, 0)  # principal vs secondary never rerolls: fixed 6 dice

CASES: list[tuple[str, int, Callable[[DiceSource], object]]] = [
    ("presagios roll 3d6 + trait", 3, lambda dice: roll_pool(dice, pool_size(3, 0), 2)),
    ("presagios challenge 3+2 tool dice", 5, lambda dice: resolve_challenge(dice, 3, 7, 2, 1)),
    ("presagios conflict principal vs secondary 3v3", 6, lambda dice: resolve_conflict(dice, _PRINCIPAL, _SECONDARY)),
]
