"""``/healthz`` and ``/readyz``: what a load balancer or an orchestrator asks before sending traffic.

``/healthz`` says the process answers (it touches nothing else: a database outage must not get every
process restarted). ``/readyz`` says it can serve: the database answers, a message goes through the channel
layer and back, and the oldest task waiting in the queue is younger than ``READINESS_TASK_LAG_SECONDS``
(an older one means no worker is running, or the workers cannot keep up). Both answer JSON, 200 or 503.

They are answered by ``HealthProbeMiddleware``, first in ``MIDDLEWARE``: a probe gets no session, no CSRF
cookie, no HTTPS or slash redirect, and no ALLOWED_HOSTS check (probes come from inside, often with an
address for host name), and the SQLite write queue never holds it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.db.models import F, Min
from django.db.models.functions import Coalesce, Greatest
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone

from taskqueue.models import QueuedTask, QueuedTaskStatus

logger = logging.getLogger(__name__)

# Seconds the channel layer's round trip may take before readiness fails.
LAYER_TIMEOUT_SECONDS = 2.0


@dataclass(frozen=True)
class Check:
    """One part of readiness: whether it is fine, and a short word on why (for the operator, not users)."""

    ok: bool
    detail: str

    def as_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "detail": self.detail}


def _failed(part: str, error: Exception) -> Check:
    # The probes answer anyone: the error's class only (never a host name or a user), the rest in the log.
    logger.warning("readiness: %s failed", part, exc_info=error)
    return Check(False, type(error).__name__)


def check_database() -> Check:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # any failure is "not ready", never a 500
        return _failed("database", error)
    return Check(True, connection.vendor)


async def _layer_round_trip(layer: Any) -> bool:
    channel = await layer.new_channel()
    nonce = secrets.token_hex(8)
    await layer.send(channel, {"type": "readiness.ping", "nonce": nonce})
    try:
        message = await asyncio.wait_for(layer.receive(channel), LAYER_TIMEOUT_SECONDS)
    finally:
        # The pub/sub layer keeps a channel subscribed until a receive on it is cancelled (a probe every
        # few seconds would pile up subscriptions); the other layers drop an emptied channel themselves.
        leftover = asyncio.ensure_future(layer.receive(channel))
        await asyncio.sleep(0)
        leftover.cancel()
        with contextlib.suppress(BaseException):
            await leftover
    return bool(message.get("nonce") == nonce)


def check_channel_layer() -> Check:
    layer = get_channel_layer()
    if layer is None:
        return Check(False, "no channel layer configured")
    try:
        came_back = async_to_sync(_layer_round_trip)(layer)
    except TimeoutError:
        return Check(False, f"no answer within {LAYER_TIMEOUT_SECONDS:g} s")
    except Exception as error:
        return _failed("channel layer", error)
    return Check(came_back, type(layer).__name__ if came_back else "another message came back")


def oldest_ready_task_age(now: datetime) -> float:
    """Seconds the oldest task ready to run has waited (0 when none waits): since it was queued, or since
    its ``run_after`` for a deferred one."""
    due = Greatest(Coalesce(F("run_after"), F("enqueued_at")), F("enqueued_at"))
    oldest = (
        QueuedTask.objects.filter(status=QueuedTaskStatus.READY)
        .exclude(run_after__gt=now)
        .aggregate(oldest=Min(due))["oldest"]
    )
    return max(0.0, (now - oldest).total_seconds()) if oldest is not None else 0.0


def check_task_queue() -> Check:
    limit = settings.READINESS_TASK_LAG_SECONDS
    try:
        lag = oldest_ready_task_age(timezone.now())
    except Exception as error:
        return _failed("task queue", error)
    return Check(lag <= limit, f"oldest ready task waited {lag:.0f} s (limit {limit} s)")


# The parts of readiness, by the name the JSON gives them.
READINESS_CHECKS: dict[str, Callable[[], Check]] = {
    "database": check_database,
    "channel_layer": check_channel_layer,
    "task_queue": check_task_queue,
}


def _probe_response(payload: dict[str, Any], ok: bool) -> JsonResponse:
    response = JsonResponse({"status": "ok" if ok else "unavailable", **payload}, status=200 if ok else 503)
    # A cached answer would report a past state.
    response["Cache-Control"] = "no-store"
    response["X-Content-Type-Options"] = "nosniff"
    return response


def healthz(request: HttpRequest) -> JsonResponse:
    """The process answers."""
    return _probe_response({}, ok=True)


def readyz(request: HttpRequest) -> JsonResponse:
    """The process can serve: every part of ``READINESS_CHECKS`` is fine."""
    started = time.monotonic()
    checks = {name: check() for name, check in READINESS_CHECKS.items()}
    ok = all(check.ok for check in checks.values())
    payload = {
        "checks": {name: check.as_json() for name, check in checks.items()},
        "elapsed_ms": round((time.monotonic() - started) * 1000),
    }
    return _probe_response(payload, ok=ok)


PROBES: dict[str, Callable[[HttpRequest], JsonResponse]] = {"/healthz": healthz, "/readyz": readyz}


class HealthProbeMiddleware:
    """Answers the probes before any other middleware runs (see the module's docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        probe = PROBES.get(request.path_info.rstrip("/") or "/")
        if probe is None:
            return self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            response = JsonResponse({"status": "error", "detail": "GET or HEAD only"}, status=405)
            response["Allow"] = "GET, HEAD"
            return response
        return probe(request)


__all__ = [
    "PROBES",
    "READINESS_CHECKS",
    "Check",
    "HealthProbeMiddleware",
    "check_channel_layer",
    "check_database",
    "check_task_queue",
    "healthz",
    "oldest_ready_task_age",
    "readyz",
]
