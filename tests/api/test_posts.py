from __future__ import annotations

from typing import Any

import pytest

from campaigns.models import Post, PostRevision, SceneReadMark
from tests.api.conftest import ApiFor, assert_error
from tests.personas import Table

pytestmark = pytest.mark.django_db

SECRETS = ("TEXTO-SOLO-MASTERS", "TEXTO-SUSURRO")


def _bodies(response: Any) -> list[str]:
    assert response.status_code == 200, response.content
    return [post["body"] for post in response.json()["results"]]


def test_each_role_sees_only_its_posts(table: Table, private_table: Table, api: ApiFor) -> None:
    url = f"/api/scenes/{table.scene.pk}/posts/"
    assert _bodies(api(table.gm).get(url)) == ["TEXTO-PARA-TODOS", "TEXTO-SOLO-MASTERS", "TEXTO-SUSURRO"]
    assert _bodies(api(table.player).get(url)) == ["TEXTO-PARA-TODOS", "TEXTO-SUSURRO"]
    assert _bodies(api(table.player2).get(url)) == ["TEXTO-PARA-TODOS", "TEXTO-SOLO-MASTERS"]
    for user in (table.reader, table.outsider, None):
        response = api(user).get(url)
        assert _bodies(response) == ["TEXTO-PARA-TODOS"]
        assert not any(secret in response.content.decode() for secret in SECRETS)
    whisper = api(table.player).get(url).json()["results"][1]
    assert [u["id"] for u in whisper["whisper_to"]] == [table.player.pk]
    assert_error(api(private_table.outsider).get(f"/api/scenes/{private_table.scene.pk}/posts/"), 404)
    assert_error(api(table.player2).get(f"/api/scenes/{table.listed_scene.pk}/posts/"), 404)


def test_retrieve_hidden_posts_are_404(table: Table, api: ApiFor) -> None:
    assert api(table.player).get(f"/api/posts/{table.whisper.pk}/").json()["body"] == "TEXTO-SUSURRO"
    for user in (table.player2, table.reader, table.outsider, None):
        assert_error(api(user).get(f"/api/posts/{table.whisper.pk}/"), 404)
    assert_error(api(table.player).get(f"/api/posts/{table.post_gms.pk}/"), 404)
    assert_error(api(table.gm).get("/api/posts/999999/"), 404)


def test_create_post(table: Table, api: ApiFor) -> None:
    url = f"/api/scenes/{table.scene.pk}/posts/"
    payload = {"voice": "character", "character": table.character.pk, "body": "Abro la **puerta**.", "notes": "+2"}
    response = api(table.player).post(url, payload, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["body_html"] == "<p>Abro la <strong>puerta</strong>.</p>\n"
    assert body["character"] == {"id": table.character.pk, "name": "Lucía"}
    assert (body["may_edit"], body["revision_count"]) == (True, 0)

    whisper = {
        "voice": "narrator",
        "body": "Sólo tú lo oyes.",
        "recipients": "whisper",
        "whisper_to": [table.player2.pk],
    }
    created = api(table.gm).post(url, whisper, format="json")
    assert created.status_code == 201, created.content
    assert [u["id"] for u in created.json()["whisper_to"]] == [table.player2.pk]


def test_create_post_refusals_write_nothing(table: Table, api: ApiFor) -> None:
    url = f"/api/scenes/{table.scene.pk}/posts/"
    before = Post.objects.count()
    assert_error(api(None).post(url, {"body": "anon"}, format="json"), 401)
    assert_error(api(table.reader).post(url, {"body": "lector"}, format="json"), 403)
    assert_error(api(table.outsider).post(url, {"body": "ajena"}, format="json"), 403)
    assert_error(api(table.player).post(url, {"body": ""}, format="json"), 400, "body")
    assert_error(api(table.player).post(url, {"body": "x", "voice": "god"}, format="json"), 400, "voice")
    assert_error(api(table.player).post(url, {"body": "x", "voice": "narrator"}, format="json"), 400, "voice")
    as_other = {"body": "x", "voice": "character", "character": table.character2.pk}
    assert_error(api(table.player).post(url, as_other, format="json"), 400, "character")
    assert_error(api(table.player).post(url, {**as_other, "character": 999999}, format="json"), 400, "character")
    listed_only = {"body": "x", "recipients": "whisper", "whisper_to": [table.player2.pk]}
    listed_url = f"/api/scenes/{table.listed_scene.pk}/posts/"
    assert_error(api(table.gm).post(listed_url, listed_only, format="json"), 400, "whisper_to")
    assert Post.objects.count() == before


def test_edit_post_and_revisions(table: Table, api: ApiFor) -> None:
    url = f"/api/posts/{table.post_all.pk}/"
    assert_error(api(table.gm).patch(url, {"body": "del máster"}, format="json"), 403)
    assert_error(api(table.player).patch(url, {"body": ""}, format="json"), 400, "body")
    edited = api(table.player).patch(url, {"body": "TEXTO-NUEVO"}, format="json")
    assert edited.status_code == 200
    assert (edited.json()["body"], edited.json()["is_edited"], edited.json()["revision_count"]) == (
        "TEXTO-NUEVO",
        True,
        1,
    )
    assert PostRevision.objects.get().body_source == "TEXTO-PARA-TODOS"

    reader_view = api(table.reader).get(url).json()
    assert reader_view["is_edited"] is True
    assert "revision_count" not in reader_view
    revisions = f"{url}revisions/"
    assert_error(api(table.reader).get(revisions), 403)
    assert_error(api(table.player2).get(revisions), 403)
    for user in (table.gm, table.player):
        listed = api(user).get(revisions).json()
        assert (listed["count"], listed["results"][0]["body"]) == (1, "TEXTO-PARA-TODOS")
    assert_error(api(table.player).get(f"/api/posts/{table.whisper.pk}/revisions/"), 403)
    assert_error(api(table.reader).get(f"/api/posts/{table.whisper.pk}/revisions/"), 404)


def test_delete_post_is_soft_and_flagged_for_gms(table: Table, api: ApiFor) -> None:
    url = f"/api/posts/{table.post_all.pk}/"
    assert_error(api(table.player2).delete(url), 403)
    assert api(table.player).delete(url).status_code == 204
    assert Post.objects.get(pk=table.post_all.pk).deleted_by == table.player
    assert_error(api(table.player).get(url), 404)
    assert_error(api(table.player).delete(url), 404)
    gm_view = api(table.gm).get(url).json()
    assert gm_view["is_deleted"] is True
    assert gm_view["deleted_by"]["id"] == table.player.pk
    assert "deleted_at" in gm_view
    assert "deleted_at" not in api(table.gm).get(f"/api/posts/{table.whisper.pk}/").json()
    posts = api(table.reader).get(f"/api/scenes/{table.scene.pk}/posts/").json()
    assert posts["results"] == []
    assert_error(api(table.gm).delete(url), 400)  # already deleted


def test_mark_read_and_unread(table: Table, api: ApiFor) -> None:
    unread = api(table.player).get("/api/unread/")
    assert unread.status_code == 200
    assert [(r["scene"]["id"], r["unread_count"]) for r in unread.json()["results"]] == [(table.scene.pk, 1)]
    assert unread.json()["results"][0]["first_unread_id"] == table.whisper.pk
    assert unread.json()["results"][0]["scene"]["campaign"]["id"] == table.campaign.pk

    read = f"/api/scenes/{table.scene.pk}/read/"
    assert api(table.player).post(read, {}, format="json").status_code == 204
    assert SceneReadMark.objects.get(user=table.player, scene=table.scene).last_read_post_id == table.whisper.pk
    assert api(table.player).get("/api/unread/").json()["results"] == []
    assert api(table.reader).post(read, {"up_to_post_id": 0}, format="json").status_code == 204
    assert api(table.reader).get("/api/unread/").json()["count"] == 1
    assert_error(api(table.reader).post(read, {"up_to_post_id": "x"}, format="json"), 400, "up_to_post_id")
    assert_error(api(None).post(read), 401)
    assert_error(api(None).get("/api/unread/"), 401)
    assert_error(api(table.player2).post(f"/api/scenes/{table.listed_scene.pk}/read/"), 404)
