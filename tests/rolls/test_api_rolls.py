"""The rolls and flows API: rolls with their posts, faces per pool, secrets absent or 404, reveals by GMs,
flows with idempotent steps; errors as JSON; lists paginated with constant queries."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.models import User
from campaigns.models import Post, Recipients
from rolls import runner
from rolls.models import FlowStep, Roll, RollFollowUp, RollReveal
from rulesets.kit.procedures import Procedure
from systems.dice import ScriptedDice
from tests.personas import Table
from tests.rolls.test_views_rolls import (
    FLOW_SECRET,
    SECRET_NUMBER,
    roll_post,
    secret_difficulty_roll,
    start_duel,
)

pytestmark = pytest.mark.django_db


def api(user: User | None, language: str = "es") -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE=language)
    if user is not None:
        client.force_authenticate(user)
    return client


def error_of(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] and error["message"]
    return error


# --- Posts with rolls -----------------------------------------------------------------------------


def test_a_post_created_with_rolls_carries_faces_per_pool_and_result(table: Table, monkeypatch: Any) -> None:
    monkeypatch.setattr("rolls.services.SystemDice", lambda: ScriptedDice([3, 1, 2, 3, 5]))
    body = {
        "body": "Salto.",
        "rolls": [{"kind": "notation", "data": {"expression": "4dF+1d6"}, "label": "Saltar"}],
    }
    response = api(table.player).post(f"/api/scenes/{table.scene.pk}/posts/", body, format="json")
    assert response.status_code == 201, response.content
    roll = response.json()["rolls"][0]
    assert roll["label"] == "Saltar" and roll["kind"] == "notation" and roll["ruleset"] == "generic"
    assert roll["faces"] == [
        {"pool": "fudge", "dice": [{"face": 1, "glyph": "+", "counts": True, "note": ""},
                                   {"face": -1, "glyph": "−", "counts": True, "note": ""},
                                   {"face": 0, "glyph": " ", "counts": True, "note": ""},
                                   {"face": 1, "glyph": "+", "counts": True, "note": ""}]},
        {"pool": "d6", "dice": [{"face": 5, "glyph": "5", "counts": True, "note": ""}]},
    ]  # fmt: skip
    assert roll["result"]["totals"] == [6] and roll["summary"].endswith("= 6")
    assert "secret" not in roll and roll["follow_ups"] == []


def test_a_refused_roll_writes_no_post(table: Table) -> None:
    before = Post.objects.count()
    url = f"/api/scenes/{table.scene.pk}/posts/"
    bad = api(table.player, "en").post(
        url, {"body": "x", "rolls": [{"kind": "notation", "data": {"expression": "99999999d6"}}]}, format="json"
    )
    assert error_of(bad, 400)["code"] == "too_many_dice"
    secret = api(table.player).post(
        url,
        {"body": "x", "rolls": [{"kind": "notation", "data": {"expression": "1d6"}, "gm_only": True}]},
        format="json",
    )
    error_of(secret, 403)
    shapeless = api(table.player).post(url, {"body": "x", "rolls": [{"data": {}}]}, format="json")
    assert "rolls" in error_of(shapeless, 400)["fields"]
    too_many = api(table.player).post(
        url, {"body": "x", "rolls": [{"kind": "notation", "data": {"expression": "1d6"}}] * 11}, format="json"
    )
    error_of(too_many, 400)
    assert Post.objects.count() == before and not Roll.objects.exists()


def test_post_rolls_follow_the_policy(table: Table) -> None:
    open_post = roll_post(table.player, table.scene)
    secret_post = roll_post(table.gm, table.scene, "1d20", [20], gm_only=True)
    for user, expected in ((table.player, 0), (table.gm, 1)):
        response = api(user).get(f"/api/posts/{secret_post.pk}/rolls/")
        assert response.status_code == 200 and response.json()["count"] == expected
    listed = api(table.reader).get(f"/api/scenes/{table.scene.pk}/posts/").json()["results"]
    by_id = {post["id"]: post for post in listed}
    assert len(by_id[open_post.pk]["rolls"]) == 1 and by_id[secret_post.pk]["rolls"] == []
    gm_listed = {p["id"]: p for p in api(table.gm).get(f"/api/scenes/{table.scene.pk}/posts/").json()["results"]}
    assert gm_listed[secret_post.pk]["rolls"][0]["gm_only"] is True


def test_a_roll_on_a_post_one_may_not_see_is_404(table: Table) -> None:
    from rolls.services import RollSpec, create_post_with_rolls

    post = create_post_with_rolls(
        author=table.player2,
        scene=table.scene,
        body="Solo para la dirección.",
        recipients=Recipients.GMS,
        rolls=[RollSpec(kind="notation", data={"expression": "1d6"})],
    )
    roll = post.rolls.get()
    assert api(table.player).get(f"/api/rolls/{roll.pk}/").status_code == 404
    assert api(table.player).get(f"/api/posts/{post.pk}/rolls/").status_code == 404
    assert api(table.gm).get(f"/api/rolls/{roll.pk}/").status_code == 200
    assert api(table.player2).get(f"/api/rolls/{roll.pk}/").status_code == 200


# --- Secret rolls, secret difficulties and reveals ------------------------------------------------


def test_a_secret_roll_is_404_for_players_until_a_gm_reveals_it(table: Table) -> None:
    roll = roll_post(table.gm, table.scene, "1d20", [17], gm_only=True).rolls.get()
    error_of(api(table.player).get(f"/api/rolls/{roll.pk}/"), 404)
    error_of(api(table.player).post(f"/api/rolls/{roll.pk}/reveal/", {}, format="json"), 404)
    assert api(table.gm).get(f"/api/rolls/{roll.pk}/").json()["gm_only"] is True
    revealed = api(table.gm).post(f"/api/rolls/{roll.pk}/reveal/", {"include_secret": False}, format="json")
    assert revealed.status_code == 200 and revealed.json()["revealed"] is True
    assert api(table.player).get(f"/api/rolls/{roll.pk}/").json()["result"]["totals"] == [17]
    error_of(api(table.gm).post(f"/api/rolls/{roll.pk}/reveal/", {}, format="json"), 400)
    assert RollReveal.objects.count() == 1


def test_a_secret_difficulty_is_absent_for_players_and_revealed_by_a_gm(table: Table) -> None:
    roll = secret_difficulty_roll(table)
    for user in (table.player, table.reader, None):
        data = api(user).get(f"/api/rolls/{roll.pk}/").json()
        assert "secret" not in data and str(SECRET_NUMBER) not in str(data)
        posts = api(user).get(f"/api/scenes/{table.scene.pk}/posts/").content.decode()
        assert str(SECRET_NUMBER) not in posts
    assert api(table.gm).get(f"/api/rolls/{roll.pk}/").json()["secret"] == {"difficulty": SECRET_NUMBER}
    error_of(api(table.player).post(f"/api/rolls/{roll.pk}/reveal/", {"include_secret": True}, format="json"), 403)
    error_of(api(None).post(f"/api/rolls/{roll.pk}/reveal/", {}, format="json"), 401)
    assert not RollReveal.objects.exists()
    response = api(table.gm).post(f"/api/rolls/{roll.pk}/reveal/", {"include_secret": True}, format="json")
    assert response.status_code == 200
    assert api(table.player).get(f"/api/rolls/{roll.pk}/").json()["secret"] == {"difficulty": SECRET_NUMBER}


def test_the_revision_history_api_never_carries_a_secret_difficulty(table: Table) -> None:
    roll = secret_difficulty_roll(table)
    api(table.player).patch(f"/api/posts/{roll.post_id}/", {"body": "Otra versión."}, format="json")
    history = api(table.player).get(f"/api/posts/{roll.post_id}/revisions/")
    assert history.status_code == 200 and history.json()["count"] == 1
    assert str(SECRET_NUMBER) not in history.content.decode()
    assert Roll.objects.get(pk=roll.pk).post_id == roll.post_id  # editing never touches rolls


# --- Flows ----------------------------------------------------------------------------------------


def test_open_a_flow_and_read_what_it_waits_for(table: Table, duel: Procedure[Any]) -> None:
    response = api(table.gm, "en").post(
        f"/api/scenes/{table.scene.pk}/flows/", {"kind": "duel", "params": {"player": table.player.pk}}, format="json"
    )
    assert response.status_code == 201, response.content
    flow = response.json()
    assert flow["status"] == "open" and flow["secret_state"] == {"difficulty": FLOW_SECRET}
    assert flow["waiting"]["names"] == ["Ana"] and flow["waiting"]["label"] == "the player's roll"
    assert flow["may_act"] is False  # the GM does not take the player's step

    mine = api(table.player).get(f"/api/flows/{flow['id']}/").json()
    assert "secret_state" not in mine and str(FLOW_SECRET) not in str(mine) and mine["may_act"] is True
    listed = api(table.reader).get(f"/api/scenes/{table.scene.pk}/flows/?status=open").json()
    assert listed["count"] == 1 and "secret_state" not in listed["results"][0]
    error_of(api(table.reader).get(f"/api/scenes/{table.scene.pk}/flows/?status=nope"), 400)
    error_of(api(table.player2).get(f"/api/scenes/{table.listed_scene.pk}/flows/"), 404)
    error_of(
        api(table.reader).post(f"/api/scenes/{table.scene.pk}/flows/", {"kind": "duel", "params": {}}, format="json"),
        403,
    )


def test_a_replayed_step_returns_the_unchanged_flow(table: Table, duel: Procedure[Any]) -> None:
    flow = start_duel(table)
    url = f"/api/flows/{flow.pk}/steps/"
    body = {"step": "player_roll", "idempotency_key": "3f1c"}
    first = api(table.player).post(url, body, format="json")
    assert first.status_code == 201, first.content
    data = first.json()
    assert data["waiting"]["step"] == "settle" and data["waiting"]["names"] == ["Directora"]
    assert len(data["rolls"]) == 1 and data["rolls"][0]["faces"][0]["pool"] == "d6"
    assert data["steps"][0]["params"] == {} and data["steps"][0]["actor"]["public_name"] == "Ana"
    replay = api(table.player).post(url, body, format="json")
    assert replay.status_code == 200 and replay.json()["state"] == data["state"]
    assert FlowStep.objects.count() == 1 and Roll.objects.filter(flow=flow).count() == 1
    error_of(api(table.player).post(url, {"step": "player_roll"}, format="json"), 400)  # a key is required


def test_steps_out_of_turn_and_after_settlement_are_refused(table: Table, duel: Procedure[Any]) -> None:
    flow = start_duel(table)
    url = f"/api/flows/{flow.pk}/steps/"
    error_of(api(table.player2).post(url, {"step": "player_roll", "idempotency_key": "x1"}, format="json"), 403)
    out_of_order = api(table.gm).post(url, {"step": "settle", "idempotency_key": "x2"}, format="json")
    assert error_of(out_of_order, 400)["code"] == "step_not_available"
    api(table.player).post(url, {"step": "player_roll", "idempotency_key": "x3"}, format="json")
    settled = api(table.gm, "en").post(url, {"step": "settle", "idempotency_key": "x4"}, format="json")
    assert settled.status_code == 201 and settled.json()["status"] == "settled"
    follow_up = settled.json()["rolls"][0]["follow_ups"][0]
    assert follow_up["kind"] == "settle" and follow_up["summary"] == "Settled in favour"
    late = api(table.gm, "en").post(url, {"step": "settle", "idempotency_key": "x5"}, format="json")
    error = error_of(late, 400)
    assert error["code"] == "step_not_available" and error["message"] == "This procedure is already closed."
    assert RollFollowUp.objects.count() == 1 and FlowStep.objects.count() == 2
    # A player never reads another's step params (a sealed split); GMs do.
    rolled = api(table.reader).get(f"/api/flows/{flow.pk}/").json()
    assert all("params" not in step for step in rolled["steps"])
    assert all("params" in step for step in api(table.gm).get(f"/api/flows/{flow.pk}/").json()["steps"])


def test_a_secret_roll_in_a_flow_is_hidden_from_players(table: Table, duel: Procedure[Any]) -> None:
    flow = start_duel(table)
    from rolls.services import RollSpec, make_roll

    roll = make_roll(actor=table.gm, scene=table.scene, spec=RollSpec(kind="notation", data={"expression": "1d6"},
                                                                       gm_only=True))  # fmt: skip
    Roll.objects.filter(pk=roll.pk).update(flow=flow)
    assert api(table.player).get(f"/api/flows/{flow.pk}/").json()["rolls"] == []
    assert len(api(table.gm).get(f"/api/flows/{flow.pk}/").json()["rolls"]) == 1


# --- Lists: paginated, constant queries -----------------------------------------------------------


def _count(client: APIClient, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_posts_with_rolls_and_flows_lists_do_not_grow(table: Table, duel: Procedure[Any]) -> None:
    def grow(n: int) -> None:
        for i in range(n):
            post = roll_post(table.player, table.scene, "2d6", [i % 6 + 1, 2])
            RollFollowUp.objects.create(roll=post.rolls.get(), kind="note", actor=table.gm, summary_es="n")
            flow = start_duel(table)
            runner.take_step(actor=table.player, flow=flow, step="player_roll", dice=ScriptedDice([3]))

    client = api(table.player)
    urls = [f"/api/scenes/{table.scene.pk}/posts/", f"/api/scenes/{table.scene.pk}/flows/?status=open"]
    grow(2)
    small = [_count(client, url) for url in urls]
    grow(12)
    assert [_count(client, url) for url in urls] == small
    post = Post.objects.filter(rolls__isnull=False).first()
    assert post is not None and api(table.player).get(f"/api/posts/{post.pk}/rolls/").json()["count"] == 1
