"""Shared helpers for the fate-sotc tests (no tests here): scripted d6 for a wanted Fudge total."""

from __future__ import annotations

from systems.dice import ScriptedDice
from systems.fate_sotc.dice import FateDice, dice_from_d6

_D6_FOR_FACE = {-1: 1, 0: 3, 1: 5}


def d6_for_total(total: int) -> list[int]:
    """Four d6 whose Fudge faces sum to ``total`` (-4..+4)."""
    assert -4 <= total <= 4
    sign = 1 if total >= 0 else -1
    faces = [sign] * abs(total) + [0] * (4 - abs(total))
    return [_D6_FOR_FACE[f] for f in faces]


def scripted(*totals: int) -> ScriptedDice:
    """Dice that throw 4dF summing to each of ``totals`` in turn."""
    return ScriptedDice([d for t in totals for d in d6_for_total(t)])


def fate_dice(total: int) -> FateDice:
    return dice_from_d6(d6_for_total(total))
