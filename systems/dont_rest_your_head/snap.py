"""Response boxes, snapping and becoming a Nightmare (§3.7, §4 rows 10-17, 21)."""

from __future__ import annotations

from typing import Literal

from systems.dont_rest_your_head.refusals import refuse
from systems.dont_rest_your_head.settings import DEFAULT_SETTINGS, Settings, SnapDuringRecovery
from systems.dont_rest_your_head.sheet import Sheet, Status

BoxKind = Literal["fight", "flight"]


def free_boxes(sheet: Sheet, settings: Settings = DEFAULT_SETTINGS) -> dict[str, int]:
    return {"fight": settings.fight_boxes - sheet.fight, "flight": settings.flight_boxes - sheet.flight}


def must_snap(sheet: Sheet, settings: Settings = DEFAULT_SETTINGS) -> bool:
    """(R, B-AMB-03) a snap needs every box of both kinds checked."""
    return sum(free_boxes(sheet, settings).values()) == 0


def check_response(
    sheet: Sheet,
    kind: BoxKind | None,
    pool_size: int,
    settings: Settings = DEFAULT_SETTINGS,
) -> Sheet:
    """Check one box of ``kind`` (the chooser's pick); with no free box the PC snaps instead (S)."""
    if must_snap(sheet, settings):
        return snap(sheet, pool_size, settings)
    if kind is None:
        refuse("CHOICE_REQUIRED", choice="box_kind")
    if free_boxes(sheet, settings)[kind] <= 0:
        refuse("BOX_FULL", kind=kind)
    return sheet.model_copy(update={kind: getattr(sheet, kind) + 1})


def clear_box(sheet: Sheet, kind: BoxKind) -> Sheet:
    if getattr(sheet, kind) <= 0:
        refuse("NOTHING_TO_CLEAR", track=kind)
    return sheet.model_copy(update={kind: getattr(sheet, kind) - 1})


def snap(sheet: Sheet, pool_size: int, settings: Settings = DEFAULT_SETTINGS) -> Sheet:
    """(S) boxes cleared, discipline -1, permanent madness +1, the breakdown flagged; at discipline 0
    the PC becomes a Nightmare whose pain is the size of the pool rolled when snapping (B-AMB-15)."""
    update: dict[str, object] = {
        "fight": 0,
        "flight": 0,
        "permanent_madness": sheet.permanent_madness + 1,
        "snap_episode": True,
    }
    discipline = sheet.discipline
    restore = sheet.discipline_restore_to
    if restore is not None:
        restore -= 1  # (R, B-AMB-28) discipline lost to snapping is not regained by sleeping
    recovering = sheet.status == Status.RECOVERING
    if recovering and settings.snap_during_recovery == SnapDuringRecovery.PERMANENT_ONLY:
        lost_all = restore is not None and restore <= 0
    else:
        discipline -= 1
        lost_all = discipline <= 0
    update["discipline"] = max(discipline, 0)
    update["discipline_restore_to"] = None if restore is None else max(restore, 0)
    if lost_all:
        update["discipline"] = 0
        update["status"] = Status.NIGHTMARE
        update["nightmare_pain"] = max(pool_size, 1)
    return sheet.model_copy(update=update)
