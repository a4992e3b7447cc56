"""Event roll kinds for the shared roll benchmark: (case, dice drawn per call, one resolution).

Requests and settings are validated once here, at the edge, as the server does; each call then runs
the same resolver the API uses (gate, throw, evaluation, immutable result).
"""

from __future__ import annotations

from collections.abc import Callable

from systems.dice import DiceSource
from systems.event.creation import roll_order
from systems.event.desafio import Side, resolve_fist
from systems.event.requests import ActionRollRequest, resolve_action
from systems.event.rolling import DiceRules
from systems.event.settings import EventSettings

_D6 = EventSettings()
_D10 = EventSettings.model_validate({"optional": {"n_sided": {"enabled": True, "sides": 10}}})
_ACTION_3_VS_4 = ActionRollRequest(difficulty=4, skill_dice=2, choice="ROLL")
_ACTION_1_VS_3 = ActionRollRequest(difficulty=3, choice="ROLL")
_ACTION_6_VS_6 = ActionRollRequest(difficulty=6, skill_dice=5, choice="ROLL")
_ACTION_D10 = ActionRollRequest(difficulty=7, skill_dice=2, choice="ROLL")
_FIST_COUNTS = {"A": 2, "B": 2}
_FIST_RULES = DiceRules()


def _action(request: ActionRollRequest, settings: EventSettings) -> Callable[[DiceSource], object]:
    def run(dice: DiceSource) -> object:
        return resolve_action(request, dice, settings)

    return run


def _fist_tiebreak(dice: DiceSource) -> object:
    return resolve_fist(Side.LEFT, _FIST_COUNTS, dice, _FIST_RULES)


def _order_roll(dice: DiceSource) -> object:
    return roll_order(dice, _D6)


CASES: list[tuple[str, int, Callable[[DiceSource], object]]] = [
    ("event action 1d6 vs 3 (roll)", 1, _action(_ACTION_1_VS_3, _D6)),
    ("event action 3d6 vs 4 (roll)", 3, _action(_ACTION_3_VS_4, _D6)),
    ("event action 6d6 vs 6 (roll)", 6, _action(_ACTION_6_VS_6, _D6)),
    ("event action 3d10 vs 7 (roll)", 3, _action(_ACTION_D10, _D10)),
    ("event desafio tie-break 2 vs 2", 4, _fist_tiebreak),
    ("event order roll 3d6", 3, _order_roll),
]
