"""Scene, session and adventure boundaries: the timers they fire on a sheet (spec §1.2, §4.8, §5.7)."""

from __future__ import annotations

from systems.fate_accelerated.fate_points import refresh_fate_points
from systems.fate_accelerated.settings import FaeSettings, RefreshTrigger, settings_or_default
from systems.fate_accelerated.sheet import FaeSheet, SceneStatus


def end_scene(sheet: FaeSheet) -> FaeSheet:
    """All stress boxes clear; taken out / conceded characters are back for the next scene."""
    return sheet.with_changes(stress=(False, False, False), scene_status=SceneStatus.ACTIVE)


def start_scene(sheet: FaeSheet, settings: FaeSettings | None = None) -> FaeSheet:
    """Refresh applies here only when the campaign chose the worked example's reading (A-01)."""
    if settings_or_default(settings).refresh_trigger is RefreshTrigger.SCENE_START:
        return refresh_fate_points(sheet)
    return sheet


def start_session(sheet: FaeSheet, settings: FaeSettings | None = None) -> FaeSheet:
    if settings_or_default(settings).refresh_trigger is RefreshTrigger.SESSION_START:
        return refresh_fate_points(sheet)
    return sheet


def gm_pool_at_scene_start(pcs_in_scene: int, carried_in: int = 0) -> int:
    """[P] §6.7.4: with a GM pool, 1 FP per PC in the scene plus FP owed from the previous scene."""
    return max(0, pcs_in_scene) + max(0, carried_in)
