"""Supplemental actions, movement, pushing and throwing, range (spec §3.8, §3.12, A18-A20)."""

from __future__ import annotations

from collections.abc import Sequence

from systems.fate_sotc.settings import DEFAULT_SETTINGS, FateSotcSettings, ThrowCostRule


def supplemental_modifier(count: int = 1) -> int:
    """-1 per supplemental action on the primary action's single roll (A36)."""
    return -count


def supplemental_move_modifier(border: int = 0, carried_weight: int = 0) -> int:
    """Moving one zone as a supplemental action: -(1 + border + carried weight)."""
    return -(1 + border + carried_weight)


def disarm_pickup_modifier(disarm_shifts: int) -> int:
    """Picking a dropped weapon up: the disarm's shifts stack on the usual -1 (only the disarm part)."""
    return -disarm_shifts


def sprint_reach(
    shifts: int,
    borders_on_path: Sequence[int],
    carried_weight: int = 0,
    settings: FateSotcSettings = DEFAULT_SETTINGS,
) -> int:
    """Zones covered by an Atletismo sprint: each zone costs 1 + its border + the carried weight."""
    spent = reached = 0
    for border in borders_on_path:
        cost = 1 + border + carried_weight
        if spent + cost > shifts:
            break
        spent += cost
        reached += 1
    if (
        reached == 0
        and settings.sprint_min_one_zone
        and borders_on_path
        and borders_on_path[0] == 0
        and carried_weight == 0
    ):
        reached = 1  # always at least one zone when nothing stands in the way
    return reached


def push_cost(weight: int, zones: int, borders: Sequence[int] = ()) -> int:
    """Shifts a push needs: target weight + 1 per zone (+ borders on the way)."""
    return weight + zones + sum(borders)


def throw_cost(weight: int, zones: int, settings: FateSotcSettings = DEFAULT_SETTINGS) -> int:
    """Shifts a throw needs: the first zone costs 1 + W, each further one the previous plus one."""
    if zones <= 0:
        return 0
    if settings.throw_cost_rule is ThrowCostRule.LINEAR:
        return weight + zones  # the total grows by one per zone (A19 alternative reading)
    return sum(weight + k for k in range(1, zones + 1))


def max_push_zones(shifts: int, weight: int) -> int:
    return max(0, shifts - weight)


def max_throw_zones(shifts: int, weight: int, settings: FateSotcSettings = DEFAULT_SETTINGS) -> int:
    zones = 0
    while throw_cost(weight, zones + 1, settings) <= shifts:
        zones += 1
    return zones


def range_band(zone_distance: int) -> str:
    """Rule of thumb: same zone touch, adjacent zones throw, further shoot."""
    if zone_distance <= 0:
        return "touch"
    return "throw" if zone_distance == 1 else "shoot"
