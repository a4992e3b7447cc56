"""The one roll kind of the generic ruleset, ``notation``: its request model and resolver."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from systems.dice import DiceSource
from systems.errors import RulesError
from systems.generic.evaluate import RollResult, roll_notation

NOTATION = "notation"


class NotationRequest(BaseModel):
    """A roll as asked for by a player or the API: ``{"expression": "1d20+5", "label": "ataque"}``.

    ``expression`` has no length limit here on purpose: the rules refuse a long one with the
    ``notation_too_long`` RulesError, the same code whichever way the text arrived.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    expression: str
    label: str | None = Field(default=None, max_length=100)


def resolve(
    kind_key: str,
    request: NotationRequest | Mapping[str, Any],
    dice: DiceSource,
    settings: BaseModel | None = None,
) -> RollResult:
    """Resolve a roll of kind ``kind_key`` (only ``notation``) with the injected ``dice``."""
    if kind_key != NOTATION:
        raise RulesError(
            "unknown_roll_kind",
            f"«{kind_key}» no es una tirada de Genérico.",
            f"'{kind_key}' is not a roll kind of Generic.",
        )
    if not isinstance(request, NotationRequest):
        request = NotationRequest.model_validate(request)
    return roll_notation(request.expression, dice, label=request.label)
