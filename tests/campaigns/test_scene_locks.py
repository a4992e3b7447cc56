"""A write in a scene that PostgreSQL still aborts to break a deadlock is run again once by its service; a
second deadlock is a clear "try again" error (API: 503 JSON), never a 500, and writes nothing (issue 26).

The deadlock is simulated (the error PostgreSQL's driver raises, on the read mark's upsert, the statement
that deadlocked in issue 26), so these run on SQLite too. The tests own their transactions
(``transaction=True``): inside a caller's transaction the service leaves the retry to the caller.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg.errors
import pytest
from django.db import OperationalError, transaction
from rest_framework.test import APIClient

from campaigns import services
from campaigns.models import Post, SceneReadMark
from campaigns.scene_locks import SceneBusy, is_deadlock
from record.models import RollChain
from rolls.models import Roll
from rolls.services import RollSpec, create_post_with_rolls
from tests.personas import Table

pytestmark = pytest.mark.django_db(transaction=True)


def _deadlock() -> OperationalError:
    # What Django raises for psycopg's DeadlockDetected (SQLSTATE 40P01).
    try:
        try:
            raise psycopg.errors.DeadlockDetected("deadlock detected")
        except psycopg.errors.DeadlockDetected as cause:
            raise OperationalError("deadlock detected") from cause
    except OperationalError as error:
        return error


def deadlocking_read_mark(monkeypatch: pytest.MonkeyPatch, times: int) -> list[int]:
    """The read mark's upsert deadlocks the first ``times`` calls; returns the list of calls made."""
    calls: list[int] = []
    upsert: Callable[..., None] = services._upsert_read_mark

    def deadlocking(*args: Any) -> None:
        calls.append(1)
        if len(calls) <= times:
            raise _deadlock()
        upsert(*args)

    monkeypatch.setattr(services, "_upsert_read_mark", deadlocking)
    return calls


def test_a_deadlocked_post_is_written_once_on_its_second_run(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = deadlocking_read_mark(monkeypatch, times=1)
    post = create_post_with_rolls(
        author=table.player,
        scene=table.scene,
        body="a la segunda",
        rolls=[RollSpec(kind="notation", data={"expression": "2d6"})],
    )
    assert len(calls) == 2
    assert Post.objects.filter(body_source="a la segunda").count() == 1
    assert Roll.objects.filter(post=post).count() == 1
    chain = RollChain.objects.get(campaign=table.campaign)
    assert chain.length == Roll.objects.filter(campaign=table.campaign).count()
    assert SceneReadMark.objects.get(user=table.player, scene=table.scene).last_read_post_id == post.pk


def test_a_second_deadlock_is_a_clear_error_and_writes_nothing(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = deadlocking_read_mark(monkeypatch, times=2)
    posts, rolls = Post.objects.count(), Roll.objects.count()
    with pytest.raises(SceneBusy) as caught:
        create_post_with_rolls(
            author=table.player,
            scene=table.scene,
            body="nunca",
            rolls=[RollSpec(kind="notation", data={"expression": "2d6"})],
        )
    assert len(calls) == 2  # once, and once again: no third run
    assert "vuelve a intentarlo" in caught.value.messages[0]
    assert (Post.objects.count(), Roll.objects.count()) == (posts, rolls)


def test_the_api_answers_a_second_deadlock_with_503_and_a_message(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    deadlocking_read_mark(monkeypatch, times=2)
    client = APIClient()
    client.force_authenticate(table.player)
    posts = Post.objects.count()
    response = client.post(f"/api/scenes/{table.scene.pk}/posts/", {"body": "nunca"}, format="json")
    assert response.status_code == 503, response.content
    assert response["Retry-After"] == "1"
    error = response.json()["error"]
    assert error["code"] == "scene_busy" and error["message"]
    assert Post.objects.count() == posts


def test_inside_a_callers_transaction_the_deadlock_goes_to_the_caller(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = deadlocking_read_mark(monkeypatch, times=1)
    with pytest.raises(OperationalError) as caught, transaction.atomic():
        services.create_post(author=table.player, scene=table.scene, body="dentro")
    assert is_deadlock(caught.value)
    assert len(calls) == 1  # the caller's transaction is aborted whole: only its owner may run it again
    assert not Post.objects.filter(body_source="dentro").exists()
