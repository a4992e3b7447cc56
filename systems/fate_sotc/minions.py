"""Minion groups (spec §2.9, §5.10; optional rules off by default)."""

from __future__ import annotations

from dataclasses import dataclass, replace


def minion_group_count(minions: int, opposing_characters: int) -> int:
    """Nameless supporters form as many groups as there are opposing characters (§2.9)."""
    return max(0, min(minions, opposing_characters))


def minion_size_bonus(size: int) -> int:
    """+1 for 2-3 members, +2 for 4-6, +3 for 7-9, +4 for 10 or more."""
    if size >= 10:
        return 4
    if size >= 7:
        return 3
    if size >= 4:
        return 2
    return 1 if size >= 2 else 0


@dataclass(frozen=True)
class MinionGroup:
    """``size`` minions of ``quality`` (+1..+3); each has ``quality`` boxes; ``marked`` on the current one."""

    quality: int
    size: int
    marked: int = 0

    @property
    def rating(self) -> int:
        """The group acts and reacts at quality + size bonus."""
        return self.quality + minion_size_bonus(self.size)

    @property
    def out(self) -> bool:
        return self.size <= 0


def apply_minion_hit(group: MinionGroup, hit: int) -> tuple[MinionGroup, int]:
    """Stress fills one minion after another; returns (new group, minions taken out)."""
    if hit <= 0 or group.out:
        return group, 0
    boxes = max(1, group.quality)
    total = group.marked + hit
    taken_out = min(group.size, total // boxes)
    size = group.size - taken_out
    marked = 0 if size == 0 else total - taken_out * boxes
    return replace(group, size=size, marked=marked), taken_out
