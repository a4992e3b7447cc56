"""The registry ``key -> Ruleset``: what each game offers, for the rest of Tintero to discover.

A ruleset module builds one :class:`Ruleset` and registers it at import time; ``systems/__init__``
imports every ruleset module so the registry is complete after ``import systems``.
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


RULESETS: dict[str, Ruleset] = {}


def register(ruleset: Ruleset) -> Ruleset:
    if ruleset.key in RULESETS:
        raise ValueError(f"ruleset {ruleset.key!r} registered twice")
    RULESETS[ruleset.key] = ruleset
    return ruleset


def get_ruleset(key: str) -> Ruleset:
    _load_all()
    try:
        return RULESETS[key]
    except KeyError:
        raise RulesError(
            "unknown_ruleset",
            f"No existe el sistema de juego «{key}».",
            f"There is no ruleset '{key}'.",
        ) from None


# The keys every layer above systems/ may store (campaigns keep one); each has a module below.
RULESET_KEYS = ("fate-sotc", "fate-accelerated", "event", "presagios", "dont-rest-your-head", "generic")


def ruleset_module(key: str) -> str:
    """The Python module name of a ruleset key (``fate-sotc`` -> ``fate_sotc``), shared by every layer that
    keeps one module per ruleset (systems, bindings, builders, flows, templates)."""
    if key not in RULESET_KEYS:
        raise RulesError(
            "unknown_ruleset",
            f"No existe el sistema de juego «{key}».",
            f"There is no ruleset '{key}'.",
        )
    return key.replace("-", "_")


def import_ruleset_part(package: str, key: str, *, optional: bool = False) -> Any:
    """Import ``<package>.<module of key>``; with ``optional``, None when that module does not exist."""
    import importlib

    name = f"{package}.{ruleset_module(key)}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if optional and exc.name == name:
            return None
        raise


RULESET_MODULES = (
    "systems.generic",
    "systems.fate_sotc",
    "systems.fate_accelerated",
    "systems.event",
    "systems.presagios",
    "systems.dont_rest_your_head",
)


def _load_all() -> None:
    import importlib

    for name in RULESET_MODULES:
        importlib.import_module(name)


def all_rulesets() -> dict[str, Ruleset]:
    _load_all()
    return dict(RULESETS)
