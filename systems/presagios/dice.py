"""The core roll of spec §3.1: keep the highest d6, +1 per duplicate of it, + one trait; count omens.

This is the hot path: plain ints in, a slotted frozen dataclass out, no pydantic.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from systems.dice import DiceSource
from systems.presagios.rejections import reject
from systems.presagios.settings import DEFAULT_SETTINGS, OmenFaceValue, PresagiosSettings

SIDES = 6
OMEN_FACE = 1  # (S) the omen symbol replaces the 1 face
MAX_TOOL_DICE = 3  # (R, A-AMB-28) the largest value the source names


class Tool(StrEnum):
    """Tool categories of the source (§7 Herramientas). ``OTHER`` is 1..3 dice set by the GM."""

    OTHER = "other"
    SMALL_MELEE = "small_melee"
    LARGE_MELEE = "large_melee"
    SHORT_FIREARM = "short_firearm"
    HUGE_MELEE = "huge_melee"
    LONG_FIREARM = "long_firearm"


TOOL_DICE: dict[Tool, int] = {
    Tool.SMALL_MELEE: 1,
    Tool.LARGE_MELEE: 2,
    Tool.SHORT_FIREARM: 2,
    Tool.HUGE_MELEE: 3,
    Tool.LONG_FIREARM: 3,
}


def tool_dice_for(tool: Tool, gm_dice: int | None = None) -> int:
    """Dice a tool adds. Weapons have fixed values; any other tool needs the GM's 1..3."""
    if tool is Tool.OTHER:
        if gm_dice is None or not 1 <= gm_dice <= MAX_TOOL_DICE:
            raise reject("TOOL_DICE_RANGE", tool_dice=gm_dice)
        return gm_dice
    return TOOL_DICE[tool]


def check_tool_dice(tool_dice: int) -> int:
    if not 0 <= tool_dice <= MAX_TOOL_DICE:
        raise reject("TOOL_DICE_RANGE", tool_dice=tool_dice)
    return tool_dice


def pool_size(current: int, tool_dice: int = 0) -> int:
    """Dice rolled: the current rating (none when it is ≤ 0, A-AMB-08) plus 0..3 tool dice."""
    check_tool_dice(tool_dice)
    return max(current, 0) + tool_dice


@dataclass(frozen=True, slots=True)
class CoreRoll:
    """One side's roll. ``dice`` are faces as rolled (1 = omen)."""

    dice: tuple[int, ...]
    dice_result: int
    omens: int
    trait_bonus: int
    total: int

    @property
    def unsettling(self) -> bool:
        """(S) any omen means "algo inquietante ocurre"."""
        return self.omens > 0

    def with_trait(self, trait_bonus: int) -> CoreRoll:
        return CoreRoll(self.dice, self.dice_result, self.omens, trait_bonus, self.dice_result + trait_bonus)

    def public(self) -> dict[str, object]:
        return {
            "dice": list(self.dice),
            "dice_result": self.dice_result,
            "omens": self.omens,
            "trait_bonus": self.trait_bonus,
            "total": self.total,
            "unsettling": self.unsettling,
        }


def core_result(
    dice: tuple[int, ...], trait_bonus: int = 0, settings: PresagiosSettings = DEFAULT_SETTINGS
) -> CoreRoll:
    """Score faces already rolled (spec §3.1 ``core_result``)."""
    omens = dice.count(OMEN_FACE)  # every die counts, tool dice included
    if omens and settings.omen_face_value is OmenFaceValue.ZERO:
        values: tuple[int, ...] = tuple(0 if d == OMEN_FACE else d for d in dice)
    else:
        values = dice
    high = max(values, default=0)
    # an omen worth 0 never makes a duplicate bonus; no dice gives 0 (A-AMB-04, A-AMB-08)
    dice_result = high + values.count(high) - 1 if high else 0
    return CoreRoll(dice, dice_result, omens, trait_bonus, dice_result + trait_bonus)


def roll_pool(
    source: DiceSource, pool: int, trait_bonus: int = 0, settings: PresagiosSettings = DEFAULT_SETTINGS
) -> CoreRoll:
    """Roll ``pool`` d6 from ``source`` and score them."""
    roll = source.roll
    return core_result(tuple([roll(SIDES) for _ in range(pool)]), trait_bonus, settings)
