"""What a game offers, described in pure Python: :class:`Ruleset` and its parts.

Each ruleset package builds one :class:`Ruleset` as its ``RULESET``. The one registry of games is
Django-side (``rulesets.registry``): each game's plugin names its ``RULESET`` there at startup.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from systems.errors import RulesError


@dataclass(frozen=True)
class Names:
    """A user-facing name in both product languages."""

    es: str
    en: str

    def get(self, language: str = "es") -> str:
        return self.en if language.startswith("en") else self.es


class Scope(StrEnum):
    CAMPAIGN = "campaign"  # belongs to no sheet: GM fate points, threat, hope, despair
    CHARACTER = "character"  # lives on a sheet: fate points, stress, exhaustion...


@dataclass(frozen=True)
class PoolSpec:
    """A shared number (a pool of points/coins) that changes only through the ledger."""

    key: str
    names: Names
    scope: Scope
    minimum: int = 0
    maximum: int | None = None
    initial: int = 0


@dataclass(frozen=True)
class TrackSpec:
    """A per-character track (stress boxes, consequences, exhaustion, madness...)."""

    key: str
    names: Names
    kind: str  # "boxes", "slots", "counter"
    size: int | None = None


@dataclass(frozen=True)
class RollKind:
    """A roll a player or GM can ask for (``resolve`` dispatches on ``key``).

    ``request_model`` validates the request from untrusted input (API, forms).
    """

    key: str
    names: Names
    request_model: type[BaseModel] | None = None
    description: Names | None = None


@dataclass(frozen=True)
class Operation:
    """A named state transition of a sheet or a campaign pool (mark stress, spend hope...).

    ``apply(state, params, settings)`` is pure: it returns the new state (never mutating the old one)
    or raises RulesError. ``params_model`` validates params from untrusted input. Services look
    operations up by key, apply them under a row lock and write the ledger entry.
    """

    key: str
    names: Names
    target: Scope
    params_model: type[BaseModel] | None
    apply: Callable[..., Any]


@dataclass(frozen=True)
class Ruleset:
    """Everything Tintero needs to know about one game.

    ``sheet_model`` validates a character sheet (pydantic, from untrusted JSON);
    ``settings_model`` holds the campaign settings with the spec's recommended defaults;
    ``resolve(kind, request, dice)`` resolves a roll kind and returns an immutable result.
    """

    key: str
    names: Names
    sheet_model: type[BaseModel] | None
    settings_model: type[BaseModel] | None
    roll_kinds: tuple[RollKind, ...]
    pools: tuple[PoolSpec, ...] = ()
    tracks: tuple[TrackSpec, ...] = ()
    operations: tuple[Operation, ...] = ()
    resolve: Callable[..., Any] | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)

    def default_settings(self) -> BaseModel | None:
        return self.settings_model() if self.settings_model is not None else None

    def roll_kind(self, key: str) -> RollKind:
        for kind in self.roll_kinds:
            if kind.key == key:
                return kind
        raise RulesError(
            "unknown_roll_kind",
            f"«{key}» no es una tirada de {self.names.es}.",
            f"'{key}' is not a roll kind of {self.names.en}.",
        )

    def operation(self, key: str) -> Operation:
        for op in self.operations:
            if op.key == key:
                return op
        raise RulesError(
            "unknown_operation",
            f"«{key}» no es una operación de {self.names.es}.",
            f"'{key}' is not an operation of {self.names.en}.",
        )
