"""Benchmark cases for No te Duermas: one roll of each kind per call, through the registry's
``resolve`` exactly as the server calls it (request models validated once, outside the timing)."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel

from systems.dice import DiceSource
from systems.dont_rest_your_head import RULESET
from systems.dont_rest_your_head.resolve import (
    ConflictRollRequest,
    HelperDiceRequest,
    LeaderDiceRequest,
    PainDiceRequest,
)


def _resolver(kind: str, request: BaseModel) -> Callable[[DiceSource], object]:
    resolve = RULESET.resolve
    assert resolve is not None

    def call(dice: DiceSource) -> object:
        return resolve(kind, request, dice)

    return call


CASES: list[tuple[str, int, Callable[[DiceSource], object]]] = [
    (
        "dont-rest-your-head conflict D3 E2 M2 vs P4",
        11,
        _resolver("conflict", ConflictRollRequest(discipline=3, exhaustion=2, madness=2, pain=4)),
    ),
    (
        "dont-rest-your-head conflict D3 E3 + helper 3, major use, vs P5",
        14,
        _resolver(
            "conflict",
            ConflictRollRequest(discipline=3, exhaustion=3, pain=5, helpers=(3,), talent_use="major"),
        ),
    ),
    (
        "dont-rest-your-head leader D3 E2 M2",
        7,
        _resolver("leader", LeaderDiceRequest(discipline=3, exhaustion=2, madness=2)),
    ),
    ("dont-rest-your-head pain 4", 4, _resolver("pain", PainDiceRequest(pain=4))),
    ("dont-rest-your-head helper 3", 3, _resolver("helper", HelperDiceRequest(discipline=3))),
]
