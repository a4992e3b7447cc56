"""Scars (§3.6): created once per session, invoked to reroll a pool, transformed for a big benefit.

The reroll itself is a conflict step (``conflict.invoke_scar``); the sheet bookkeeping is here.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from systems.dont_rest_your_head.coins import HopeUse, apply_hope_use
from systems.dont_rest_your_head.refusals import refuse
from systems.dont_rest_your_head.settings import DEFAULT_SETTINGS, Settings
from systems.dont_rest_your_head.sheet import Scar, Sheet, TalentSwap


class TransformBenefit(BaseModel):
    """What a transformed scar buys: a talent swap, or up to 5 hope coins spent at once (S)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["hope_grant", "swap_exhaustion_talent", "swap_madness_talent"]
    coins: int = Field(0, ge=0, le=99)
    uses: tuple[HopeUse, ...] = ()
    swap: TalentSwap | None = None

    @model_validator(mode="after")
    def _shape(self) -> TransformBenefit:
        if self.kind != "hope_grant":
            wanted = "exhaustion" if self.kind == "swap_exhaustion_talent" else "madness"
            if self.swap is None or self.swap.kind != wanted:
                raise ValueError(f"{self.kind} needs a {wanted} talent swap")
        return self


def create_scar(sheet: Sheet, text: str, session: int, gm_approves: bool) -> Sheet:
    """(S) at most one new scar per session; (R, B-AMB-27) the GM approves the wording."""
    if sheet.scar_created_session == session:
        refuse("SCAR_LIMIT", session=session)
    if not gm_approves:
        refuse("GM_NOT_CONFIRMED")
    scar = Scar(text=text, created_session=session)
    return sheet.model_copy(update={"scars": (*sheet.scars, scar), "scar_created_session": session})


def usable_scar(sheet: Sheet, index: int) -> Scar:
    if not 0 <= index < len(sheet.scars):
        refuse("SCAR_NOT_FOUND", index=index)
    scar = sheet.scars[index]
    if scar.crossed_out:
        refuse("SCAR_CROSSED_OUT", index=index)
    return scar


def check_invocable(sheet: Sheet, index: int) -> Scar:
    scar = usable_scar(sheet, index)
    if scar.invoked_this_session:
        refuse("SCAR_ALREADY_INVOKED", index=index)
    return scar


def _replace_scar(sheet: Sheet, index: int, scar: Scar) -> Sheet:
    scars = list(sheet.scars)
    scars[index] = scar
    return sheet.model_copy(update={"scars": tuple(scars)})


def mark_invoked(sheet: Sheet, index: int) -> Sheet:
    """(S) marked in pencil: once per session per scar."""
    scar = check_invocable(sheet, index)
    return _replace_scar(sheet, index, scar.model_copy(update={"invoked_this_session": True}))


def transform_scar(
    sheet: Sheet,
    index: int,
    benefit: TransformBenefit,
    gm_confirms: bool,
    settings: Settings = DEFAULT_SETTINGS,
) -> Sheet:
    """(S) cross the scar out for a talent swap or up to 5 hope coins that never touch the chest.

    Granted coins are spent at once, even inside a conflict (R, B-AMB-21); leftovers vanish.
    """
    scar = usable_scar(sheet, index)
    if not gm_confirms:
        refuse("GM_NOT_CONFIRMED")
    if benefit.kind == "hope_grant":
        if not 1 <= benefit.coins <= 5:
            refuse("BAD_GRANT", coins=benefit.coins)
        spent = 0
        for use in benefit.uses:
            sheet, cost = apply_hope_use(sheet, use, settings)
            spent += cost
        if spent > benefit.coins:
            refuse("BAD_GRANT", coins=benefit.coins, spent=spent)
    else:
        assert benefit.swap is not None  # guaranteed by TransformBenefit's validator
        sheet = sheet.model_copy(update={"talent_swaps": (*sheet.talent_swaps, benefit.swap)})
    return _replace_scar(sheet, index, scar.model_copy(update={"crossed_out": True}))
