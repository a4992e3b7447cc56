"""Open FAE procedures stored by the old handlers become the typed states (data migration 0001): a window
with an invocation paid from a free invocation on the board and one from a sheet aspect, and an offered
compel, load, render and finish after the deploy."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps
from django.test import Client

from campaigns import services as campaign_services
from rolls.models import Flow, FlowStatus, Roll
from rolls.services import RollSpec, create_post_with_rolls
from rulesets.fate_accelerated.procedures.action import ACTION
from rulesets.fate_accelerated.procedures.compel import COMPEL
from rulesets.fate_accelerated.tests.roll_fixtures import FaeScene, build_scene, fate, step

pytestmark = pytest.mark.django_db
MIGRATION = importlib.import_module("rulesets.fate_accelerated.migrations.0001_fae_procedure_states")


@pytest.fixture
def fae(db: None) -> FaeScene:
    return build_scene()


def _old_window(fae: FaeScene, roll: Roll, board: int) -> dict[str, Any]:
    ana = fae.ana.pk
    invocations = [
        {
            "aspect_key": f"scene:{board}",
            "invoker": str(ana),
            "effect": "bonus",
            "payment": "free",
            "same_roll_stacking": False,
            "justification": "El humo me tapa.",
            "grant_holder": None,
        },
        {
            "aspect_key": f"{ana}:high_concept",
            "invoker": str(ana),
            "effect": "bonus",
            "payment": "fate_point",
            "same_roll_stacking": False,
            "justification": "Soy espía.",
            "grant_holder": None,
        },
    ]
    return {
        "players": [fae.player.pk, fae.player2.pk],
        "target_name": "",
        "target": None,
        "defender": None,
        "free_used": {str(board): 1},
        "action": "overcome",
        "character": ana,
        "roller": fae.player.pk,
        "character_name": "Ana",
        "aspects": [{"ref": f"{ana}:high_concept", "text": "Espía de la Corona", "character": "Ana", "free": 0}],
        "difficulty": 2,
        "difficulty_secret": False,
        "opposed": False,
        "roll_id": roll.pk,
        "roll": {
            "key": str(roll.pk),
            "actor": str(ana),
            "action": "overcome",
            "approach": "quick",
            "approach_rating": 2,
            "difficulty": None,
            "target": None,
            "on_behalf_of": None,
            "stunts": [],
            "stunt_bonus": 0,
            "helpers": [],
            "faces": "0000",
            "face_history": [],
            "invocations": invocations,
            "phase": "rolled",
        },
        "sheet_free_spent": [],
        "phase": "window",
        "total": 6,
        "outcome": "success_with_style",
        "shifts": 4,
        "target_number": 2,
    }


def test_an_open_window_and_an_offered_compel_carry_on_after_the_migration(fae: FaeScene) -> None:
    aspect = campaign_services.add_scene_aspect(
        actor=fae.gm, scene=fae.scene, text="Humo por todas partes", free_invocations=2
    )
    post = create_post_with_rolls(
        author=fae.player,
        scene=fae.scene,
        body="Salto.",
        rolls=[RollSpec(kind="overcome", data={"approach": "quick", "difficulty": 2}, character_id=fae.ana.pk)],
        dice=fate("0000"),
    )
    roll = post.rolls.get()
    window = Flow.objects.create(
        campaign=fae.table.campaign,
        scene=fae.scene,
        kind="action",
        opened_by=fae.player,
        state=_old_window(fae, roll, aspect.pk),
        waiting_for={"step": "settle", "who": "gm", "label_es": "x", "label_en": "x"},
    )
    Roll.objects.filter(pk=roll.pk).update(flow=window)
    compel = Flow.objects.create(
        campaign=fae.table.campaign,
        scene=fae.scene,
        kind="compel",
        opened_by=fae.gm,
        state={
            "phase": "offered",
            "compel": {
                "target": str(fae.ana.pk),
                "aspect_key": f"{fae.ana.pk}:trouble",
                "kind": "decision",
                "compeller": "gm",
                "proposal": "Te quedas.",
                "fp_source": "gm",
                "status": "offered",
            },
            "aspect_text": "Debo proteger a mi hermano",
            "target_name": "Ana",
            "compeller_name": "DJ",
            "target_controller": fae.player.pk,
            "compeller_controller": "gm",
        },
        waiting_for={"step": "accept", "users": [fae.player.pk], "label_es": "x", "label_en": "x"},
    )
    MIGRATION.forwards(apps, None)
    window.refresh_from_db()
    compel.refresh_from_db()
    state = ACTION.load_state(window.state)
    assert state.total == 6 and state.board_free.spent == {aspect.pk: 1}
    assert [i.text for i in state.invoked] == ["Humo por todas partes", "Espía de la Corona"]
    assert COMPEL.load_state(compel.state).compeller_name == ""
    client = Client()
    client.force_login(fae.gm)
    assert client.get(f"/flows/{window.pk}/").status_code == 200
    window = step(fae.gm, window, "veto", {"roll": "action"})  # the sheet invocation: its fate point back
    assert window.state["total"] == 4
    window = step(fae.gm, window, "settle", {})
    aspect.refresh_from_db()
    assert window.status == FlowStatus.SETTLED and aspect.free_invocations == 1
    compel = step(fae.player, compel, "accept")
    assert compel.state["phase"] == "accepted" and compel.waiting_for["steps"][0]["gm"]
