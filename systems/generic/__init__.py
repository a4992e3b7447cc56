"""``generic``: plain dice notation for any game Tintero does not model.

``3d6+2``, ``d20``, ``4dF``, ``4d6kh3``, ``2d20kl1``, ``3d6!``, ``3d10!>9``, ``4d6r1``, ``4d6rr<3``,
``6d10>=7f1``, arithmetic, comma-separated parts and labels. See :mod:`systems.generic.grammar` for
the notation, :mod:`systems.generic.limits` for the caps.

Public API: :func:`parse` (cached) -> :class:`Notation`; :func:`roll_notation` / :func:`roll_parsed`
-> :class:`RollResult`; :data:`RULESET` (key ``generic``).
"""

from __future__ import annotations

from systems.generic.ast import BinaryOp, Compare, Constant, Dice, Negate, Notation, Part, Select
from systems.generic.evaluate import DiceRoll, Die, DieOrigin, PartResult, RollResult, roll_notation, roll_parsed
from systems.generic.parse import clear_parse_cache, parse, parse_cache_info
from systems.generic.roll import NOTATION, NotationRequest, resolve
from systems.generic.settings import GenericSettings
from systems.generic.sheet import GenericSheet
from systems.registry import Names, RollKind, Ruleset

RULESET = Ruleset(
    key="generic",
    names=Names(es="Genérico", en="Generic"),
    sheet_model=GenericSheet,
    settings_model=GenericSettings,
    roll_kinds=(
        RollKind(
            key=NOTATION,
            names=Names(es="Notación de dados", en="Dice notation"),
            request_model=NotationRequest,
            description=Names(
                es="Cualquier tirada escrita en notación: 3d6+2, 4dF, 4d6kh3, 3d6!, 6d10>=7.",
                en="Any roll written in dice notation: 3d6+2, 4dF, 4d6kh3, 3d6!, 6d10>=7.",
            ),
        ),
    ),
    resolve=resolve,
)

__all__ = [
    "NOTATION",
    "RULESET",
    "BinaryOp",
    "Compare",
    "Constant",
    "Dice",
    "DiceRoll",
    "Die",
    "DieOrigin",
    "GenericSettings",
    "GenericSheet",
    "Negate",
    "Notation",
    "NotationRequest",
    "Part",
    "PartResult",
    "RollResult",
    "Select",
    "clear_parse_cache",
    "parse",
    "parse_cache_info",
    "resolve",
    "roll_notation",
    "roll_parsed",
]
