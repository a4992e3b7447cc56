"""The pure rules of coin flip: each character has a pool of luck; a flip tosses 1-5 coins and wins when
most of them show the side called. No Django here."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from systems.dice import DiceSource
from systems.errors import RulesError
from systems.registry import Names, Operation, PoolSpec, RollKind, Ruleset, Scope

Side = Literal["heads", "tails"]
HEADS = 2  # a coin is a d2: 2 is heads, 1 is tails


class CoinflipSheet(BaseModel):
    model_config = ConfigDict(extra="forbid")

    luck: int = Field(3, ge=0, le=10)


class CoinflipSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_luck: int = Field(10, ge=1, le=10)


class FlipRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    call: Side
    coins: int = Field(1, ge=1, le=5)


class Amount(BaseModel):
    model_config = ConfigDict(extra="forbid")

    amount: int = Field(1, ge=1, le=5)


def flip(request: FlipRequest, dice: DiceSource) -> dict[str, Any]:
    faces = [dice.roll(2) for _ in range(request.coins)]
    called = sum(1 for f in faces if (f == HEADS) == (request.call == "heads"))
    return {"faces": faces, "call": request.call, "won": called * 2 > len(faces)}


def resolve(kind: str, request: Any, dice: DiceSource) -> dict[str, Any]:
    return flip(FlipRequest.model_validate(request), dice)


def spend_luck(sheet: CoinflipSheet, params: Amount, settings: CoinflipSettings | None = None) -> CoinflipSheet:
    if sheet.luck < params.amount:
        raise RulesError("no_luck_left", "No te queda tanta suerte.", "You do not have that much luck left.")
    return sheet.model_copy(update={"luck": sheet.luck - params.amount})


def gain_luck(sheet: CoinflipSheet, params: Amount, settings: CoinflipSettings | None = None) -> CoinflipSheet:
    cap = settings.max_luck if settings is not None else 10
    return sheet.model_copy(update={"luck": min(cap, sheet.luck + params.amount)})


RULESET = Ruleset(
    key="coinflip",
    names=Names("Cara o cruz", "Coin flip"),
    sheet_model=CoinflipSheet,
    settings_model=CoinflipSettings,
    roll_kinds=(RollKind("flip", Names("Lanzar monedas", "Flip coins"), FlipRequest),),
    pools=(PoolSpec("luck", Names("Suerte", "Luck"), Scope.CHARACTER, initial=3),),
    operations=(
        Operation("spend_luck", Names("Gastar suerte", "Spend luck"), Scope.CHARACTER, Amount, spend_luck),
        Operation("gain_luck", Names("Ganar suerte", "Gain luck"), Scope.CHARACTER, Amount, gain_luck),
    ),
    resolve=resolve,
)
