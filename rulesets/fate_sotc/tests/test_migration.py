"""Open SotC procedures stored by the old handlers read as the typed states after the data migration."""

from __future__ import annotations

import importlib
from typing import Any

from rulesets.fate_sotc.procedures import PROCEDURES

migration: Any = importlib.import_module("rulesets.fate_sotc.migrations.0001_sotc_procedure_states")

OLD_SIDE = {
    "roller_id": "7",
    "dice": {"d6": [5, 3, 3, 1], "faces": [1, 0, 0, -1], "total": 0},
    "skill_rating": 4,
    "modifiers": [{"source": "spin", "value": 1, "ref": "8"}],
    "history": [{"d6": [1, 1, 1, 3], "faces": [-1, -1, -1, 0], "total": -3}],
    "invoked": ["c:7:aspecto-1", "s:3"],
    "free_used": 1,
    "advantages": 0,
    "window_open": True,
    "effort": 5,
    "effort_label": "Excelente (+5)",
    "effort_label_en": "Superb (+5)",
    "roll_id": 11,
    "index": 0,
    "character_id": 7,
    "name": "Sally Slick",
    "actor": 3,
    "skill": "athletics",
    "skill_label": "Atletismo",
}


def test_an_open_old_attack_reads_as_the_typed_state() -> None:
    old = {
        "roll": 11,
        "sides": {"a": OLD_SIDE, "b": {**OLD_SIDE, "character_id": 8, "actor": "gm", "invoked": []}},
        "track": "health",
        "phase": "window",
        "requests": [
            {"id": 1, "side": "a", "aspect": "k:7:leve", "aspect_text": "Cojera", "mode": "bonus",
             "payment": "paid", "detrimental": False, "by": 3}
        ],
        "next_request": 2,
        "spin_use": {"holder": 8, "name": "Jet", "actor": 4, "from_flow": 2, "status": "available"},
        "aspects": [{"ref": "s:3", "text": "Humo", "holder": "", "free": 1}],
    }  # fmt: skip
    state = PROCEDURES["attack"].load_state(migration.converted("attack", old))
    assert state.sides["a"].effort == 5 and state.sides["a"].roll.invoked_aspect_ids == {
        "character:7:aspecto-1",
        "scene:3",
    }
    assert state.requests[0].aspect == "consequence:7:leve" and state.spin_use.from_procedure == 2


def test_compels_declarations_and_converted_states_pass_unchanged() -> None:
    compel = {
        "phase": "offered", "character_id": 7, "name": "Sally", "actor": 3, "aspect": "Orgullosa",
        "description": "", "compel": {"kind": "gm", "stake": 1, "status": "offered", "credited": 0},
    }  # fmt: skip
    assert PROCEDURES["compel"].load_state(migration.converted("compel", compel)).compel.stake == 1
    old = {"roll": 11, "roll_kind": "simple", "sides": {"a": OLD_SIDE}, "phase": "window", "difficulty": 3}
    once = migration.converted("invocation", old)
    assert migration.converted("invocation", once) == once
    assert PROCEDURES["invocation"].load_state(once).difficulty == 3
