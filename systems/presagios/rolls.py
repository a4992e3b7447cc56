"""Roll kinds of Presagios: request models (validated at the edge) and ``resolve`` dispatch."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from systems.dice import DiceSource
from systems.errors import RulesError
from systems.presagios.challenge import ChallengeResult, check_difficulty, resolve_challenge
from systems.presagios.conflict import ConflictResult, SideRoll, resolve_conflict
from systems.presagios.dice import CoreRoll, check_tool_dice, pool_size, roll_pool
from systems.presagios.settings import DEFAULT_SETTINGS, PresagiosSettings
from systems.presagios.sheet import TRAIT_MAX, Kind

MAX_RATING = 20  # bounds the pool an untrusted request can ask for


class RollRequest(BaseModel):
    """A plain Presagios roll: current rating + tool dice, plus the approved trait."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    current: int = Field(le=MAX_RATING)
    tool_dice: int = 0
    trait_bonus: int = Field(default=0, ge=0, le=TRAIT_MAX)

    @field_validator("tool_dice")
    @classmethod
    def _tools(cls, value: int) -> int:
        return check_tool_dice(value)  # raises RulesError TOOL_DICE_RANGE, the spec's code


class ChallengeRequest(RollRequest):
    difficulty: int  # sealed: it never appears in the result

    @field_validator("difficulty")
    @classmethod
    def _difficulty(cls, value: int) -> int:
        return check_difficulty(value)


class ConflictSideRequest(RollRequest):
    kind: Kind


class ConflictRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    a: ConflictSideRequest
    b: ConflictSideRequest


REQUEST_MODELS: dict[str, type[BaseModel]] = {
    "roll": RollRequest,
    "challenge": ChallengeRequest,
    "conflict": ConflictRequest,
}


def _side(side: ConflictSideRequest) -> SideRoll:
    return SideRoll(side.kind, side.current, side.tool_dice, side.trait_bonus)


def _settings(settings: PresagiosSettings | dict[str, Any] | None) -> PresagiosSettings:
    if settings is None:
        return DEFAULT_SETTINGS
    if isinstance(settings, PresagiosSettings):
        return settings
    return PresagiosSettings.model_validate(settings)


def resolve(
    kind_key: str,
    request: BaseModel | dict[str, Any],
    dice: DiceSource,
    settings: PresagiosSettings | dict[str, Any] | None = None,
) -> CoreRoll | ChallengeResult | ConflictResult:
    """Validate ``request`` for ``kind_key`` once, then run the plain-int resolver."""
    model = REQUEST_MODELS.get(kind_key)
    if model is None:
        raise RulesError(
            "unknown_roll_kind",
            f"«{kind_key}» no es una tirada de Presagios.",
            f"'{kind_key}' is not a Presagios roll kind.",
        )
    req = request if isinstance(request, model) else model.model_validate(request)
    rules = _settings(settings)
    if isinstance(req, ChallengeRequest):
        return resolve_challenge(dice, req.current, req.difficulty, req.tool_dice, req.trait_bonus, rules)
    if isinstance(req, ConflictRequest):
        return resolve_conflict(dice, _side(req.a), _side(req.b), rules)
    assert isinstance(req, RollRequest)
    return roll_pool(dice, pool_size(req.current, req.tool_dice), req.trait_bonus, rules)
