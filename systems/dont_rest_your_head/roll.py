"""Building the rolls of a conflict (§3.2): the leader's three pools, helpers' discipline, pain.

Request models validate untrusted input at the edge; the builders apply the rules and draw dice
from an injected source. Ranges the spec refuses with its own codes (temporary madness 0..6,
pain >= 1) are checked here, not by pydantic, so clients get the spec's code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from systems.dice import DiceSource, roll_many
from systems.dont_rest_your_head.refusals import refuse
from systems.dont_rest_your_head.settings import DEFAULT_SETTINGS, IncreaseScope, Settings
from systems.dont_rest_your_head.sheet import MadnessTalent, Sheet

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class LeaderRollRequest(BaseModel):
    """The player's choices before rolling (§3.10 step 3)."""

    model_config = _FROZEN

    voluntary_increase: bool = False
    temp_madness: int = Field(0, ge=-99, le=99)  # 0..6 enforced as MADNESS_RANGE
    talent_use: Literal["minor", "major"] | None = None  # minor is usually declared after the reveal
    madness_talent: bool = False


class HelperRollRequest(BaseModel):
    """A helper rolls discipline only; the talent fields exist so a refusal can be explained."""

    model_config = _FROZEN

    talent_use: Literal["minor", "major"] | None = None
    madness_talent: bool = False


class PainRollRequest(BaseModel):
    model_config = _FROZEN

    pain: int = Field(ge=-99, le=99)  # >= 1 enforced as PAIN_RANGE


@dataclass(frozen=True)
class LeaderRoll:
    """The dice a protagonist rolled with all three pools, as rolled (evidence, never edited)."""

    pc: str
    discipline: tuple[int, ...]
    exhaustion: tuple[int, ...]
    madness: tuple[int, ...]
    exhaustion_at_roll: int
    temp_madness: int
    talent_use: Literal["minor", "major"] | None = None
    madness_talent: bool = False
    voluntary_increase: bool = False

    @property
    def pool_size(self) -> int:
        """(R, B-AMB-15) the dice rolled, before hope 1s or shading: a Nightmare's pain."""
        return len(self.discipline) + len(self.exhaustion) + len(self.madness)

    def all_successes(self) -> int:
        return sum(1 for d in (*self.discipline, *self.exhaustion, *self.madness) if d <= 3)


@dataclass(frozen=True)
class HelperRoll:
    pc: str
    discipline: tuple[int, ...]
    # In unclear-leader mode a non-leader rolled full pools; their snap pool counts every die.
    full_pool_size: int | None = None

    @property
    def pool_size(self) -> int:
        return self.full_pool_size if self.full_pool_size is not None else len(self.discipline)


@dataclass(frozen=True)
class PainRoll:
    dice: tuple[int, ...]


def madness_required(sheet: Sheet, gm_price: int | None) -> int:
    """Temporary madness dice the madness talent needs: the GM's price, never below the talent's
    own rule, and at least 1 (S). Permanent dice don't count."""
    talent = sheet.active_talent("madness")
    # A swapped-in replacement has no price rule of its own: the GM's price governs it.
    rule_floor = talent.price_rule.floor() if isinstance(talent, MadnessTalent) else 1
    return max(gm_price or 0, rule_floor, 1)


def prepare_leader_roll(
    sheet: Sheet,
    request: LeaderRollRequest,
    settings: Settings = DEFAULT_SETTINGS,
    madness_price: int | None = None,
    scene_id: str | None = None,
) -> tuple[Sheet, int, int]:
    """Validate the choices and apply the voluntary increase (S: permanent, made now).

    Returns the new sheet, the exhaustion dice and the madness dice to roll.
    """
    if not sheet.can_roll:
        refuse("CANNOT_ROLL", status=sheet.status.value)
    if (request.talent_use or request.madness_talent) and not sheet.talents_available:
        refuse("TALENTS_UNAVAILABLE")
    if request.talent_use == "minor" and request.voluntary_increase is False and sheet.exhaustion < 1:
        refuse("MINOR_NEEDS_EXHAUSTION")
    # (R, B-AMB-05) the major use IS this roll's voluntary increase: never +2.
    increase = request.voluntary_increase or request.talent_use == "major"
    if increase:
        if sheet.exhaustion >= settings.crash_when_exhaustion_exceeds:
            refuse("EXHAUSTION_CAP", exhaustion=sheet.exhaustion)
        if (
            settings.voluntary_increase_scope == IncreaseScope.PER_SCENE
            and scene_id is not None
            and sheet.voluntary_increase_scene == scene_id
        ):
            refuse("ONCE_PER_ROLL", scope="scene")
    if not 0 <= request.temp_madness <= 6:
        refuse("MADNESS_RANGE", temp_madness=request.temp_madness)
    if request.madness_talent:
        needed = madness_required(sheet, madness_price)
        if request.temp_madness < needed:
            refuse("MADNESS_PRICE", needed=needed, offered=request.temp_madness)
    if increase:
        sheet = sheet.model_copy(update={"exhaustion": sheet.exhaustion + 1, "voluntary_increase_scene": scene_id})
    return sheet, sheet.exhaustion, sheet.permanent_madness + request.temp_madness


def build_leader_roll(
    pc: str,
    sheet: Sheet,
    request: LeaderRollRequest,
    dice: DiceSource,
    settings: Settings = DEFAULT_SETTINGS,
    madness_price: int | None = None,
    scene_id: str | None = None,
) -> tuple[Sheet, LeaderRoll]:
    """§3.2: all discipline dice, all current exhaustion dice, permanent + temporary madness."""
    sheet, exhaustion, madness = prepare_leader_roll(sheet, request, settings, madness_price, scene_id)
    roll = LeaderRoll(
        pc=pc,
        discipline=roll_many(dice, sheet.discipline, 6),
        exhaustion=roll_many(dice, exhaustion, 6),
        madness=roll_many(dice, madness, 6),
        exhaustion_at_roll=exhaustion,
        temp_madness=request.temp_madness,
        talent_use=request.talent_use,
        madness_talent=request.madness_talent,
        voluntary_increase=request.voluntary_increase or request.talent_use == "major",
    )
    return sheet, roll


def build_helper_roll(pc: str, sheet: Sheet, request: HelperRollRequest, dice: DiceSource) -> HelperRoll:
    """(S) a helper rolls only discipline dice and may not use talents."""
    if request.talent_use or request.madness_talent:
        refuse("HELPER_NO_TALENTS")
    if not sheet.can_roll:
        refuse("CANNOT_ROLL", status=sheet.status.value)
    return HelperRoll(pc=pc, discipline=roll_many(dice, sheet.discipline, 6))


def build_pain_roll(pain: int, dice: DiceSource) -> PainRoll:
    if pain < 1:
        refuse("PAIN_RANGE", pain=pain)  # (R, B-AMB-26)
    return PainRoll(dice=roll_many(dice, pain, 6))
