"""Combining skills (spec §3.7): a secondary skill moves the primary roll by at most +1 / -1."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from systems.fate_sotc.settings import DEFAULT_SETTINGS, CombineRule, FateSotcSettings


class SecondaryMode(StrEnum):
    MODIFY = "modify"  # may help or hinder
    COMPLEMENT = "complement"  # may only help
    RESTRICT = "restrict"  # may only hinder


def combine_modifier(
    primary: int,
    secondaries: Iterable[tuple[int, SecondaryMode | str]],
    settings: FateSotcSettings = DEFAULT_SETTINGS,
) -> int:
    """The GM picks the skills and their modes; this computes the modifier (-1, 0 or +1)."""
    pairs = [(rating, SecondaryMode(mode)) for rating, mode in secondaries]
    if settings.combine_rule is CombineRule.SUM_CLAMP:
        total = 0
        for rating, mode in pairs:
            if rating > primary and mode is not SecondaryMode.RESTRICT:
                total += 1
            elif rating < primary and mode is not SecondaryMode.COMPLEMENT:
                total -= 1
        return max(-1, min(1, total))
    # one_plus_one_minus (A3): at most one +1 and one -1, which cancel.
    plus = any(r > primary and m is not SecondaryMode.RESTRICT for r, m in pairs)
    minus = any(r < primary and m is not SecondaryMode.COMPLEMENT for r, m in pairs)
    return int(plus) - int(minus)
