"""Benchmark cases for the fate-sotc roll kinds: (name, dice drawn per call, resolver)."""

from __future__ import annotations

from collections.abc import Callable

from systems.dice import DiceSource
from systems.fate_sotc.rolls import (
    roll_attack,
    roll_block,
    roll_effort,
    roll_maneuver,
    roll_opposed,
    roll_simple,
    roll_sprint,
)

_NO_MODS = ()
_PATH = (0, 1, 0, 0)

CASES: list[tuple[str, int, Callable[[DiceSource], object]]] = [
    ("fate-sotc effort", 4, lambda dice: roll_effort(dice, 3)),
    ("fate-sotc simple", 4, lambda dice: roll_simple(dice, 3, 2)),
    ("fate-sotc opposed", 8, lambda dice: roll_opposed(dice, (3, _NO_MODS), (2, _NO_MODS))),
    ("fate-sotc attack", 8, lambda dice: roll_attack(dice, (3, _NO_MODS), (2, _NO_MODS))),
    ("fate-sotc maneuver", 8, lambda dice: roll_maneuver(dice, (3, _NO_MODS), (3, _NO_MODS))),
    ("fate-sotc block", 4, lambda dice: roll_block(dice, 3, gm_penalty=-1)),
    ("fate-sotc sprint", 4, lambda dice: roll_sprint(dice, 2, _PATH)),
]
