"""*Event*, by Valerio de Sanctis (Spanish translation by Víctor López Díaz), licensed CC BY-NC-SA 4.0.

d6 pools against a complexity level, an automatic-outcome gate, ordered evaluation (absolute, partial,
critical, failure), vetoes, and interactions settled by sealed left/right fist splits (*desafío*).
Modules are named after the game's concepts; this package builds one :class:`Ruleset`, key ``event``.
"""

from __future__ import annotations

from systems.event import action, batch, bets, creation, desafio, narration, veto
from systems.event.communal import OpenSessionParams, TakeParams, open_communal_pool, take_communal_die
from systems.event.ladder import LEVEL_NAMES, OUTCOME_NAMES, VETO_THRESHOLD, Outcome, evaluate
from systems.event.reactions import (
    ValueReactionParams,
    WriteReactionParams,
    expire_reaction,
    reveal_reaction,
    use_reaction,
    value_reaction,
    write_reaction,
)
from systems.event.requests import ActionRollRequest, FistTiebreakRequest, OrderRollRequest, resolve
from systems.event.settings import EventSettings, setup_warnings
from systems.event.sheet import (
    AnswerParams,
    EventSheet,
    Pick,
    ProgressWindowParams,
    TalentParams,
    add_creation_pick,
    add_progress_pick,
    answer_appearance,
    answer_who_am_i,
    choose_talent,
    expire_progress,
    finish_creation,
    open_progress,
)
from systems.registry import Names, Operation, PoolSpec, RollKind, Ruleset, Scope

KEY = "event"

CREDITS = Names(
    "Event, de Valerio de Sanctis; traducción al español de Víctor López Díaz. Licencia CC BY-NC-SA 4.0: "
    "uso no comercial, y los textos derivados mantienen la misma licencia.",
    "Event, by Valerio de Sanctis; Spanish translation by Víctor López Díaz. Licence CC BY-NC-SA 4.0: "
    "non-commercial use, and derived text keeps the same licence.",
)

ROLL_KINDS = (
    RollKind(
        "action",
        Names("Acción", "Action"),
        ActionRollRequest,
        Names(
            "Reserva contra dificultad: éxito automático, o elegir entre tomar el resultado o tirar.",
            "Pool against difficulty: automatic success, or take the offered outcome or roll.",
        ),
    ),
    RollKind(
        "fist_tiebreak",
        Names("Desempate de puño (desafío)", "Fist tie-break (desafío)"),
        FistTiebreakRequest,
        Names(
            "Gana el puño con más dados; en empate tiran los empatados y cuenta el dado más alto.",
            "The fist with most dice wins; on a tie the tied roll and the highest die counts.",
        ),
    ),
    RollKind(
        "order_roll",
        Names("Orden de la pregunta 3", "Question 3 order roll"),
        OrderRollRequest,
        Names("Tres dados: el total más alto elige primero.", "Three dice: the highest total picks first."),
    ),
)

POOLS = (
    PoolSpec(
        "communal",
        Names("Reserva comunal", "Communal pool"),
        Scope.CAMPAIGN,
        minimum=0,
        initial=0,
    ),
)

OPERATIONS = (
    Operation("answer_who_am_i", Names("¿Quién soy?", "Who am I?"), Scope.CHARACTER, AnswerParams, answer_who_am_i),
    Operation(
        "answer_appearance",
        Names("¿Qué aspecto tengo?", "What do I look like?"),
        Scope.CHARACTER,
        AnswerParams,
        answer_appearance,
    ),
    Operation(
        "add_creation_pick",
        Names("¿Qué soy capaz de hacer? (habilidad o mejora)", "What can I do? (skill or improvement)"),
        Scope.CHARACTER,
        Pick,
        add_creation_pick,
    ),
    Operation(
        "finish_creation",
        Names("Terminar la creación", "Finish character creation"),
        Scope.CHARACTER,
        None,
        finish_creation,
    ),
    Operation("choose_talent", Names("Elegir talento", "Choose talent"), Scope.CHARACTER, TalentParams, choose_talent),
    Operation(
        "open_progress",
        Names("Abrir progreso", "Open progress"),
        Scope.CHARACTER,
        ProgressWindowParams,
        open_progress,
    ),
    Operation(
        "add_progress_pick",
        Names("Progreso de personaje", "Character progress pick"),
        Scope.CHARACTER,
        Pick,
        add_progress_pick,
    ),
    Operation("expire_progress", Names("Caducar progreso", "Expire progress"), Scope.CHARACTER, None, expire_progress),
    Operation(
        "write_reaction",
        Names("Escribir reacción", "Write reaction"),
        Scope.CHARACTER,
        WriteReactionParams,
        write_reaction,
    ),
    Operation("reveal_reaction", Names("Revelar reacción", "Reveal reaction"), Scope.CHARACTER, None, reveal_reaction),
    Operation(
        "value_reaction",
        Names("Valorar reacción", "Value reaction"),
        Scope.CHARACTER,
        ValueReactionParams,
        value_reaction,
    ),
    Operation("use_reaction", Names("Usar reacción", "Use reaction"), Scope.CHARACTER, None, use_reaction),
    Operation("expire_reaction", Names("Caducar reacción", "Expire reaction"), Scope.CHARACTER, None, expire_reaction),
    Operation(
        "open_communal_pool",
        Names("Abrir la reserva comunal", "Open the communal pool"),
        Scope.CAMPAIGN,
        OpenSessionParams,
        open_communal_pool,
    ),
    Operation(
        "take_communal_die",
        Names("Coger un dado comunal", "Take a communal die"),
        Scope.CAMPAIGN,
        TakeParams,
        take_communal_die,
    ),
)

RULESET = Ruleset(
    key=KEY,
    names=Names("Event", "Event"),
    sheet_model=EventSheet,
    settings_model=EventSettings,
    roll_kinds=ROLL_KINDS,
    pools=POOLS,
    tracks=(),  # Event has no stress or condition tracks: a sheet is answers and skills
    operations=OPERATIONS,
    resolve=resolve,
    extras={
        "credits": CREDITS,
        "veto_threshold": VETO_THRESHOLD,
        "levels": LEVEL_NAMES,
        "outcomes": OUTCOME_NAMES,
        "setup_warnings": setup_warnings,
        # Multi-step flows (explicit state machines) for the Django layer:
        "flows": {
            "action": action,
            "interaction": desafio,
            "narration": narration,
            "veto": veto,
            "bets": bets,
            "creation": creation,
            "batch": batch,
        },
    },
)

__all__ = ["KEY", "RULESET", "EventSettings", "EventSheet", "Outcome", "evaluate", "resolve"]
