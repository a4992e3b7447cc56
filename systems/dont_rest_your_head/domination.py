"""Successes, strength and domination (§3.1): which pool rules the outcome, with every tie-break."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum


class PoolName(StrEnum):
    DISCIPLINE = "discipline"
    MADNESS = "madness"
    EXHAUSTION = "exhaustion"
    PAIN = "pain"


# (S) fixed order for a full tie: Discipline > Madness > Exhaustion > Pain.
PRIORITY: dict[str, int] = {"discipline": 4, "madness": 3, "exhaustion": 2, "pain": 1}

# Spanish phrases for the post summary ("domina el dolor").
DOMINANT_PHRASE_ES: dict[str, str] = {
    "discipline": "la disciplina",
    "exhaustion": "el agotamiento",
    "madness": "la locura",
    "pain": "el dolor",
}
DOMINANT_PHRASE_EN: dict[str, str] = {
    "discipline": "discipline",
    "exhaustion": "exhaustion",
    "madness": "madness",
    "pain": "pain",
}


def successes(dice: Sequence[int]) -> int:
    """(S) every die showing 1, 2 or 3 is a success."""
    return sum(1 for d in dice if d <= 3)


def strength(dice: Sequence[int]) -> int | None:
    """(S) the highest die of a pool; None for an empty pool."""
    return max(dice) if dice else None


def pool_key(name: str, dice: Sequence[int]) -> tuple[list[int], int]:
    """Sorted high-to-low dice compared position by position (a shorter pool loses when all
    earlier positions tie: Python list order does exactly that), then the fixed priority."""
    return (sorted(dice, reverse=True), PRIORITY[name])


def dominant(pools: Mapping[str, Sequence[int]]) -> str | None:
    """The dominating pool; an empty pool never dominates. None only if every pool is empty."""
    best: str | None = None
    best_key: tuple[list[int], int] | None = None
    for name, dice in pools.items():
        if not dice:
            continue
        key = pool_key(name, dice)
        if best_key is None or key > best_key:
            best, best_key = name, key
    return best


def superior(pools: Mapping[str, Sequence[int]]) -> str | None:
    """The player's top pool (potencia superior): domination ignoring pain. Reported only."""
    return dominant({name: dice for name, dice in pools.items() if name != "pain"})


def degree_word(degree: int) -> str:
    """(S) adecuado 1, impresionante 2, extraordinario 3, irreal 4+; (R, B-AMB-23) mínimo for 0."""
    return {0: "mínimo", 1: "adecuado", 2: "impresionante", 3: "extraordinario"}.get(degree, "irreal")


DEGREE_WORD_EN: dict[str, str] = {
    "mínimo": "minimal",
    "adecuado": "adequate",
    "impresionante": "impressive",
    "extraordinario": "extraordinary",
    "irreal": "mastery of the unreal",
}
