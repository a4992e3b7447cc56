"""Roll requests validated from untrusted input (API, forms) and the ``resolve`` dispatcher.

Validation happens here, at the edge; the resolvers below it take plain values (no pydantic in the
hot path)."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from systems.dice import DiceSource
from systems.errors import RulesError
from systems.event.action import ActionState, Choice, choose, roll_action, start_action
from systems.event.creation import OrderRoll, roll_order
from systems.event.desafio import FistResult, Side, resolve_fist
from systems.event.pool import PoolBreakdown
from systems.event.rolling import DiceRules
from systems.event.settings import DEFAULT_SETTINGS, EventSettings


class ActionRollRequest(BaseModel):
    """An action roll: the locked pool's composition, the public difficulty and the player's choice.

    ``choice`` may be omitted to get the gate (and the choices offered) without rolling."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    difficulty: int = Field(ge=1, le=1000)
    skill_dice: int = Field(0, ge=0, le=61)  # 1 + improvements of the one related skill, or 0
    communal_die: bool = False
    reaction_dice: int = Field(0, ge=0, le=3)
    wild_die: bool = False
    talent_built: bool = False
    npc: bool = False
    choice: Choice | None = None

    @cached_property
    def pool(self) -> PoolBreakdown:
        return PoolBreakdown(
            skill_dice=self.skill_dice,
            communal=int(self.communal_die),
            reaction=self.reaction_dice,
            wild=int(self.wild_die),
            npc=self.npc,
            talent_built=self.talent_built,
        )


class FistTiebreakRequest(BaseModel):
    """A fist's counts per participant; the tied leaders roll (no talent/reckless decisions here)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    side: Side = Side.LEFT
    counts: dict[str, int] = Field(min_length=2, max_length=20)


class OrderRollRequest(BaseModel):
    """The Q3 turn-order roll (3 dice, more if exploding dice cover ``creation_order``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def _settings(settings: EventSettings | dict[str, Any] | None) -> EventSettings:
    if settings is None:
        return DEFAULT_SETTINGS
    if isinstance(settings, EventSettings):
        return settings
    return EventSettings.model_validate(settings)


def resolve_action(request: ActionRollRequest, dice: DiceSource, settings: EventSettings) -> ActionState:
    if request.choice is Choice.ROLL:
        return roll_action(request.pool, request.difficulty, dice, settings)
    state = start_action(request.pool, request.difficulty, settings)
    if request.choice is None:
        return state
    return choose(state, request.choice, dice)


def resolve_fist_tiebreak(request: FistTiebreakRequest, dice: DiceSource, settings: EventSettings) -> FistResult:
    if any(c < 0 for c in request.counts.values()):
        raise RulesError(
            "SPLIT_NEGATIVE",
            "Ningún puño puede tener dados negativos.",
            "A fist cannot hold a negative number of dice.",
        )
    return resolve_fist(
        request.side,
        request.counts,
        dice,
        DiceRules.for_scope(settings, "interactions"),
        settings.optional.total_challenge.enabled,
        settings.interpretations.empty_right_tie,
    )


def resolve_order_roll(request: OrderRollRequest, dice: DiceSource, settings: EventSettings) -> OrderRoll:
    return roll_order(dice, settings)


_RESOLVERS: dict[str, tuple[type[BaseModel], Any]] = {
    "action": (ActionRollRequest, resolve_action),
    "fist_tiebreak": (FistTiebreakRequest, resolve_fist_tiebreak),
    "order_roll": (OrderRollRequest, resolve_order_roll),
}


def resolve(
    kind_key: str,
    request: BaseModel | dict[str, Any],
    dice: DiceSource,
    settings: EventSettings | dict[str, Any] | None = None,
) -> object:
    """Dispatch a roll kind: validate the request (if raw) and the settings, then resolve."""
    try:
        model, resolver = _RESOLVERS[kind_key]
    except KeyError:
        raise RulesError(
            "unknown_roll_kind",
            f"«{kind_key}» no es una tirada de Event.",
            f"'{kind_key}' is not a roll kind of Event.",
        ) from None
    valid = request if isinstance(request, model) else model.model_validate(request)
    return resolver(valid, dice, _settings(settings))
