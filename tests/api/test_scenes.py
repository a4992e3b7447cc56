from __future__ import annotations

from typing import Any

import pytest

from campaigns.models import Scene, SceneAccess, SceneAspect, SceneStatus
from tests.api.conftest import ApiFor, assert_error
from tests.personas import Table

pytestmark = pytest.mark.django_db


def _by_title(response: Any) -> dict[str, dict]:
    assert response.status_code == 200, response.content
    return {scene["title"]: scene for scene in response.json()["results"]}


def test_list_readable_scenes_with_counts(table: Table, api: ApiFor) -> None:
    url = f"/api/campaigns/{table.campaign.pk}/scenes/"
    gm = _by_title(api(table.gm).get(url))
    assert list(gm) == ["Off-topic", "Llegada", "Aparte"]
    assert (gm["Llegada"]["post_count"], gm["Llegada"]["unread_count"]) == (3, 0)
    assert gm["Aparte"]["readers"] == [table.player.pk]
    assert gm["Aparte"]["access"] == "listed"

    player = _by_title(api(table.player).get(url))
    assert list(player) == ["Off-topic", "Llegada", "Aparte"]
    assert (player["Llegada"]["post_count"], player["Llegada"]["unread_count"]) == (2, 1)
    assert "readers" not in player["Aparte"] and "writers" not in player["Aparte"]

    assert list(_by_title(api(table.player2).get(url))) == ["Off-topic", "Llegada"]
    reader = _by_title(api(table.reader).get(url))
    assert (reader["Llegada"]["post_count"], reader["Llegada"]["unread_count"]) == (1, 1)
    anonymous = _by_title(api(None).get(url))
    assert (anonymous["Llegada"]["post_count"], anonymous["Llegada"]["unread_count"]) == (1, 0)


def test_scene_detail_and_hidden_scenes(table: Table, private_table: Table, api: ApiFor) -> None:
    detail = api(table.player).get(f"/api/scenes/{table.listed_scene.pk}/")
    assert detail.status_code == 200
    assert detail.json()["may_write"] is True
    assert api(table.reader).get(f"/api/scenes/{table.scene.pk}/").json()["may_write"] is False
    assert_error(api(table.player2).get(f"/api/scenes/{table.listed_scene.pk}/"), 404)
    assert_error(api(private_table.outsider).get(f"/api/scenes/{private_table.scene.pk}/"), 404)
    assert_error(api(private_table.outsider).get(f"/api/campaigns/{private_table.campaign.pk}/scenes/"), 404)


def test_create_scene_with_access_lists(table: Table, api: ApiFor) -> None:
    url = f"/api/campaigns/{table.campaign.pk}/scenes/"
    payload = {
        "title": "Sótano",
        "access": "listed",
        "readers": [table.reader.pk],
        "writers": [table.player2.pk],
    }
    response = api(table.gm).post(url, payload, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["readers"], body["writers"], body["position"]) == ([table.reader.pk], [table.player2.pk], 3)
    scene = Scene.objects.get(pk=body["id"])
    assert scene.access == SceneAccess.LISTED

    before = Scene.objects.count()
    assert_error(api(table.player).post(url, {"title": "Mía"}, format="json"), 403)
    assert_error(api(None).post(url, {"title": "Anon"}, format="json"), 401)
    assert_error(api(table.gm).post(url, {"title": "", "access": "some"}, format="json"), 400, "title", "access")
    # Only members may be listed: the service refuses and nothing is written.
    outsider = {"title": "Fuera", "access": "listed", "readers": [table.outsider.pk]}
    assert_error(api(table.gm).post(url, outsider, format="json"), 400, "readers")
    assert Scene.objects.count() == before


def test_update_scene(table: Table, api: ApiFor) -> None:
    url = f"/api/scenes/{table.scene.pk}/"
    response = api(table.gm).patch(
        url, {"title": "Llegada (II)", "access": "listed", "writers": [table.player2.pk]}, format="json"
    )
    assert response.status_code == 200, response.content
    assert (response.json()["title"], response.json()["writers"]) == ("Llegada (II)", [table.player2.pk])
    assert_error(api(table.player2).patch(url, {"title": "Mía"}, format="json"), 403)
    assert_error(api(table.gm).patch(url, {"writers": ["x"]}, format="json"), 400, "writers")
    assert_error(api(table.gm).patch(f"/api/scenes/{table.offtopic.pk}/", {"access": "listed"}), 400, "access")
    table.scene.refresh_from_db()
    assert table.scene.title == "Llegada (II)"
    assert list(table.scene.writers.values_list("id", flat=True)) == [table.player2.pk]


def test_close_reopen_and_reorder(table: Table, api: ApiFor) -> None:
    closed = api(table.gm).post(f"/api/scenes/{table.scene.pk}/close/")
    assert closed.status_code == 200
    assert closed.json()["status"] == "closed"
    assert api(table.player).get(f"/api/scenes/{table.scene.pk}/").json()["may_write"] is False
    assert_error(api(table.player).post(f"/api/scenes/{table.scene.pk}/reopen/"), 403)
    assert api(table.gm).post(f"/api/scenes/{table.scene.pk}/reopen/").json()["status"] == "open"
    table.scene.refresh_from_db()
    assert table.scene.status == SceneStatus.OPEN

    url = f"/api/campaigns/{table.campaign.pk}/scenes/reorder/"
    order = [table.listed_scene.pk, table.scene.pk, table.offtopic.pk]
    assert_error(api(table.player).post(url, {"scene_ids": order}, format="json"), 403)
    assert_error(api(table.gm).post(url, {"scene_ids": order[:2]}, format="json"), 400, "scene_ids")
    assert_error(api(table.gm).post(url, {}, format="json"), 400, "scene_ids")
    assert api(table.gm).post(url, {"scene_ids": order}, format="json").status_code == 204
    titles = list(_by_title(api(table.gm).get(f"/api/campaigns/{table.campaign.pk}/scenes/")))
    assert titles == ["Aparte", "Llegada", "Off-topic"]


def test_aspects(table: Table, api: ApiFor) -> None:
    url = f"/api/scenes/{table.scene.pk}/aspects/"
    visible = api(table.gm).post(url, {"text": "Niebla espesa", "free_invocations": 1}, format="json")
    hidden = api(table.gm).post(url, {"text": "Trampa en el suelo", "hidden": True}, format="json")
    assert visible.status_code == hidden.status_code == 201
    hidden_id = hidden.json()["id"]
    assert [a["text"] for a in api(table.gm).get(url).json()["results"]] == ["Niebla espesa", "Trampa en el suelo"]
    player_view = api(table.player).get(url)
    assert [a["text"] for a in player_view.json()["results"]] == ["Niebla espesa"]
    assert "Trampa" not in player_view.content.decode()

    assert_error(api(table.player).post(url, {"text": "Mío"}, format="json"), 403)
    assert_error(api(table.gm).post(url, {"text": "", "free_invocations": 99}, format="json"), 400, "text")
    assert_error(api(table.player).patch(f"{url}{hidden_id}/", {"text": "x"}, format="json"), 404)
    visible_id = visible.json()["id"]
    assert_error(api(table.player).patch(f"{url}{visible_id}/", {"text": "x"}, format="json"), 403)
    updated = api(table.gm).patch(f"{url}{hidden_id}/", {"hidden": False, "free_invocations": 2}, format="json")
    assert (updated.json()["hidden"], updated.json()["free_invocations"]) == (False, 2)
    assert_error(api(table.player).delete(f"{url}{visible_id}/"), 403)
    assert api(table.gm).delete(f"{url}{visible_id}/").status_code == 204
    assert list(SceneAspect.objects.values_list("text", flat=True)) == ["Trampa en el suelo"]
    assert_error(api(table.gm).delete(f"/api/scenes/{table.listed_scene.pk}/aspects/{hidden_id}/"), 404)
