"""The roll kinds offered to the rest of Tintero and ``resolve`` (validation at the edge, fast inside)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from systems.dice import DiceSource
from systems.errors import RulesError
from systems.fate_accelerated.actions import ACTION_NAMES, Action, Approach
from systems.fate_accelerated.dice import dice_sum, roll_4df
from systems.fate_accelerated.ladder import Outcome, classify
from systems.fate_accelerated.settings import FaeSettings, settings_or_default
from systems.registry import Names, RollKind

FATE_DICE = "fate_dice"


class ActionRollRequest(BaseModel):
    """One action roll: the approach rating and bonuses are snapshotted by the caller from the sheet."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    approach: Approach
    approach_rating: int = Field(ge=0, le=8)
    stunt_bonus: int = Field(0, ge=0, le=10, multiple_of=2)  # +2 per applicable stunt
    helpers: int = Field(0, ge=0, le=10)  # +1 per helper
    helpers_gm_override: bool = False  # the GM may allow more than max_helpers on this roll
    difficulty: int | None = Field(None, ge=-10, le=30)  # None: opposed, the target comes later


class FateDiceRequest(BaseModel):
    """A bare 4dF roll with a flat modifier (a quick GM roll, an NPC mook's +2/-2)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    modifier: int = Field(0, ge=-10, le=20)
    difficulty: int | None = Field(None, ge=-10, le=30)


@dataclass(frozen=True, slots=True)
class FaeRollResult:
    kind: str
    faces: str
    dice_sum: int
    modifier: int
    total: int
    difficulty: int | None
    outcome: Outcome | None
    shifts: int | None


def resolve_roll(kind: str, dice: DiceSource, modifier: int, difficulty: int | None) -> FaeRollResult:
    """The hot path: four dice, a sum, a comparison."""
    faces = roll_4df(dice)
    base = dice_sum(faces)
    total = base + modifier
    if difficulty is None:
        return FaeRollResult(kind, faces, base, modifier, total, None, None, None)
    outcome, shifts = classify(total, difficulty)
    return FaeRollResult(kind, faces, base, modifier, total, difficulty, outcome, shifts)


def resolve(
    kind_key: str,
    request: BaseModel | Mapping[str, Any],
    dice: DiceSource,
    settings: FaeSettings | None = None,
) -> FaeRollResult:
    """Resolve one roll of ``kind_key``; a mapping request is validated here, at the edge."""
    s = settings_or_default(settings)
    if kind_key == FATE_DICE:
        req = request if isinstance(request, FateDiceRequest) else FateDiceRequest.model_validate(request)
        return resolve_roll(kind_key, dice, req.modifier, req.difficulty)
    try:
        Action(kind_key)
    except ValueError:
        raise RulesError(
            "unknown_roll_kind",
            f"«{kind_key}» no es una tirada de Fate Acelerado.",
            f"'{kind_key}' is not a Fate Accelerated roll kind.",
        ) from None
    act = request if isinstance(request, ActionRollRequest) else ActionRollRequest.model_validate(request)
    if act.helpers > s.max_helpers and not act.helpers_gm_override:
        raise RulesError(
            "too_many_helpers",
            f"Solo pueden ayudar {s.max_helpers} aliados en esta tirada.",
            f"Only {s.max_helpers} allies may help on this roll.",
        )
    if kind_key == Action.DEFEND and act.difficulty is not None:
        raise RulesError(
            "defend_is_opposed",
            "Defender es siempre una reacción a la tirada de otro.",
            "Defend is always a reaction to someone else's roll.",
        )
    return resolve_roll(kind_key, dice, act.approach_rating + act.stunt_bonus + act.helpers, act.difficulty)


ROLL_KINDS: tuple[RollKind, ...] = (
    *(
        RollKind(
            key=a.value,
            names=ACTION_NAMES[a],
            request_model=ActionRollRequest,
            description=Names(
                "4dF + estilo + proezas + ayuda, contra una dificultad o una tirada opuesta.",
                "4dF + approach + stunts + help, against a difficulty or an opposing roll.",
            ),
        )
        for a in Action
    ),
    RollKind(
        key=FATE_DICE,
        names=Names("Dados Fate (4dF)", "Fate dice (4dF)"),
        request_model=FateDiceRequest,
        description=Names("Cuatro dados Fate y un modificador.", "Four Fate dice and a modifier."),
    ),
)
