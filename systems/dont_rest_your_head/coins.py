"""The two coin chests (§4 rows 24-30, §5.4-5.5): despair for the GM, shared hope for the players.

Hope uses outside a conflict (taking a breather, recovering discipline) and the session lifecycle
live here. Conflict-time coin moves (shading, hope 1s, closing) are steps of ``conflict``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from systems.dont_rest_your_head.crash import lower_exhaustion
from systems.dont_rest_your_head.refusals import refuse
from systems.dont_rest_your_head.settings import DEFAULT_SETTINGS, Settings
from systems.dont_rest_your_head.sheet import Sheet, Status
from systems.dont_rest_your_head.snap import clear_box

HopeUse = Literal["exhaustion-1", "clear_fight", "clear_flight", "recover_discipline"]
BreatherUse = Literal["exhaustion-1", "clear_fight", "clear_flight"]


class Chest(BaseModel):
    """Campaign coins. Pending coins (spent despair) live on each open conflict, not here."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    despair: int = Field(0, ge=0)
    hope: int = Field(0, ge=0)
    session_number: int = Field(0, ge=0)
    session_open: bool = False


def recover_cost(sheet: Sheet) -> int:
    """(S) 5 minus the CURRENT discipline."""
    return 5 - sheet.discipline


def apply_hope_use(sheet: Sheet, use: HopeUse, settings: Settings = DEFAULT_SETTINGS) -> tuple[Sheet, int]:
    """Apply one hope use to a sheet; returns the new sheet and the coins it costs.

    Callers check their own preconditions (conflict, GM permission) and pay the coins.
    """
    if use == "exhaustion-1":
        return lower_exhaustion(sheet, settings), 1
    if use == "clear_fight":
        return clear_box(sheet, "fight"), 1
    if use == "clear_flight":
        return clear_box(sheet, "flight"), 1
    # recover_discipline (S): +1 discipline, -1 permanent madness
    if sheet.permanent_madness < 1 or sheet.discipline >= sheet.discipline_base:
        refuse("NOTHING_TO_RECOVER")
    if sheet.status in (Status.ASLEEP, Status.RECOVERING):  # (R, B-AMB-22)
        refuse("WRONG_STATUS", status=sheet.status.value)
    cost = recover_cost(sheet)
    return (
        sheet.model_copy(update={"discipline": sheet.discipline + 1, "permanent_madness": sheet.permanent_madness - 1}),
        cost,
    )


def _spend(chest: Chest, coins: int) -> Chest:
    if chest.hope < coins:
        refuse("NO_HOPE", needed=coins, hope=chest.hope)
    return chest.model_copy(update={"hope": chest.hope - coins})  # spent hope leaves play (S)


def take_breather(
    sheet: Sheet,
    chest: Chest,
    uses: Sequence[BreatherUse],
    gm_allows: bool,
    in_conflict: bool,
    settings: Settings = DEFAULT_SETTINGS,
) -> tuple[Sheet, Chest]:
    """ "Tomarse un respiro" (S): 1 hope per use, only outside an unsettled conflict, when the GM
    allows the moment. A crash-pending PC brought back to 6 is awake again (R, B-AMB-13)."""
    if in_conflict:
        refuse("IN_CONFLICT")
    if not gm_allows:
        refuse("GM_NOT_ALLOWED")
    if sheet.status in (Status.NIGHTMARE, Status.REMOVED):
        refuse("WRONG_STATUS", status=sheet.status.value)
    if not uses:
        refuse("CHOICE_REQUIRED", choice="uses")
    chest = _spend(chest, len(uses))
    for use in uses:
        sheet, _ = apply_hope_use(sheet, use, settings)
    return sheet, chest


def recover_discipline(
    sheet: Sheet,
    chest: Chest,
    gm_confirms: bool,
    in_conflict: bool,
    settings: Settings = DEFAULT_SETTINGS,
) -> tuple[Sheet, Chest]:
    """ "Recuperar disciplina" (S): pay 5 - discipline hope for +1 discipline, -1 permanent madness."""
    if sheet.status != Status.AWAKE:  # (R, B-AMB-22)
        refuse("WRONG_STATUS", status=sheet.status.value)
    if in_conflict:
        refuse("IN_CONFLICT")
    if sheet.permanent_madness < 1 or sheet.discipline >= sheet.discipline_base:
        refuse("NOTHING_TO_RECOVER")
    chest = _spend(chest, recover_cost(sheet))
    if not gm_confirms:  # (S) normally after hours of calm reflection
        refuse("GM_NOT_CONFIRMED")
    sheet, _ = apply_hope_use(sheet, "recover_discipline", settings)
    return sheet, chest


def open_session(chest: Chest, settings: Settings = DEFAULT_SETTINGS) -> Chest:
    """(S, R B-AMB-24) nothing carries over: despair starts at the setting, hope at 0."""
    return Chest(
        despair=settings.initial_despair_per_session,
        hope=0,
        session_number=chest.session_number + 1,
        session_open=True,
    )


def even_split(hope: int, pcs: Sequence[str]) -> dict[str, int]:
    """The default hope distribution: even, the remainder to the first PCs (the GM may reassign)."""
    if not pcs:
        return {}
    share, rest = divmod(hope, len(pcs))
    return {pc: share + (1 if i < rest else 0) for i, pc in enumerate(pcs)}


def close_session(
    chest: Chest,
    sheets: Mapping[str, Sheet],
    spends: Mapping[str, Sequence[HopeUse]],
    open_conflicts: int,
    settings: Settings = DEFAULT_SETTINGS,
) -> tuple[Chest, dict[str, Sheet]]:
    """§5.5 step 3: distribute and spend hope (conflict and calm conditions count as met), then the
    rest lapses; despair resets; scar marks and scene swaps end."""
    if not chest.session_open:
        refuse("SESSION_CLOSED")
    if open_conflicts:
        refuse("CONFLICTS_OPEN", open_conflicts=open_conflicts)
    out = dict(sheets)
    total = 0
    for pc, uses in spends.items():
        if pc not in out:
            refuse("NOT_INVOLVED", pc=pc)
        sheet = out[pc]
        for use in uses:
            sheet, cost = apply_hope_use(sheet, use, settings)
            total += cost
        out[pc] = sheet
    if total > chest.hope:
        refuse("NO_HOPE", needed=total, hope=chest.hope)
    for pc, sheet in out.items():
        out[pc] = end_of_session_sheet(sheet)
    return Chest(despair=0, hope=0, session_number=chest.session_number, session_open=False), out


def end_of_session_sheet(sheet: Sheet) -> Sheet:
    """(S) scars can be invoked again next session; scene-scoped talent swaps end."""
    scars = tuple(s.model_copy(update={"invoked_this_session": False}) for s in sheet.scars)
    swaps = tuple(s for s in sheet.talent_swaps if s.scope == "permanent")
    return sheet.model_copy(update={"scars": scars, "talent_swaps": swaps})
