"""Maneuvers against a character (spec §3.11): >= 1 shift places a temporary aspect."""

from __future__ import annotations

from dataclasses import dataclass

from systems.fate_sotc.aspects import Aspect, HolderType, Origin, Persistence, temporary_aspect
from systems.fate_sotc.errors import fate_error
from systems.fate_sotc.fate_points import FpKind, Wallet, spend
from systems.fate_sotc.resolution import resolve_opposed
from systems.fate_sotc.settings import DEFAULT_SETTINGS, FateSotcSettings


@dataclass(frozen=True)
class ManeuverOutcome:
    status: str  # failed, avoided, placed
    shifts: int
    target: Wallet
    aspect: Aspect | None = None
    sticky_denied: bool = False  # the GM wanted sticky but the maneuver was not a critical success


def resolve_maneuver_on_character(
    maneuver_effort: int,
    target_effort: int,
    *,
    aspect_id: str,
    proposed_text: str,
    maneuverer_id: str,
    target_id: str,
    target: Wallet,
    target_avoids: bool,
    gm_wants_sticky: bool = False,
    scene_id: str | None = None,
    settings: FateSotcSettings = DEFAULT_SETTINGS,
) -> ManeuverOutcome:
    r = resolve_opposed(maneuver_effort, target_effort, settings)
    if r.winner != "a" or r.shifts < 1:
        return ManeuverOutcome("failed", 0, target)
    if target_avoids:
        if target.fate_points < 1:
            raise fate_error("insufficient_fate_points", have=target.fate_points, need=1)
        return ManeuverOutcome("avoided", r.shifts, spend(target, 1, FpKind.AVOID_MANEUVER_ASPECT))
    sticky_ok = r.shifts >= settings.critical_threshold
    sticky = gm_wants_sticky and sticky_ok
    aspect = temporary_aspect(
        aspect_id,
        proposed_text,
        HolderType.CHARACTER,
        target_id,
        created_by=maneuverer_id,
        scene_id=scene_id,
        origin=Origin.MANEUVER,
        persistence=Persistence.STICKY if sticky else Persistence.FRAGILE,
    )
    return ManeuverOutcome("placed", r.shifts, target, aspect, sticky_denied=gm_wants_sticky and not sticky_ok)
