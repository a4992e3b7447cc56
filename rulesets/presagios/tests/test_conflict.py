"""The Presagios conflict flow end to end (spec §3.3, §5.2 and vectors 22, 34, 37-39, 42, 50): the first
side sealed until the second posts, ties by kind or rerolled, one omen check, forced wins, damage to the
loser with protection by kind; and both flows through the API with idempotency keys and secrets."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.template.loader import render_to_string
from rest_framework.test import APIClient

from accounts.models import User
from campaigns import policy
from characters.models import LedgerEntry
from rolls.models import Flow, FlowStatus, Roll
from rolls.selectors import flow_views
from rulesets.presagios.tests.rolls_fixtures import (
    RollsTable,
    awaited,
    build,
    challenge,
    conflict,
    current,
    ledger_ops,
    overcome,
    record,
    set_sheet,
    set_threat,
    sheet,
    step,
    threat,
)
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def t(db: None) -> RollsTable:
    return build()


def test_vector_34_the_first_roll_is_sealed_and_the_monster_wins(t: RollsTable) -> None:
    set_threat(t, 7)
    set_sheet(t.lucia, current=[4, 3, 2], overcome=2)
    set_sheet(t.cosa, current=[3, 0, 2])
    flow = conflict(t, t.lucia, t.cosa, dangerous=True)
    assert threat(t) == 7  # free against the monster (vector 27)
    assert awaited(flow) == {"roll": (True, [t.player.pk])}
    flow = step(flow, t.player, "roll")
    assert flow.rolls.count() == 0 and flow.state["ready"] == ["a"]  # sealed: no dice exist to see
    assert awaited(flow) == {"roll": (True, [])}
    assert record(flow)[-1] == "Lucía ya ha tirado: su tirada queda sellada hasta que tire el otro bando."
    with pytest.raises(PermissionDenied):  # committing twice: the table waits for the other side only
        step(flow, t.player, "roll")
    flow = step(flow, t.gm, "roll", dice=[1, 1, 3, 2, 1, 1, 5])
    rolls = list(flow.rolls.order_by("id"))
    assert [r.result["dice"] for r in rolls] == [[1, 1, 3, 2], [1, 1, 5]]
    assert rolls[0].roller == t.player and rolls[1].roller == t.gm  # each side's roll is its own
    assert flow.state["winner"] == "b" and threat(t) == 8  # combined omens 4: 8 ≥ 7
    flow = step(flow, t.gm, "finalize")
    assert flow.status == FlowStatus.SETTLED  # protection inactive at 8: no choice, damage applied
    assert (current(t.lucia), overcome(t.lucia), threat(t)) == (1, 2, 8)
    assert ledger_ops(t) == ["set_threat", "declare_danger", "omen_check", "apply_damage"]
    lines = record(flow, gm_only=False)
    assert lines[0] == "El director abre un conflicto: Lucía (Acción) contra La Cosa (Acción)."
    assert lines[1] == "El director lo declara peligroso (sin coste)."
    assert "Lucía tira Acción: [☠][☠][3][2] → 3 · 2 presagios: algo inquietante ocurre" in lines
    assert "Lucía 3 contra La Cosa 5: gana La Cosa." in lines
    assert "El director cierra el resultado: gana La Cosa." in lines
    assert lines[-1] == "Daño físico 3 en Acción: Lucía (4 → 1)."
    assert record(flow, gm_only=True) == ["Amenaza al tirar: 7; 4 presagios; la amenaza sube 1."]


def test_vector_37_a_trait_is_judged_and_the_secondary_takes_the_damage(t: RollsTable) -> None:
    set_threat(t, 5)
    set_sheet(t.lucia, current=[3, 3, 2])
    flow = conflict(t, t.lucia, t.criado, dangerous=True)
    assert threat(t) == 4
    flow = step(flow, t.gm, "roll")
    flow = step(flow, t.player, "roll", {"traits": ["Correr"]}, dice=[2, 6, 6, 1, 4])
    assert flow.state["machine"]["stage"] == "revealed" and awaited(flow) == {"judge_traits": (True, [])}
    flow = step(flow, t.gm, "judge_traits", {"side": "a", "accepted": ["Correr"]})
    assert flow.state["winner"] == "a" and threat(t) == 4  # 8 vs 4; combined 1 omen: 2 < 4
    flow = step(flow, t.gm, "finalize")
    assert flow.status == FlowStatus.SETTLED and current(t.criado) == 1  # 1 + the winner's 0 omens


def test_vector_38_the_secondary_leaves_the_story(t: RollsTable) -> None:
    set_threat(t, 5)
    set_sheet(t.lucia, current=[3, 3, 2])
    flow = conflict(t, t.lucia, t.criado, dangerous=True)
    flow = step(flow, t.player, "roll")
    flow = step(flow, t.gm, "roll", dice=[1, 1, 6, 4, 4])
    assert threat(t) == 5
    flow = step(flow, t.gm, "finalize")
    assert sheet(t.criado)["status"] == "out_of_story" and awaited(flow) == {"threat_gain": (True, [])}
    flow = step(flow, t.gm, "threat_gain", {"confirm": "true"})
    assert flow.status == FlowStatus.SETTLED and threat(t) == 6


def test_vector_39_the_gm_protects_the_monster(t: RollsTable) -> None:
    set_threat(t, 6)
    set_sheet(t.lucia, current=[2, 3, 2])
    set_sheet(t.cosa, current=[3, 0, 2])
    flow = conflict(t, t.lucia, t.cosa, dangerous=True)
    flow = step(flow, t.player, "roll")
    flow = step(flow, t.gm, "roll", dice=[1, 6, 2, 3, 4])
    flow = step(flow, t.gm, "finalize")
    assert awaited(flow) == {"damage": (True, [])}
    with pytest.raises(PermissionDenied):
        step(flow, t.player, "damage", {"protect": True})
    flow = step(flow, t.gm, "damage", {"protect": True})
    assert (threat(t), current(t.cosa)) == (5, 3)


def test_vector_42_a_tie_between_main_characters_is_rerolled_and_only_the_final_pair_counts(t: RollsTable) -> None:
    flow = conflict(t, t.lucia, t.hugo, a_char="c3", b_char="c3")
    flow = step(flow, t.player2, "roll")
    flow = step(flow, t.player, "roll", dice=[5, 5, 6, 3, 1, 5])  # 6 vs 6, then 3 vs 5
    assert flow.state["winner"] == "b" and len(flow.state["machine"]["pairs"]) == 2
    assert flow.rolls.count() == 4 and threat(t) == 1  # one omen in the final pair: 2 ≥ 0
    lines = record(flow, gm_only=False)
    assert "Empate a 6: se repite la tirada de los dos bandos." in lines
    assert lines[-2:] == ["Lucía 3 contra Hugo 5: gana Hugo.", "Los presagios hacen subir la amenaza en 1 (ahora 1)."]


def test_vector_40_a_main_character_wins_a_tie_against_a_monster(t: RollsTable) -> None:
    set_sheet(t.lucia, current=[3, 3, 2])
    set_sheet(t.cosa, current=[1, 0, 2])
    flow = conflict(t, t.lucia, t.cosa)
    flow = step(flow, t.gm, "roll")
    flow = step(flow, t.player, "roll", dice=[5, 2, 3, 5])
    assert flow.state["winner"] == "a" and flow.rolls.count() == 2


def test_vector_50_a_player_forces_the_monsters_failure_with_its_weakness(t: RollsTable) -> None:
    set_threat(t, 4)
    set_sheet(t.cosa, current=[1, 0, 2])
    flow = conflict(t, t.lucia, t.cosa)
    flow = step(flow, t.player, "roll")
    flow = step(flow, t.gm, "roll", dice=[2, 2, 2, 2, 6])
    assert flow.state["winner"] == "b"
    params = {"side": "b", "force": "failure", "quality_owner": t.cosa.pk, "quality": "weakness"}
    flow = step(flow, t.player, "force", params)
    assert flow.state["winner"] == "a" and (overcome(t.lucia), threat(t)) == (4, 5)
    with pytest.raises(RulesError) as exc:  # ALREADY_FORCED in the pure rules: not offered again
        step(flow, t.gm, "force", {**params, "force": "success"})
    assert exc.value.code == "step_not_available" and threat(t) == 5


def test_danger_after_a_side_posted_is_refused_and_a_cancel_refunds(t: RollsTable) -> None:
    set_threat(t, 5)
    flow = conflict(t, t.lucia, t.criado)
    flow = step(flow, t.player, "roll")
    with pytest.raises(RulesError) as exc:  # DANGER_AFTER_ROLL in the pure rules: no longer offered
        step(flow, t.gm, "declare_danger")
    assert exc.value.code == "step_not_available" and threat(t) == 5
    paid = conflict(t, t.hugo, t.criado, dangerous=True)
    assert threat(t) == 4
    paid = step(paid, t.gm, "cancel")
    assert paid.status == FlowStatus.CANCELLED and threat(t) == 5
    assert record(paid)[-2:] == [
        "El director cancela el conflicto.",
        "Se devuelve el punto de amenaza del peligro.",
    ]


# --- API and fragments ----------------------------------------------------------------------------


def api(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _keys_and_leaves(value: Any) -> tuple[set[str], list[Any]]:
    keys: set[str] = set()
    leaves: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            keys.update(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        else:
            leaves.append(item)
    return keys, leaves


def test_a_challenge_through_the_api_keeps_its_difficulty_secret_and_steps_once(
    t: RollsTable, monkeypatch: Any
) -> None:
    monkeypatch.setattr("rolls.runner.SystemDice", lambda: __import__("systems.dice").dice.ScriptedDice([1, 6, 2, 2]))
    body = {"kind": "challenge", "params": {"character_id": t.lucia.pk, "characteristic": "c1", "difficulty": 13}}
    assert api(t.player).post(f"/api/scenes/{t.scene.pk}/flows/", body, format="json").status_code == 403
    response = api(t.gm).post(f"/api/scenes/{t.scene.pk}/flows/", body, format="json")
    assert response.status_code == 201, response.content
    flow_id = response.json()["id"]
    assert response.json()["secret_state"]["difficulty"] == 13
    assert "difficulty" not in str(response.json()["state"])
    step_body = {"step": "roll", "params": {}, "idempotency_key": "k-roll"}
    first = api(t.player).post(f"/api/flows/{flow_id}/steps/", step_body, format="json")
    assert first.status_code == 201, first.content
    replay = api(t.player).post(f"/api/flows/{flow_id}/steps/", step_body, format="json")
    assert replay.status_code == 200 and Roll.objects.filter(flow_id=flow_id).count() == 1
    for reader in (t.player, t.player2, t.reader):
        data = api(reader).get(f"/api/flows/{flow_id}/").json()
        keys, _leaves = _keys_and_leaves([data["state"], data["rolls"]])
        # Structural, not textual: a timestamp or an id may well contain "13".
        assert "secret_state" not in data and not keys & {"difficulty", "margin"}
        assert data["state"]["outcome"] == "failure" and data["rolls"][0]["faces"][0]["pool"] == "omen"
        assert not keys & {"threat_at_roll", "omen_hit"}
        assert all("params" not in s for s in data["steps"]) or reader == t.player
    wrong = api(t.player).post(f"/api/flows/{flow_id}/steps/", {**step_body, "idempotency_key": "k2"}, format="json")
    assert wrong.status_code == 400 and wrong.json()["error"]["code"] == "step_not_available"
    settle = {"step": "finalize", "params": {}, "idempotency_key": "k-fin"}
    assert api(t.gm).post(f"/api/flows/{flow_id}/steps/", settle, format="json").status_code == 201
    again = api(t.gm).post(f"/api/flows/{flow_id}/steps/", {**settle, "idempotency_key": "k-fin-2"}, format="json")
    assert again.status_code == 400 and again.json()["error"]["code"] == "step_not_available"
    assert LedgerEntry.objects.filter(operation="lock_challenge").count() == 1


def render_flow(flow: Flow, user: User) -> str:
    viewer = policy.viewer_for(user, flow.campaign)
    flow = Flow.objects.select_related("campaign", "scene", "opened_by").get(pk=flow.pk)
    (view,) = flow_views(viewer, [flow], "es")
    return render_to_string(
        "rolls/_flow.html", {"view": view, "viewer": viewer, "flow_error": "", "new_idempotency_key": "KEY"}
    )


def test_the_fragment_shows_each_viewer_their_steps_and_never_the_difficulty(t: RollsTable) -> None:
    flow = challenge(t, t.lucia, 17, challenge="La puerta sellada", dangerous=False)
    player_html = render_flow(flow, t.player)
    assert f"flows/{flow.pk}/steps/roll/" in player_html and "Dificultad secreta" in player_html
    assert "17" not in player_html.replace(f"flow-{flow.pk}", "")
    assert "steps/roll/" not in render_flow(flow, t.player2) and "steps/finalize/" not in player_html
    gm_html = render_flow(flow, t.gm)
    assert "Dificultad secreta: 17." in gm_html and "steps/cancel/" in gm_html
    # At threat 0 danger has nothing to be paid with: shown disabled with the reason (vector 26).
    assert "steps/declare_danger/" not in gm_html and "No quedan puntos de amenaza." in gm_html
    visible = re.sub(r"<[^>]+>", " ", gm_html)
    for internal in ("difficulty", "threat_at_roll", "omen_hit", "[0]", "False", "None", "c1", "c2", "c3", "(id)"):
        assert internal not in visible, internal
    flow = step(flow, t.player, "roll", dice=[6, 1, 2, 3])
    player_html = render_flow(flow, t.player)
    assert "Éxito" in player_html or "Fallo" in player_html
    assert "steps/force/" in render_flow(flow, t.player2) and "steps/finalize/" in render_flow(flow, t.gm)
    sealed = conflict(t, t.hugo, t.cosa)
    sealed = step(sealed, t.player2, "roll")
    assert "sellada" in render_flow(sealed, t.player)


def test_the_composer_builder_and_the_start_forms_render(t: RollsTable, client: Any) -> None:
    client.force_login(t.gm)
    page = client.get(t.scene.get_absolute_url())
    assert page.status_code == 200 and f"/scenes/{t.scene.pk}/roll-builder/" in page.content.decode()
    builder = client.get(f"/scenes/{t.scene.pk}/roll-builder/")  # loaded when the writer opens it
    assert builder.status_code == 200 and "presagios-roll-builder" in builder.content.decode()
    flows_html = client.get(f"/scenes/{t.scene.pk}/flows/").content.decode()
    assert "presagios-flow-start" in flows_html and f"/scenes/{t.scene.pk}/flows/challenge/start/" in flows_html
    client.force_login(t.player)
    assert "presagios-flow-start" not in client.get(f"/scenes/{t.scene.pk}/flows/").content.decode()
    form = {"character_id": t.lucia.pk, "characteristic": "c1", "difficulty": "6", "dangerous": "true"}
    client.force_login(t.gm)
    set_threat(t, 2)
    response = client.post(f"/scenes/{t.scene.pk}/flows/challenge/start/", form, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and Flow.objects.filter(kind="challenge").count() == 1
    assert threat(t) == 1 and "Peligroso" in response.content.decode()


def test_a_forced_win_and_the_final_outcome_are_told_under_the_rolls(t: RollsTable) -> None:
    set_threat(t, 4)
    set_sheet(t.cosa, current=[1, 0, 2])
    flow = conflict(t, t.lucia, t.cosa)
    with pytest.raises(RulesError) as exc:  # a player never posts for the GM's side
        step(flow, t.player, "roll", {"side": "b"})
    assert exc.value.code == "not_your_side"
    flow = step(flow, t.player, "roll")
    flow = step(flow, t.gm, "roll", dice=[2, 2, 2, 2, 6])
    params = {"side": "b", "force": "failure", "quality_owner": t.cosa.pk, "quality": "weakness"}
    flow = step(flow, t.player, "force", params)
    assert record(flow)[-1] == "Lucía (1 punto de superación) activa debilidad de La Cosa: gana Lucía"
    force = LedgerEntry.objects.get(operation="force_outcome")
    assert force.params["against_owner"] is True
    flow = step(flow, t.gm, "finalize")
    assert flow.status == FlowStatus.SETTLED
    assert record(flow, lang="en")[-1] == "The GM closes the outcome: Lucía wins."
