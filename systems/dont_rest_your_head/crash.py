"""Exhaustion and the crash (§4 rows 1-9, 19-20, 39-41; §5.3): every function returns a new sheet."""

from __future__ import annotations

from systems.dont_rest_your_head.refusals import refuse
from systems.dont_rest_your_head.settings import DEFAULT_SETTINGS, Settings
from systems.dont_rest_your_head.sheet import Sheet, Status


def raise_exhaustion(sheet: Sheet, settings: Settings = DEFAULT_SETTINGS) -> Sheet:
    """+1 exhaustion; above the crash level the PC is crash-pending (S, B-AMB-01).

    Stored exhaustion stops one above the maximum (B-AMB-29): further +1s change nothing.
    """
    exhaustion = min(sheet.exhaustion + 1, settings.crash_level)
    status = sheet.status
    # A recovering PC is awake too, so it can crash again.
    if exhaustion > settings.crash_when_exhaustion_exceeds and status in (Status.AWAKE, Status.RECOVERING):
        status = Status.CRASH_PENDING
    return sheet.model_copy(update={"exhaustion": exhaustion, "status": status})


def lower_exhaustion(sheet: Sheet, settings: Settings = DEFAULT_SETTINGS) -> Sheet:
    """-1 exhaustion (discipline benefit, breather, scar grant); back at or below the maximum
    before the crash is carried out, the crash is averted (R, B-AMB-13)."""
    if sheet.exhaustion <= 0:
        refuse("NOTHING_TO_CLEAR", track="exhaustion")
    exhaustion = sheet.exhaustion - 1
    status = sheet.status
    if status == Status.CRASH_PENDING and exhaustion <= settings.crash_when_exhaustion_exceeds:
        status = Status.RECOVERING if sheet.discipline_restore_to is not None else Status.AWAKE
    return sheet.model_copy(update={"exhaustion": exhaustion, "status": status})


def carry_out_crash(sheet: Sheet) -> Sheet:
    """crash_pending -> asleep (GM, end of scene or sooner): boxes cleared, exhaustion 0, talents off,
    and the discipline to restore remembered (R, B-AMB-14)."""
    if sheet.status != Status.CRASH_PENDING:
        refuse("WRONG_STATUS", status=sheet.status.value)
    restore = sheet.discipline_restore_to if sheet.discipline_restore_to is not None else sheet.discipline
    return sheet.model_copy(
        update={
            "status": Status.ASLEEP,
            "exhaustion": 0,
            "fight": 0,
            "flight": 0,
            "discipline_restore_to": restore,
        }
    )


def crash_disaster(sheet: Sheet, gm_agrees: bool, player_agrees: bool) -> Sheet:
    """crash_pending -> removed: death or a similar disaster instead of sleep (S), by agreement."""
    if sheet.status != Status.CRASH_PENDING:
        refuse("WRONG_STATUS", status=sheet.status.value)
    if not (gm_agrees and player_agrees):
        refuse("GM_NOT_CONFIRMED")
    return sheet.model_copy(update={"status": Status.REMOVED})


def wake_up(sheet: Sheet) -> Sheet:
    """asleep -> recovering (GM, after at least a day): discipline 1, talents still off (S)."""
    if sheet.status != Status.ASLEEP:
        refuse("WRONG_STATUS", status=sheet.status.value)
    return sheet.model_copy(update={"status": Status.RECOVERING, "discipline": min(1, sheet.discipline_base)})


def complete_recovery(sheet: Sheet) -> Sheet:
    """recovering -> awake (GM: awake as long as they slept): discipline restored, talents on."""
    if sheet.status != Status.RECOVERING:
        refuse("WRONG_STATUS", status=sheet.status.value)
    restore = sheet.discipline_restore_to if sheet.discipline_restore_to is not None else sheet.discipline
    return sheet.model_copy(update={"status": Status.AWAKE, "discipline": restore, "discipline_restore_to": None})
