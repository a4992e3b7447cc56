"""Fate dice (4dF): four dice with faces '-', '0', '+' worth -1, 0, +1 (spec §3.2)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

from systems.dice import DiceSource
from systems.errors import RulesError

FACES = ("-", "0", "+")
FACE_VALUE = {"-": -1, "0": 0, "+": 1}
DICE_COUNT = 4  # the seed: "Siempre se tiran cuatro dados Fate"

# A d3 drawn from the injected source maps to one Fate face: 1 -> '-', 2 -> '0', 3 -> '+'.
_FACE_OF_D3 = ("", "-", "0", "+")
_D3_OF_FACE = {"-": 1, "0": 2, "+": 3}


def dice_sum(faces: str | Sequence[str]) -> int:
    """Sum of exactly four Fate faces; anything else is refused."""
    if len(faces) != DICE_COUNT or any(f not in FACE_VALUE for f in faces):
        raise RulesError(
            "invalid_faces",
            "Los dados Fate son exactamente cuatro caras entre «-», «0» y «+».",
            "4dF needs exactly four faces from '-', '0', '+'.",
            faces="".join(faces),
        )
    return sum(FACE_VALUE[f] for f in faces)


def roll_4df(dice: DiceSource) -> str:
    """Roll four Fate dice from the injected source; returns the faces as a 4-character string."""
    r = dice.roll
    return _FACE_OF_D3[r(3)] + _FACE_OF_D3[r(3)] + _FACE_OF_D3[r(3)] + _FACE_OF_D3[r(3)]


def d3_faces(faces: str) -> list[int]:
    """The d3 values that make ScriptedDice produce ``faces`` (tests reproduce vectors with it)."""
    dice_sum(faces)
    return [_D3_OF_FACE[f] for f in faces]


def sum_distribution() -> dict[int, float]:
    """Exact distribution of the 4dF sum, by enumerating the 81 equally likely sequences."""
    counts = sum_histogram()
    return {total: n / 81 for total, n in counts.items()}


def sum_histogram() -> dict[int, int]:
    counts: dict[int, int] = {}
    for seq in product(FACES, repeat=DICE_COUNT):
        total = dice_sum(seq)
        counts[total] = counts.get(total, 0) + 1
    return dict(sorted(counts.items()))
