"""The four actions, the six approaches and the choices the outcome tables offer (spec §2.1)."""

from __future__ import annotations

from enum import StrEnum

from systems.registry import Names


class Action(StrEnum):
    CREATE_ADVANTAGE = "create_advantage"
    OVERCOME = "overcome"
    ATTACK = "attack"
    DEFEND = "defend"


class Approach(StrEnum):
    CAREFUL = "careful"
    CLEVER = "clever"
    SNEAKY = "sneaky"
    FLASHY = "flashy"
    QUICK = "quick"
    FORCEFUL = "forceful"


class CAMode(StrEnum):
    """The three uses of create an advantage."""

    CREATE = "create"
    DISCOVER = "discover"
    EXPLOIT = "exploit"


class FailChoice(StrEnum):
    """What the actor picks on a failed create-an-advantage or overcome (a [J] decision, given as input)."""

    NOTHING = "nothing"  # create/discover: no aspect
    GRANT_OPPONENT = "grant_opponent"  # create/discover: aspect exists, the opponent gets the free invocation
    FAIL = "fail"  # overcome: the goal is not reached
    SUCCESS_AT_MAJOR_COST = "success_at_major_cost"  # overcome: goal reached at a serious cost


class Cost(StrEnum):
    MINOR = "minor"
    MAJOR = "major"


ACTION_NAMES = {
    Action.CREATE_ADVANTAGE: Names("Crear una ventaja", "Create an advantage"),
    Action.OVERCOME: Names("Superar", "Overcome"),
    Action.ATTACK: Names("Atacar", "Attack"),
    Action.DEFEND: Names("Defender", "Defend"),
}

APPROACH_NAMES = {
    Approach.CAREFUL: Names("Cauto", "Careful"),
    Approach.CLEVER: Names("Ingenioso", "Clever"),
    Approach.SNEAKY: Names("Furtivo", "Sneaky"),
    Approach.FLASHY: Names("Llamativo", "Flashy"),
    Approach.QUICK: Names("Rápido", "Quick"),
    Approach.FORCEFUL: Names("Vigoroso", "Forceful"),
}
