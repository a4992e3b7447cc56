"""FATE 3.0, Spirit of the Century (Spanish SRD): the ``fate-sotc`` ruleset (spec rules/fate-sotc.md).

Modules by game concept: ``dice`` (4dF), ``ladder``, ``resolution`` (effort, simple/opposed actions,
attacks, blocks), ``combine``, ``movement``, ``conflict`` (initiative, exchanges, spin), ``stress``,
``consequences``, ``defeat`` (taken out, concession, tenacity), ``fate_points`` (wallet and ledger),
``aspects``, ``invocation`` (the invocation window), ``compels``, ``maneuvers``, ``guessing``,
``minions``, ``sheet``, ``settings``, ``rolls`` (roll kinds) and ``operations`` (sheet transitions).
"""

from __future__ import annotations

from systems.fate_sotc.operations import build_operations
from systems.fate_sotc.rolls import REQUEST_MODELS, resolve
from systems.fate_sotc.settings import FateSotcSettings
from systems.fate_sotc.sheet import FateSotcSheet
from systems.registry import Names, PoolSpec, RollKind, Ruleset, Scope, TrackSpec

KEY = "fate-sotc"

_ROLL_NAMES: dict[str, tuple[str, str]] = {
    "effort": ("Tirada", "Roll"),
    "simple": ("Acción simple", "Simple action"),
    "opposed": ("Acción opuesta", "Opposed action"),
    "attack": ("Ataque", "Attack"),
    "maneuver": ("Maniobra sobre un personaje", "Maneuver on a character"),
    "block": ("Bloqueo", "Block"),
    "sprint": ("Desplazarse (Atletismo)", "Sprint (Athletics)"),
}

ROLL_KINDS: tuple[RollKind, ...] = tuple(
    RollKind(key=key, names=Names(es=es, en=en), request_model=REQUEST_MODELS[key])
    for key, (es, en) in _ROLL_NAMES.items()
)

POOLS: tuple[PoolSpec, ...] = (
    # The spec defines no GM or campaign pool: spent PD go to an abstract, unlimited bank (A10).
    PoolSpec("fate_points", Names("Puntos de Destino", "Fate points"), Scope.CHARACTER, minimum=0),
    PoolSpec(
        "fate_points_pending",
        Names("Puntos de Destino pendientes", "Pending fate points"),
        Scope.CHARACTER,
        minimum=0,
    ),
)

TRACKS: tuple[TrackSpec, ...] = (
    TrackSpec("health", Names("Salud", "Health"), "boxes", None),  # 5..8 boxes from Vigor
    TrackSpec("composure", Names("Serenidad", "Composure"), "boxes", None),  # 5..8 boxes from Coraje
    TrackSpec("consequences", Names("Consecuencias", "Consequences"), "slots", 3),
)

RULESET = Ruleset(
    key=KEY,
    names=Names(es="FATE 3.0 — Spirit of the Century", en="FATE 3.0 — Spirit of the Century"),
    sheet_model=FateSotcSheet,
    settings_model=FateSotcSettings,
    roll_kinds=ROLL_KINDS,
    pools=POOLS,
    tracks=TRACKS,
    operations=build_operations(),
    resolve=resolve,
)


__all__ = ["KEY", "RULESET", "FateSotcSettings", "FateSotcSheet", "resolve"]
