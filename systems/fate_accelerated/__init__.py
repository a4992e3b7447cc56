"""Fate Accelerated (FAE): approaches, four actions, stress boxes 1-3, consequences 2/4/6.

Spec: /work/shared/rules/fate-accelerated.md (seed 001). Builds one Ruleset.
"""

from __future__ import annotations

from systems.fate_accelerated.aspects import Severity
from systems.fate_accelerated.operations import OPERATIONS
from systems.fate_accelerated.roll_kinds import ROLL_KINDS, resolve
from systems.fate_accelerated.settings import FaeSettings
from systems.fate_accelerated.sheet import FaeSheet
from systems.registry import Names, PoolSpec, Ruleset, Scope, TrackSpec

KEY = "fate-accelerated"

POOLS = (
    PoolSpec("fate_points", Names("Puntos de destino", "Fate points"), Scope.CHARACTER, minimum=0, initial=3),
    # [P] only used when gm_fate_point_pool is on (§6.7.4); otherwise the GM's FP are unlimited.
    PoolSpec("gm_fate_points", Names("Puntos de destino del DJ", "GM fate points"), Scope.CAMPAIGN, minimum=0),
)

TRACKS = (
    TrackSpec("stress", Names("Contador de estrés", "Stress track"), kind="boxes", size=3),
    TrackSpec("consequences", Names("Consecuencias", "Consequences"), kind="slots", size=len(Severity)),
)

RULESET = Ruleset(
    key=KEY,
    names=Names("Fate Acelerado", "Fate Accelerated"),
    sheet_model=FaeSheet,
    settings_model=FaeSettings,
    roll_kinds=ROLL_KINDS,
    pools=POOLS,
    tracks=TRACKS,
    operations=OPERATIONS,
    resolve=resolve,
)


__all__ = ["KEY", "RULESET"]
