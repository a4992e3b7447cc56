"""Stress tracks (spec §2.7, §5.2, §5.8): a hit of N marks box N, or the next free one above it."""

from __future__ import annotations

from dataclasses import dataclass

from systems.fate_sotc.errors import fate_error
from systems.fate_sotc.settings import DEFAULT_SETTINGS, FateSotcSettings


def stress_bonus(rating: int, settings: FateSotcSettings = DEFAULT_SETTINGS) -> int:
    """Extra boxes from Vigor/Coraje (§2.7 table; capped at the table's last row)."""
    bonus = 0
    for min_rating, extra in settings.stress_bonus_table:
        if rating >= min_rating:
            bonus = extra
    return bonus


def track_size(rating: int, settings: FateSotcSettings = DEFAULT_SETTINGS, override: int | None = None) -> int:
    """Boxes on a track: base 5 + skill bonus + any GM/stunt override."""
    return max(0, settings.stress_base_boxes + stress_bonus(rating, settings) + (override or 0))


@dataclass(frozen=True, slots=True)
class NoEffect:
    pass


@dataclass(frozen=True, slots=True)
class Marked:
    box: int  # 1-based


@dataclass(frozen=True, slots=True)
class NeedConsequence:
    voluntary: bool


@dataclass(frozen=True, slots=True)
class TakenOut:
    pass


HitResult = NoEffect | Marked | NeedConsequence | TakenOut


def apply_hit(
    boxes: tuple[bool, ...],
    hit: int,
    choose_consequence: bool = False,
    severe_held: bool = False,
) -> tuple[HitResult, tuple[bool, ...]]:
    """Returns the result and the new track (unchanged unless a box was marked)."""
    if hit <= 0:
        return NoEffect(), boxes
    if choose_consequence:
        if severe_held:
            # Volunteering is impossible with a severe consequence: only a forced hit takes out.
            raise fate_error("consequence_slots_full")
        return NeedConsequence(voluntary=True), boxes
    i = hit
    while i <= len(boxes) and boxes[i - 1]:
        i += 1  # A11: walk upwards to the next unmarked box
    if i > len(boxes):
        return (TakenOut() if severe_held else NeedConsequence(voluntary=False)), boxes
    return Marked(i), (*boxes[: i - 1], True, *boxes[i:])


def empty_track(size: int) -> tuple[bool, ...]:
    return (False,) * size


def resize_track(boxes: tuple[bool, ...], size: int) -> tuple[bool, ...]:
    """A shrinking track loses boxes (and their marks) from the right (§2.7)."""
    if size <= len(boxes):
        return boxes[:size]
    return boxes + (False,) * (size - len(boxes))


def clear_track(boxes: tuple[bool, ...]) -> tuple[bool, ...]:
    return (False,) * len(boxes)
