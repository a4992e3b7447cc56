"""Presagios: a horror ruleset of threat and omens (spec rules/presagios.md, seed 003).

Keep-highest d6 with a duplicate bonus, a secret difficulty, omens that raise threat, and script
protection bought with overcome points. Builds the ``presagios`` Ruleset.
"""

from __future__ import annotations

from systems.presagios.challenge import ChallengeFlow, ChallengeResult, resolve_challenge
from systems.presagios.conflict import ConflictFlow, ConflictResult, resolve_conflict
from systems.presagios.dice import TOOL_DICE, CoreRoll, Tool, core_result, pool_size, roll_pool
from systems.presagios.operations import OPERATIONS
from systems.presagios.rolls import ChallengeRequest, ConflictRequest, RollRequest, resolve
from systems.presagios.settings import PresagiosSettings
from systems.presagios.sheet import PresagiosSheet, create_character, valid_base_triples
from systems.presagios.table import Table
from systems.registry import Names, PoolSpec, RollKind, Ruleset, Scope, TrackSpec

KEY = "presagios"

ROLL_KINDS = (
    RollKind(
        key="roll",
        names=Names(es="Tirada", en="Roll"),
        request_model=RollRequest,
        description=Names(
            es="Dados según la puntuación actual + herramientas; el mayor, +1 por repetido, + rasgo.",
            en="Dice by current rating + tools; the highest, +1 per duplicate, + trait.",
        ),
    ),
    RollKind(
        key="challenge",
        names=Names(es="Reto", en="Challenge"),
        request_model=ChallengeRequest,
        description=Names(
            es="Contra una dificultad secreta: solo se anuncia éxito o fallo.",
            en="Against a secret difficulty: only success or failure is announced.",
        ),
    ),
    RollKind(
        key="conflict",
        names=Names(es="Conflicto", en="Conflict"),
        request_model=ConflictRequest,
        description=Names(
            es="Dos tiradas enfrentadas; los principales ganan los empates a secundarios y monstruos.",
            en="Two opposed rolls; main characters win ties against secondaries and monsters.",
        ),
    ),
)

POOLS = (
    PoolSpec(key="threat", names=Names(es="Amenaza", en="Threat"), scope=Scope.CAMPAIGN, minimum=0, initial=0),
    PoolSpec(
        key="overcome",
        names=Names(es="Puntos de superación", en="Overcome points"),
        scope=Scope.CHARACTER,
        minimum=0,
        initial=5,
    ),
)

TRACKS = (
    # the characteristics are the damage tracks: damage lowers ``current`` (may go below 0)
    TrackSpec(key="c1", names=Names(es="Acción", en="Action"), kind="counter"),
    TrackSpec(key="c2", names=Names(es="Interacción", en="Interaction"), kind="counter"),
    TrackSpec(key="c3", names=Names(es="Cognición", en="Cognition"), kind="counter"),
)

RULESET = Ruleset(
    key=KEY,
    names=Names(es="Presagios", en="Presagios (Omens)"),
    sheet_model=PresagiosSheet,
    settings_model=PresagiosSettings,
    roll_kinds=ROLL_KINDS,
    pools=POOLS,
    tracks=TRACKS,
    operations=OPERATIONS,
    resolve=resolve,
    extras={
        "tool_dice": {str(tool): dice for tool, dice in TOOL_DICE.items()},
        "valid_base_triples": tuple(valid_base_triples()),
        "create_character": create_character,
    },
)

__all__ = [
    "KEY",
    "RULESET",
    "ChallengeFlow",
    "ChallengeResult",
    "ConflictFlow",
    "ConflictResult",
    "CoreRoll",
    "PresagiosSettings",
    "PresagiosSheet",
    "Table",
    "Tool",
    "core_result",
    "create_character",
    "pool_size",
    "resolve",
    "resolve_challenge",
    "resolve_conflict",
    "roll_pool",
]
