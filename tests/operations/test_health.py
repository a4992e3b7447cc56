"""``/healthz`` and ``/readyz``: JSON, 200 or 503, each unhealthy part named, no middleware side effects."""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Any

import pytest
from django.db import DatabaseError
from django.test import Client, override_settings
from django.utils import timezone
from django.utils.module_loading import import_string

from operations import health
from taskqueue.models import QueuedTask, QueuedTaskStatus


def queue_task(task_id: str, age: timedelta, **fields: Any) -> QueuedTask:
    row = QueuedTask.objects.create(id=task_id, task_path="notifications.tasks.send_reminders", **fields)
    QueuedTask.objects.filter(pk=row.pk).update(enqueued_at=timezone.now() - age)
    return row


def test_healthz_answers_without_the_database(client: Client) -> None:
    # No django_db mark: any query would fail the test.
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_readyz_is_ready_when_every_part_is(client: Client) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert {name: check["ok"] for name, check in body["checks"].items()} == {
        "database": True,
        "channel_layer": True,
        "task_queue": True,
    }
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_readyz_fails_when_the_database_does_not_answer(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_cursor(*args: Any, **kwargs: Any) -> Any:
        raise DatabaseError("connection to server at 10.0.0.7 refused")

    monkeypatch.setattr(health.connection, "cursor", broken_cursor)
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["database"] == {"ok": False, "detail": "DatabaseError"}
    assert "10.0.0.7" not in response.content.decode()  # the probe answers anyone: no host names


class SilentLayer:
    """A layer that takes messages and never hands them back (Redis gone quiet)."""

    async def new_channel(self) -> str:
        return "readiness.silent"

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        return None

    async def receive(self, channel: str) -> dict[str, Any]:
        import asyncio

        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class BrokenLayer(SilentLayer):
    async def send(self, channel: str, message: dict[str, Any]) -> None:
        raise ConnectionError("redis://10.0.0.8:6379 refused")


@pytest.mark.django_db
def test_readyz_fails_when_the_channel_layer_loses_the_message(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(health, "LAYER_TIMEOUT_SECONDS", 0.05)
    monkeypatch.setattr(health, "get_channel_layer", SilentLayer)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["channel_layer"] == {"ok": False, "detail": "no answer within 0.05 s"}


@pytest.mark.django_db
def test_readyz_fails_when_the_channel_layer_is_unreachable(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(health, "get_channel_layer", BrokenLayer)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["channel_layer"] == {"ok": False, "detail": "ConnectionError"}
    assert response.json()["checks"]["database"]["ok"] is True


@pytest.mark.services
@pytest.mark.parametrize("backend", ["pubsub.RedisPubSubChannelLayer", "core.RedisChannelLayer"])
async def test_the_round_trip_leaves_no_channel_behind_in_redis(backend: str) -> None:
    # A probe every few seconds: a subscription or buffer left per probe would pile up for ever.
    if not os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL is not set")
    layer_class = import_string(f"channels_redis.{backend}")
    layer = layer_class(hosts=[os.environ["REDIS_URL"]], prefix=f"readyz-test-{os.getpid()}")
    try:
        assert await health._layer_round_trip(layer)
        assert await health._layer_round_trip(layer)
        local = layer._get_layer() if hasattr(layer, "_get_layer") else layer
        kept = getattr(local, "channels", None) if hasattr(layer, "_get_layer") else local.receive_buffer
        assert not kept
    finally:
        await layer.flush()


@pytest.mark.django_db
@override_settings(READINESS_TASK_LAG_SECONDS=60)
def test_readyz_fails_when_a_ready_task_waits_too_long(client: Client) -> None:
    queue_task("fresh", timedelta(seconds=10))
    assert client.get("/readyz").status_code == 200
    queue_task("stuck", timedelta(seconds=90))
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["task_queue"]["ok"] is False
    assert "waited 90 s (limit 60 s)" in response.json()["checks"]["task_queue"]["detail"]


@pytest.mark.django_db
def test_task_lag_counts_only_tasks_ready_to_run_now() -> None:
    now = timezone.now()
    hour = timedelta(hours=1)
    queue_task("done", 3 * hour, status=QueuedTaskStatus.SUCCESSFUL)
    queue_task("running", 3 * hour, status=QueuedTaskStatus.RUNNING)
    queue_task("deferred", 3 * hour, run_after=now + hour)  # held for later: not late
    assert health.oldest_ready_task_age(now) == 0
    queue_task("due", 3 * hour, run_after=now - timedelta(seconds=30))  # waits since it became due
    assert 29 <= health.oldest_ready_task_age(now) <= 31


@pytest.mark.django_db
@override_settings(SECURE_SSL_REDIRECT=True, ALLOWED_HOSTS=["tintero.example"], APPEND_SLASH=True)
def test_probes_skip_redirects_host_checks_sessions_and_cookies(client: Client) -> None:
    # A probe comes over plain HTTP from inside, with an address for host name.
    for path in ("/healthz", "/readyz"):
        response = client.get(path, HTTP_HOST="10.1.2.3:8000")
        assert response.status_code == 200, path
        assert not response.cookies  # no session, no CSRF cookie
        assert "Vary" not in response  # nothing read from the session or the language headers


def test_probes_answer_get_only(client: Client) -> None:
    response = client.post("/healthz")
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"
    assert client.head("/healthz").status_code == 200


@pytest.mark.django_db(transaction=True)
async def test_readyz_answers_under_asgi(async_client: Any) -> None:
    # Served by ASGI (as in production): the layer's round trip runs on the server's own event loop.
    response = await async_client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json()["checks"]["channel_layer"]["ok"] is True
    assert (await async_client.get("/healthz")).json() == {"status": "ok"}
