"""Fate Accelerated roll benchmarks: one main roll per case, validated requests built once (at the edge)."""

from __future__ import annotations

from collections.abc import Callable

from systems.dice import DiceSource
from systems.fate_accelerated.roll_kinds import ActionRollRequest, FateDiceRequest, resolve

_OVERCOME = ActionRollRequest(approach="sneaky", approach_rating=3, stunt_bonus=2, helpers=1, difficulty=3)
_ATTACK = ActionRollRequest(approach="quick", approach_rating=2)
_PLAIN = FateDiceRequest(modifier=1, difficulty=2)

CASES: list[tuple[str, int, Callable[[DiceSource], object]]] = [
    ("fate-accelerated overcome vs difficulty", 4, lambda dice: resolve("overcome", _OVERCOME, dice)),
    ("fate-accelerated attack (opposed, total only)", 4, lambda dice: resolve("attack", _ATTACK, dice)),
    ("fate-accelerated plain 4dF vs difficulty", 4, lambda dice: resolve("fate_dice", _PLAIN, dice)),
]
