"""Shared fixtures of the Fate Accelerated spec §9.1 (Ana, Carla, Eva, Bruno, Dario; A1, session 1, S1, K1, E1).

Builders only: this module holds no tests.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from systems.dice import ScriptedDice
from systems.fate_accelerated.actions import Action, Approach
from systems.fate_accelerated.aspects import Moment
from systems.fate_accelerated.dice import d3_faces
from systems.fate_accelerated.exchange import Exchange
from systems.fate_accelerated.rolls import ActionRoll, RollPhase, declare_action, roll_dice
from systems.fate_accelerated.sheet import FaeSheet, validate_sheet

ANA, CARLA, EVA, FEDE, BRUNO, DARIO = "ana", "carla", "eva", "fede", "bruno", "dario"
ADVENTURE, SESSION, SCENE, CONFLICT = 1, 1, 1, "K1"
K1 = Moment(adventure=ADVENTURE, session=SESSION, scene=SCENE, conflict=CONFLICT)

S1: dict[str, Any] = {
    "key": "S1",
    "template": "bonus",
    "because": "soy una charlatana de primera",
    "actions": ["create_advantage"],
    "approach": "sneaky",
    "circumstance": "cuando converso con alguien",
}
S2: dict[str, Any] = {
    "key": "S2",
    "template": "once_per_session",
    "because": "soy rápida desenfundando",
    "effect": "actuar la primera en un conflicto físico",
}


def approaches(careful: int, clever: int, sneaky: int, flashy: int, quick: int, forceful: int) -> dict[str, int]:
    return dict(careful=careful, clever=clever, sneaky=sneaky, flashy=flashy, quick=quick, forceful=forceful)


def ana_data(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "Ana",
        "approaches": approaches(1, 2, 3, 0, 2, 1),
        "high_concept": "Espía de la Corona",
        "trouble": "Debo proteger a mi hermano",
        "other_aspects": ["Atenta a los detalles"],
        "stunts": [S1, S2],
        "refresh": 3,
        "fate_points": 3,
    }
    data.update(over)
    return data


def ana(**over: Any) -> FaeSheet:
    return validate_sheet(ana_data(**over))


def carla(**over: Any) -> FaeSheet:
    data = {
        "name": "Carla",
        "approaches": approaches(2, 1, 1, 3, 2, 0),
        "high_concept": "Duelista de fama mundial",
        "trouble": "Nunca rechazo un desafío",
        "refresh": 3,
        "fate_points": 2,
    }
    data.update(over)
    return validate_sheet(data)


def eva(**over: Any) -> FaeSheet:
    data = {
        "name": "Eva",
        "approaches": approaches(3, 2, 2, 1, 1, 0),
        "high_concept": "Médica de campaña",
        "trouble": "Demasiado curiosa",
        "refresh": 3,
        "fate_points": 1,
    }
    data.update(over)
    return validate_sheet(data)


def bruno(**over: Any) -> FaeSheet:
    data = {
        "name": "Bruno",
        "kind": "npc_main",
        "approaches": approaches(2, 1, 0, 1, 3, 2),
        "high_concept": "Matón a sueldo",
        "trouble": "Deudas de juego",
        "other_aspects": [{"text": "Matón del puerto"}, {"text": "Miedo a los ratones", "hidden": True}],
        "refresh": 3,
        "fate_points": 0,
    }
    data.update(over)
    return validate_sheet(data)


def dice(*faces: str) -> ScriptedDice:
    """Scripted dice that produce the given 4dF face strings, in order."""
    return ScriptedDice([v for f in faces for v in d3_faces(f)])


def e1(*acted: str) -> Exchange:
    return Exchange("E1", frozenset(acted))


def rolled(
    key: str,
    actor: str,
    sheet: FaeSheet,
    action: Action,
    approach: Approach,
    faces: str,
    **kw: Any,
) -> ActionRoll:
    """Declare and roll with the given faces (exchange updates are discarded)."""
    declared = declare_action(key, actor, sheet, action, approach, **kw)
    return roll_dice(declared.roll, dice(faces))


def at_total(
    key: str, actor: str, action: Action, total: int, difficulty: int | None = None, target: str | None = None
) -> ActionRoll:
    """A rolled roll with the given total (for vectors where only totals matter): faces 0000."""
    return ActionRoll(
        key=key,
        actor=actor,
        action=action,
        approach=Approach.CAREFUL,
        approach_rating=total,
        difficulty=difficulty,
        target=target,
        faces="0000",
        phase=RollPhase.ROLLED,
    )


def resolved(roll: ActionRoll) -> ActionRoll:
    return replace(roll, phase=RollPhase.RESOLVED)
