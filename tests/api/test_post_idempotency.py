"""Posts accept an idempotency key (issue 11, item 7): a retry of the same request answers the post it wrote;
the key with other content is a 409; the replay is answered only after the permission check."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns import services
from campaigns.models import Post
from tests.api.conftest import ApiFor, assert_error
from tests.personas import Table

pytestmark = pytest.mark.django_db


def _post(api: ApiFor, table: Table, user: object, **body: object) -> Any:
    payload = {"body": "Abro la puerta", "voice": "ooc", "idempotency_key": "k-1", **body}
    return api(user).post(f"/api/scenes/{table.scene.pk}/posts/", payload, format="json")  # type: ignore[arg-type]


def test_a_retry_answers_the_post_already_written(table: Table, api: ApiFor) -> None:
    first = _post(api, table, table.player, rolls=[{"kind": "notation", "data": {"expression": "2d6"}}])
    assert first.status_code == 201, first.content
    before = Post.objects.count()
    again = _post(api, table, table.player, rolls=[{"kind": "notation", "data": {"expression": "2d6"}}])
    assert again.status_code == 200
    assert again.json()["id"] == first.json()["id"]
    assert again.json()["rolls"] == first.json()["rolls"]  # the same dice, not rolled again
    assert Post.objects.count() == before


def test_the_key_with_other_content_is_a_conflict(table: Table, api: ApiFor) -> None:
    assert _post(api, table, table.player).status_code == 201
    error = assert_error(_post(api, table, table.player, body="Otra cosa"), 409)
    assert error["code"] == "idempotency_conflict"
    other_scene = assert_error(
        api(table.player).post(
            f"/api/scenes/{table.offtopic.pk}/posts/",
            {"body": "Abro la puerta", "voice": "ooc", "idempotency_key": "k-1"},
            format="json",
        ),
        409,
    )
    assert other_scene["code"] == "idempotency_conflict"


def test_keys_belong_to_their_author_and_the_policy_answers_first(table: Table, api: ApiFor) -> None:
    assert _post(api, table, table.player).status_code == 201
    # A reader with the player's key: refused by the policy, never told about the player's post.
    assert_error(_post(api, table, table.reader), 403)
    # Another player with the same key writes their own post: keys are per author.
    assert _post(api, table, table.player2).status_code == 201
    # A player removed from the campaign cannot replay their own key either.
    services.remove_member(actor=table.gm, campaign=table.campaign, user=table.player)
    assert _post(api, table, table.player).status_code in (403, 404)


def test_posts_without_a_key_are_never_replays(table: Table, api: ApiFor) -> None:
    first = _post(api, table, table.player, idempotency_key="")
    second = _post(api, table, table.player, idempotency_key="")
    assert first.status_code == second.status_code == 201
    assert first.json()["id"] != second.json()["id"]
