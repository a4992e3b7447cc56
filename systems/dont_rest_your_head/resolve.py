"""Roll kinds and ``resolve`` (the registry's entry point for one-off rolls).

The hot path takes plain counts already validated at the edge (no pydantic inside), draws dice
from the injected source and computes the outcome.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from systems.dice import DiceSource, roll_many
from systems.dont_rest_your_head.outcome import Outcome, compute_outcome
from systems.dont_rest_your_head.refusals import refuse
from systems.dont_rest_your_head.roll import HelperRoll, LeaderRoll, PainRoll, build_pain_roll
from systems.errors import RulesError

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class ConflictRollRequest(BaseModel):
    """A whole conflict in one call (a table-side tool, a quick roll): pools given as dice counts.

    ``exhaustion`` is the number of exhaustion dice rolled (after any voluntary increase); ``madness``
    counts permanent plus temporary dice.
    """

    model_config = _FROZEN

    discipline: int = Field(3, ge=1, le=6)
    exhaustion: int = Field(0, ge=0, le=7)
    madness: int = Field(0, ge=0, le=24)
    pain: int = Field(ge=-99, le=30)  # >= 1 enforced as PAIN_RANGE
    helpers: tuple[int, ...] = ()  # each helper's discipline dice
    talent_use: Literal["minor", "major"] | None = None
    hope_ones: int = Field(0, ge=0, le=20)


class LeaderDiceRequest(BaseModel):
    """The leader's three pools, sizes computed by ``roll.prepare_leader_roll`` from the sheet."""

    model_config = _FROZEN

    discipline: int = Field(ge=1, le=6)
    exhaustion: int = Field(0, ge=0, le=7)
    madness: int = Field(0, ge=0, le=24)


class HelperDiceRequest(BaseModel):
    model_config = _FROZEN

    discipline: int = Field(ge=1, le=6)


class PainDiceRequest(BaseModel):
    model_config = _FROZEN

    pain: int = Field(ge=-99, le=30)  # >= 1 enforced as PAIN_RANGE


@dataclass(frozen=True)
class ConflictRoll:
    leader: LeaderRoll
    helpers: tuple[HelperRoll, ...]
    pain: PainRoll
    outcome: Outcome


def roll_conflict(
    discipline: int,
    exhaustion: int,
    madness: int,
    pain: int,
    dice: DiceSource,
    helpers: Sequence[int] = (),
    talent_use: Literal["minor", "major"] | None = None,
    hope_ones: int = 0,
) -> ConflictRoll:
    """Roll the leader's pools, each helper's discipline, then pain, and compute the outcome."""
    if pain < 1:
        refuse("PAIN_RANGE", pain=pain)
    if talent_use == "minor" and exhaustion < 1:
        refuse("MINOR_NEEDS_EXHAUSTION")
    d = roll_many(dice, discipline, 6)
    e = roll_many(dice, exhaustion, 6)
    m = roll_many(dice, madness, 6)
    helper_rolls = tuple(HelperRoll(pc=f"helper-{i}", discipline=roll_many(dice, n, 6)) for i, n in enumerate(helpers))
    p = roll_many(dice, pain, 6)
    leader = LeaderRoll(
        pc="leader",
        discipline=d,
        exhaustion=e,
        madness=m,
        exhaustion_at_roll=exhaustion,
        temp_madness=madness,
        talent_use=talent_use,
    )
    result = compute_outcome(
        d,
        e,
        m,
        p,
        helpers=[h.discipline for h in helper_rolls],
        talent_use=talent_use,
        exhaustion_at_roll=exhaustion,
        hope_ones=hope_ones,
    )
    return ConflictRoll(leader=leader, helpers=helper_rolls, pain=PainRoll(dice=p), outcome=result)


def roll_leader_dice(discipline: int, exhaustion: int, madness: int, dice: DiceSource) -> LeaderRoll:
    return LeaderRoll(
        pc="leader",
        discipline=roll_many(dice, discipline, 6),
        exhaustion=roll_many(dice, exhaustion, 6),
        madness=roll_many(dice, madness, 6),
        exhaustion_at_roll=exhaustion,
        temp_madness=0,
    )


def resolve(kind_key: str, request: Any, dice: DiceSource, settings: Any = None) -> object:
    """Dispatch one roll kind. ``request`` is its validated request model (or an equivalent dict)."""
    if isinstance(request, dict):
        model = REQUEST_MODELS.get(kind_key)
        if model is None:
            raise _unknown(kind_key)
        request = model.model_validate(request)
    if kind_key == "conflict":
        return roll_conflict(
            request.discipline,
            request.exhaustion,
            request.madness,
            request.pain,
            dice,
            helpers=request.helpers,
            talent_use=request.talent_use,
            hope_ones=request.hope_ones,
        )
    if kind_key == "leader":
        return roll_leader_dice(request.discipline, request.exhaustion, request.madness, dice)
    if kind_key == "helper":
        return HelperRoll(pc="helper", discipline=roll_many(dice, request.discipline, 6))
    if kind_key == "pain":
        return build_pain_roll(request.pain, dice)
    raise _unknown(kind_key)


def _unknown(kind_key: str) -> RulesError:
    return RulesError(
        "unknown_roll_kind",
        f"«{kind_key}» no es una tirada de No te Duermas.",
        f"'{kind_key}' is not a roll kind of Don't Rest Your Head.",
    )


REQUEST_MODELS: dict[str, type[BaseModel]] = {
    "conflict": ConflictRollRequest,
    "leader": LeaderDiceRequest,
    "helper": HelperDiceRequest,
    "pain": PainDiceRequest,
}
