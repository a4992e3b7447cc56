"""The same Fate Accelerated flows through the API (``POST /api/scenes/<id>/flows/``, ``POST
/api/flows/<id>/steps/``) and the thread's fragments: refusals as JSON, replays, secrets kept."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from rolls.models import Flow, FlowStatus
from rolls.services import RollSpec, create_post_with_rolls
from rulesets.fate_accelerated.tests.roll_fixtures import FaeScene, build_scene, fate, fp

pytestmark = pytest.mark.django_db


@pytest.fixture
def fae(db: None) -> FaeScene:
    return build_scene()


def _api(user) -> APIClient:  # type: ignore[no-untyped-def]
    client = APIClient()
    client.force_authenticate(user)
    return client


def _step(user, flow_id: int, name: str, params: dict, key: str):  # type: ignore[no-untyped-def]
    return _api(user).post(
        f"/api/flows/{flow_id}/steps/", {"step": name, "params": params, "idempotency_key": key}, format="json"
    )


def test_invocation_and_settlement_through_the_api(fae: FaeScene) -> None:
    post = create_post_with_rolls(
        author=fae.player,
        scene=fae.scene,
        body="Salto.",
        rolls=[RollSpec(kind="overcome", data={"approach": "quick", "difficulty": 3}, character_id=fae.ana.pk)],
        dice=fate("0-00"),
    )
    response = _api(fae.player).post(
        f"/api/scenes/{fae.scene.pk}/flows/", {"kind": "action", "params": {}}, format="json"
    )
    assert response.status_code == 201, response.content
    flow_id = response.json()["id"]
    invoke = {
        "aspect": f"character:{fae.ana.pk}:aspect:0",
        "effect": "bonus",
        "payment": "fate_point",
        "justification": "Veo la tabla suelta.",
    }
    first = _step(fae.player, flow_id, "invoke", invoke, "k1")
    assert first.status_code == 201, first.content
    assert first.json()["state"]["total"] == 3 and first.json()["state"]["outcome"] == "tie"
    replay = _step(fae.player, flow_id, "invoke", invoke, "k1")
    assert replay.status_code == 200 and fp(fae.ana) == 2
    twice = _step(fae.player, flow_id, "invoke", invoke, "k2")
    assert twice.status_code == 400 and twice.json()["error"]["code"] == "aspect_already_invoked"
    assert _step(fae.player, flow_id, "settle", {}, "k3").status_code == 403
    settled = _step(fae.gm, flow_id, "settle", {"note": "Se rompe la tabla tras de ti."}, "k4")
    assert settled.status_code == 201 and Flow.objects.get(pk=flow_id).status == FlowStatus.SETTLED
    again = _step(fae.gm, flow_id, "settle", {}, "k5")
    assert again.status_code == 400 and again.json()["error"]["code"] == "step_not_available"
    roll = _api(fae.table.reader).get(f"/api/rolls/{post.rolls.get().pk}/").json()
    kinds = [f["kind"] for f in roll["follow_ups"]]
    assert kinds == ["invoke", "settle"]


def test_a_player_never_reads_a_secret_difficulty_through_the_api(fae: FaeScene) -> None:
    params = {"character": fae.ana.pk, "action": "overcome", "difficulty": 5, "difficulty_secret": True}
    response = _api(fae.gm).post(
        f"/api/scenes/{fae.scene.pk}/flows/", {"kind": "action", "params": params}, format="json"
    )
    assert response.status_code == 201 and response.json()["secret_state"] == {"difficulty": 5}
    flow_id = response.json()["id"]
    rolled = _step(fae.player, flow_id, "roll", {"approach": "quick"}, "r1")
    assert rolled.status_code == 201, rolled.content
    for user in (fae.player, fae.player2, fae.table.reader):
        body = _api(user).get(f"/api/flows/{flow_id}/").json()
        assert "secret_state" not in body
        roll = body["rolls"][0]
        assert "secret" not in roll and "difficulty" not in roll["result"] and "difficulty" not in roll["request"]
    gm = _api(fae.gm).get(f"/api/flows/{flow_id}/").json()
    assert gm["rolls"][0]["secret"]["difficulty"] == 5


def test_compel_through_the_api_and_the_flow_fragment(fae: FaeScene) -> None:
    params = {
        "target": fae.ana.pk,
        "aspect": f"character:{fae.ana.pk}:trouble",
        "kind": "decision",
        "proposal": "Vuelves a casa.",
    }
    response = _api(fae.gm).post(
        f"/api/scenes/{fae.scene.pk}/flows/", {"kind": "compel", "params": params}, format="json"
    )
    flow_id = response.json()["id"]
    assert response.json()["waiting_for"]
    assert _step(fae.player2, flow_id, "accept", {}, "a0").status_code == 403
    assert _step(fae.player, flow_id, "accept", {}, "a1").status_code == 201
    client = Client()
    client.force_login(fae.gm)
    html = client.get(f"/flows/{flow_id}/").content.decode()
    assert "Entregar el punto de destino" in html and "Debo proteger a mi hermano" in html
    assert _step(fae.gm, flow_id, "deliver", {}, "a2").status_code == 201 and fp(fae.ana) == 4


def test_the_action_fragment_shows_what_it_waits_for_and_hides_the_secret(fae: FaeScene) -> None:
    params = {"character": fae.ana.pk, "action": "overcome", "difficulty": 7, "difficulty_secret": True}
    response = _api(fae.gm).post(
        f"/api/scenes/{fae.scene.pk}/flows/", {"kind": "action", "params": params}, format="json"
    )
    flow_id = response.json()["id"]
    _step(fae.player, flow_id, "roll", {"approach": "quick"}, "r1")
    client = Client()
    client.force_login(fae.player)
    html = client.get(f"/flows/{flow_id}/").content.decode()
    assert "Dificultad secreta" in html and "Invocar un aspecto" in html and "step-settle" not in html
    assert "+7" not in html and "(7)" not in html
    gm = Client()
    gm.force_login(fae.gm)
    assert "step-settle" in gm.get(f"/flows/{flow_id}/").content.decode()
    scene_html = client.get(f"/scenes/{fae.scene.pk}/flows/").content.decode()
    assert "Declarar una acción" in scene_html and "Forzar un aspecto" in scene_html
