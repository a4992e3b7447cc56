"""Open procedures stored by the old flow handlers keep working: the data migration rewrites their state."""

from __future__ import annotations

from typing import Any

import pytest

from rolls.models import Flow
from rulesets.presagios.legacy_state import convert_open_flows
from rulesets.presagios.tests.rolls_fixtures import RollsTable, awaited, build, record, step

pytestmark = pytest.mark.django_db

GM: dict[str, Any] = {"gm": True, "users": []}


def _legacy_challenge(t: RollsTable) -> Flow:
    roller = {"gm": False, "users": [t.player.pk]}
    machine = {
        "challenge_id": "reto:saltar", "character_id": str(t.lucia.pk), "characteristic": "c1", "tool_dice": 0,
        "stage": "awaiting_roll", "dangerous": False, "danger_paid": False, "retry_paid": False, "attempts": [],
        "proposed_traits": [], "damage": [],
    }  # fmt: skip
    state = {
        "kind": "challenge", "name": "Saltar", "character_name": "Lucía", "character_kind": "principal",
        "roller": roller, "characteristic_label": "Acción", "tool_dice": 0, "traits": [], "cast": [],
        "roll_ids": [], "threat_gain": None, "players": [t.player.pk, t.player2.pk], "machine": machine,
        "stage": "awaiting_roll", "outcome": None, "final": False,
        "steps": {"roll": roller, "declare_danger": GM, "cancel": GM},
    }  # fmt: skip
    secret = {"difficulty": 5, "threat_at_roll": [], "omen_hit": []}
    waiting = {"step": "roll", "label_es": "Tirada", "label_en": "Roll", "users": [t.player.pk]}
    return Flow.objects.create(
        campaign=t.campaign, scene=t.scene, kind="challenge", opened_by=t.gm, state=state, secret_state=secret,
        waiting_for=waiting,
    )  # fmt: skip


def _legacy_conflict(t: RollsTable) -> Flow:
    def side(character: Any, roller: dict[str, Any], kind: str) -> dict[str, Any]:
        facts = {"character_id": character.pk, "name": character.name, "kind": kind, "roller": roller}
        return {**facts, "characteristic_label": "Acción", "traits": []}

    def participant(character: Any, kind: str) -> dict[str, Any]:
        return {"character_id": str(character.pk), "kind": kind, "characteristic": "c1", "tool_dice": 0}

    machine = {
        "conflict_id": "conflict:1", "a": participant(t.lucia, "principal"), "b": participant(t.cosa, "monstruo"),
        "stage": "awaiting_rolls", "dangerous": False, "danger_paid": False, "pending": [None, None],
        "proposed": [[], []], "bonus": [None, None], "pairs": [], "natural_winner": None, "forced_winner": None,
        "winner": None, "damage": [],
    }  # fmt: skip
    state = {
        "kind": "conflict", "name": "", "cast": [], "ready": ["a"], "pair_roll_ids": [],
        "damage_characteristic": None, "threat_gain": None, "players": [t.player.pk, t.player2.pk],
        "sides": {"a": side(t.lucia, {"gm": False, "users": [t.player.pk]}, "principal"),
                  "b": side(t.cosa, GM, "monstruo")},
        "machine": machine, "stage": "awaiting_rolls", "winner": None, "final": False,
        "steps": {"roll": GM, "cancel": GM},
    }  # fmt: skip
    secret = {"threat_at_roll": None, "omen_hit": False, "sealed": {"a": [{"name": "Pelear", "value": 3}]}}
    return Flow.objects.create(
        campaign=t.campaign, scene=t.scene, kind="conflict", opened_by=t.gm, state=state, secret_state=secret,
        waiting_for={"step": "roll", "label_es": "Tirada", "label_en": "Roll", "who": "gm"},
    )  # fmt: skip


def test_open_legacy_procedures_are_rewritten_and_play_on() -> None:
    t = build("pl_")
    challenge, conflict = _legacy_challenge(t), _legacy_conflict(t)
    assert convert_open_flows(Flow) == 2
    assert convert_open_flows(Flow) == 0  # once only
    challenge.refresh_from_db()
    conflict.refresh_from_db()
    assert awaited(challenge) == {"roll": (False, [t.player.pk])}
    assert awaited(conflict) == {"roll": (True, [])}
    challenge = step(challenge, t.player, "roll", dice=[6, 6, 6, 6])
    assert challenge.state["outcome"] == "success" and "Resultado 9: Éxito." in record(challenge)
    conflict = step(conflict, t.gm, "roll", dice=[2, 2, 2, 2, 1, 1, 1, 1, 1])
    assert awaited(conflict) == {"judge_traits": (True, [])}  # Lucía's sealed trait waits for the GM
    assert "Lucía propone sus rasgos: Pelear +3." in record(conflict)
