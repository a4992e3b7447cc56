"""No te Duermas (Don't Rest Your Head): discipline, exhaustion, madness and pain; hope and despair.

Builds the ``dont-rest-your-head`` ruleset. Spec: rules/dont-rest-your-head.md.
"""

from __future__ import annotations

from systems.dont_rest_your_head.coins import Chest
from systems.dont_rest_your_head.conflict import Conflict, ConflictState, Table, declare, declare_group
from systems.dont_rest_your_head.operations import OPERATIONS, ROLLING_OPERATIONS, Party, PcAndChest
from systems.dont_rest_your_head.resolve import REQUEST_MODELS, resolve
from systems.dont_rest_your_head.settings import Settings
from systems.dont_rest_your_head.sheet import Sheet, Status
from systems.registry import Names, PoolSpec, RollKind, Ruleset, Scope, TrackSpec

KEY = "dont-rest-your-head"

ROLL_KINDS: tuple[RollKind, ...] = (
    RollKind(
        "conflict",
        Names("Conflicto completo", "Whole conflict"),
        REQUEST_MODELS["conflict"],
        Names(
            "Disciplina, agotamiento y locura contra dolor, con ayudantes; calcula grado y reserva dominante.",
            "Discipline, exhaustion and madness against pain, with helpers; computes degree and domination.",
        ),
    ),
    RollKind("leader", Names("Tirada del protagonista", "Leader's roll"), REQUEST_MODELS["leader"]),
    RollKind("helper", Names("Tirada de ayuda (disciplina)", "Helper's roll (discipline)"), REQUEST_MODELS["helper"]),
    RollKind("pain", Names("Tirada de dolor", "Pain roll"), REQUEST_MODELS["pain"]),
)

POOLS: tuple[PoolSpec, ...] = (
    PoolSpec("despair", Names("Cofre de desesperación", "Despair chest"), Scope.CAMPAIGN),
    PoolSpec("hope", Names("Cofre de esperanza", "Hope chest"), Scope.CAMPAIGN),
    PoolSpec("despair_spent", Names("Esperanza pendiente", "Pending hope"), Scope.CAMPAIGN),
    PoolSpec("discipline", Names("Disciplina", "Discipline"), Scope.CHARACTER, 0, 6, 3),
    PoolSpec("permanent_madness", Names("Locura permanente", "Permanent madness"), Scope.CHARACTER),
)

TRACKS: tuple[TrackSpec, ...] = (
    TrackSpec("exhaustion", Names("Agotamiento", "Exhaustion"), "counter", 6),
    TrackSpec("fight", Names("Casillas de lucha", "Fight boxes"), "boxes", 3),
    TrackSpec("flight", Names("Casillas de huida", "Flight boxes"), "boxes", 3),
    TrackSpec("scars", Names("Cicatrices", "Scars"), "slots"),
)

RULESET = Ruleset(
    key=KEY,
    names=Names("No te Duermas", "Don't Rest Your Head"),
    sheet_model=Sheet,
    settings_model=Settings,
    roll_kinds=ROLL_KINDS,
    pools=POOLS,
    tracks=TRACKS,
    operations=OPERATIONS,
    resolve=resolve,
    extras={
        "rolling_operations": ROLLING_OPERATIONS,
        "declare_conflict": declare,
        "declare_group_conflict": declare_group,
        "chest_model": Chest,
    },
)

__all__ = [
    "KEY",
    "RULESET",
    "Chest",
    "Conflict",
    "ConflictState",
    "Party",
    "PcAndChest",
    "Settings",
    "Sheet",
    "Status",
    "Table",
]
