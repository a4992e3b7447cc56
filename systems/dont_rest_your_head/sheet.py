"""The protagonist's sheet (§2.2), validated from untrusted JSON, and the creation rules."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from systems.dont_rest_your_head.refusals import refuse
from systems.dont_rest_your_head.settings import DEFAULT_SETTINGS, Settings

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Status(StrEnum):
    AWAKE = "awake"
    CRASH_PENDING = "crash_pending"
    ASLEEP = "asleep"
    RECOVERING = "recovering"
    NIGHTMARE = "nightmare"
    REMOVED = "removed"


class Talent(BaseModel):
    model_config = _FROZEN

    name: str = Field(min_length=1, max_length=120)
    description: str = Field("", max_length=2000)


class PriceRule(BaseModel):
    """How many temporary madness dice a madness talent costs (the GM sets it per use by default)."""

    model_config = _FROZEN

    kind: Literal["gm_sets", "fixed", "at_least", "range", "player_sets"] = "gm_sets"
    n: int | None = Field(None, ge=1, le=6)
    min: int | None = Field(None, ge=1, le=6)
    max: int | None = Field(None, ge=1, le=6)

    @model_validator(mode="after")
    def _shape(self) -> PriceRule:
        if self.kind in ("fixed", "at_least") and self.n is None:
            raise ValueError(f"price rule {self.kind} needs n")
        if self.kind == "range" and (self.min is None or self.max is None or self.min > self.max):
            raise ValueError("price rule range needs min <= max")
        return self

    def floor(self) -> int:
        """The fewest temporary dice the talent's own rule allows (the GM's price may ask more)."""
        if self.kind in ("fixed", "at_least"):
            return self.n or 1
        if self.kind == "range":
            return self.min or 1
        return 1


class MadnessTalent(Talent):
    price_rule: PriceRule = PriceRule()


class TalentSwap(BaseModel):
    """A replacement talent bought by transforming a scar; the original can't be used meanwhile (S)."""

    model_config = _FROZEN

    kind: Literal["exhaustion", "madness"]
    replacement: Talent
    scope: Literal["scene", "permanent"]
    scene_id: str | None = None


class Scar(BaseModel):
    model_config = _FROZEN

    text: str = Field(min_length=1, max_length=500)
    created_session: int
    invoked_this_session: bool = False
    crossed_out: bool = False


class Sheet(BaseModel):
    """A protagonist. Validation enforces the ranges of §2.2; pass ``context={"settings": ...}``
    to validate against a campaign's box counts and crash level (defaults otherwise)."""

    model_config = _FROZEN

    name: str = Field(min_length=1, max_length=120)
    player: str = Field("", max_length=120)
    discipline_base: int = Field(3, ge=1, le=6)
    discipline: int = Field(3, ge=0, le=6)
    discipline_restore_to: int | None = Field(None, ge=0, le=6)
    exhaustion: int = Field(0, ge=0, le=7)
    fight: int = Field(0, ge=0)
    flight: int = Field(0, ge=0)
    permanent_madness: int = Field(0, ge=0)
    exhaustion_talent: Talent
    madness_talent: MadnessTalent
    talent_swaps: tuple[TalentSwap, ...] = ()
    scars: tuple[Scar, ...] = ()
    scar_created_session: int | None = None
    status: Status = Status.AWAKE
    snap_episode: bool = False
    snap_scene_id: str | None = None
    nightmare_pain: int | None = Field(None, ge=1)  # set when the PC became a Nightmare (§2.3 from_pc)
    voluntary_increase_scene: str | None = None  # bookkeeping for voluntary_increase_scope=per_scene

    @model_validator(mode="after")
    def _ranges(self, info: ValidationInfo) -> Sheet:
        settings: Settings = (info.context or {}).get("settings", DEFAULT_SETTINGS)
        if self.discipline > self.discipline_base:
            raise ValueError("discipline can't exceed discipline_base")
        limit = (
            settings.crash_level
            # A crash-pending PC may also snap into a Nightmare (or be removed) while at 7.
            if self.status in (Status.CRASH_PENDING, Status.NIGHTMARE, Status.REMOVED)
            else settings.crash_when_exhaustion_exceeds
        )
        if self.exhaustion > limit:
            raise ValueError(f"exhaustion {self.exhaustion} is above {limit} for status {self.status}")
        if self.fight > settings.fight_boxes or self.flight > settings.flight_boxes:
            raise ValueError("more response boxes checked than the campaign has")
        if self.discipline == 0 and self.status not in (Status.NIGHTMARE, Status.REMOVED):
            raise ValueError("discipline 0 means the PC is a Nightmare")
        if self.discipline_restore_to is not None and self.status not in (
            Status.ASLEEP,
            Status.RECOVERING,
            Status.CRASH_PENDING,  # crashed again while recovering
            Status.NIGHTMARE,
        ):
            raise ValueError("discipline_restore_to is only set while asleep or recovering")
        return self

    @property
    def talents_available(self) -> bool:
        """(S) no talents while asleep or recovering from a crash."""
        return self.status not in (Status.ASLEEP, Status.RECOVERING)

    @property
    def can_roll(self) -> bool:
        return self.status not in (Status.ASLEEP, Status.NIGHTMARE, Status.REMOVED)

    def active_talent(self, kind: Literal["exhaustion", "madness"]) -> Talent:
        """The talent usable now: the newest swap of that kind replaces the original (S)."""
        for swap in reversed(self.talent_swaps):
            if swap.kind == kind:
                return swap.replacement
        return self.exhaustion_talent if kind == "exhaustion" else self.madness_talent

    def invariant_holds(self) -> bool:
        """Warning only (§2.2): discipline (or the one to restore) + permanent madness = base."""
        d = self.discipline_restore_to if self.discipline_restore_to is not None else self.discipline
        return d + self.permanent_madness == self.discipline_base


def new_protagonist(
    name: str,
    exhaustion_talent: Talent,
    madness_talent: MadnessTalent,
    player: str = "",
) -> Sheet:
    """A fresh PC by the creation rules: discipline 3, exhaustion 0 (R, B-AMB-34), clear boxes."""
    return Sheet(name=name, player=player, exhaustion_talent=exhaustion_talent, madness_talent=madness_talent)


def check_creation(sheet: Sheet) -> Sheet:
    """Refuse a sheet that breaks the creation rules (§2.2); return it unchanged otherwise."""
    problems = []
    if sheet.discipline_base != 3 or sheet.discipline != 3:
        problems.append("discipline")
    if sheet.exhaustion != 0:
        problems.append("exhaustion")
    if sheet.fight or sheet.flight:
        problems.append("responses")
    if sheet.permanent_madness:
        problems.append("permanent_madness")
    if sheet.scars or sheet.talent_swaps:
        problems.append("scars")
    if sheet.status != Status.AWAKE:
        problems.append("status")
    if problems:
        refuse("CREATION_RULES", fields=problems)
    return sheet
