"""The ASGI application the fan-out benchmark serves: Tintero itself plus what only the benchmark needs.

- ``POST /__bench/setup/``: a public campaign to broadcast on (returns its id);
- ``POST /__bench/app/<campaign_id>/``: one pool change through ``campaigns.events.publish`` inside a
  transaction, exactly as ``characters.services`` announces one; returns the commit time;
- ``POST /__bench/floor/?size=<n>``: the floor: a pre-serialized payload of ``n`` bytes sent straight
  to the group of the bare consumer below, with no database, policy or thread hop;
- ``/ws/__bench/floor/``: that bare consumer: an ``AsyncWebsocketConsumer`` that forwards the payload;
- ``POST /__bench/plain/?size=<n>`` and ``/ws/__bench/plain/``: plain WebSockets, the moonshot's floor: a
  bare ASGI app (no Channels, no layer, no consumer) that writes the payload to each of its sockets;
- ``POST /__bench/plain-redis/?size=<n>``: the same plain sockets across processes (``REDIS_URL``): one
  PUBLISH of the payload to Redis, and in each process one Redis subscription (opened with its first plain
  socket) that writes each message to that process's plain sockets: the floor of the two-process rows.

``BENCH_LAYER`` picks the channel layer: ``memory``, or ``core`` / ``pubsub``, which must match
``REDIS_LAYER`` so the Redis rows use the settings' layer config as production does (``REDIS_URL`` set).
Never mount this module in production.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tintero.settings")

import django
from django.conf import settings

django.setup()

_BENCH_LAYER = os.environ.get("BENCH_LAYER", "memory")
if _BENCH_LAYER == "memory":
    # Before the first get_channel_layer(): channels builds the layer lazily from the settings.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
elif _BENCH_LAYER != settings.REDIS_LAYER or not settings.REDIS_URL:
    # The Redis rows measure tintero/settings.py's own layer config (capacity, timeouts), not a copy of it.
    raise RuntimeError(f"BENCH_LAYER={_BENCH_LAYER} needs REDIS_URL and REDIS_LAYER={_BENCH_LAYER}")

from asgiref.sync import sync_to_async  # noqa: E402
from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.layers import get_channel_layer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.db import transaction  # noqa: E402
from django.urls import path  # noqa: E402

from tintero.asgi import django_asgi_app  # noqa: E402
from tintero.routing import websocket_urlpatterns  # noqa: E402

FLOOR_GROUP = "bench.floor"


class FloorConsumer(AsyncWebsocketConsumer):
    """The bare Channels broadcast: join a group, forward a ready string."""

    async def connect(self) -> None:
        await self.channel_layer.group_add(FLOOR_GROUP, self.channel_name)
        await self.accept()
        await self.send(text_data='{"type":"hello","seq":0}')

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(FLOOR_GROUP, self.channel_name)

    async def floor_event(self, message: dict[str, Any]) -> None:
        await self.send(text_data=message["frame"])


Send = Callable[[dict[str, Any]], Awaitable[None]]
_plain_sockets: set[Send] = set()
_plain_relay: list[asyncio.Task[None]] = []  # this process's Redis subscription, once a plain socket opened
_redis_clients: list[Any] = []


def _plain_channel() -> str:
    return f"{settings.CHANNEL_LAYER_PREFIX}.bench.plain"


def _redis() -> Any:
    if not _redis_clients:
        import redis.asyncio

        _redis_clients.append(redis.asyncio.from_url(settings.REDIS_URL))
    return _redis_clients[0]


async def _relay_plain() -> None:
    """One subscription per process: each message published to Redis is written to this process's plain
    sockets, as ``_plain`` writes them in one process."""
    pubsub = _redis().pubsub()
    await pubsub.subscribe(_plain_channel())
    async for message in pubsub.listen():
        if message["type"] != "message":
            continue
        out = {"type": "websocket.send", "text": message["data"].decode()}
        for send in list(_plain_sockets):
            await send(out)


async def plain_websocket(scope: dict[str, Any], receive: Any, send: Send) -> None:
    """A WebSocket with nothing between the server and the broadcast loop of ``_plain``."""
    if settings.REDIS_URL and not _plain_relay:
        _plain_relay.append(asyncio.ensure_future(_relay_plain()))
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": '{"type":"hello","seq":0}'})
    _plain_sockets.add(send)
    try:
        while (await receive())["type"] != "websocket.disconnect":
            pass
    finally:
        _plain_sockets.discard(send)


def _setup() -> dict[str, Any]:
    from accounts.models import User
    from campaigns import services

    gm, _created = User.objects.get_or_create(username="bench-gm", defaults={"display_name": "Bench"})
    campaign = services.create_campaign(creator=gm, title="Bench", ruleset="generic", visibility="public")
    return {"campaign_id": campaign.pk}


def _pool_change(campaign_id: int, t0: float) -> dict[str, Any]:
    """A change and its event, as a service makes them; ``t0`` is when the triggering request arrived, so
    the measure includes the transaction, the event's numbering after commit and the send."""
    from campaigns.events import Audience, Event, EventType, last_seq, publish

    with transaction.atomic():
        publish(
            Event(EventType.POOL_CHANGED, campaign_id, {"ledger_id": 1, "operation": "gain_fate_point"}),
            Audience(public=True),
        )
    # Numbered after commit (one trigger at a time in the bench: the campaign's last seq is this event's).
    return {"t0": t0, "seq": last_seq(campaign_id)}


def _payload(size: int, seq: int) -> str:
    body = json.dumps({"seq": seq, "type": "pool.changed", "data": {"pad": ""}}, separators=(",", ":"))
    return body.replace('"pad":""', '"pad":"' + "x" * max(0, size - len(body)) + '"')


async def _floor(size: int, seq: int) -> dict[str, Any]:
    frame = _payload(size, seq)
    t0 = time.time()
    await get_channel_layer().group_send(FLOOR_GROUP, {"type": "floor.event", "frame": frame})
    return {"t0": t0, "seq": seq}


async def _plain(size: int, seq: int) -> dict[str, Any]:
    message = {"type": "websocket.send", "text": _payload(size, seq)}
    t0 = time.time()
    for send in list(_plain_sockets):
        await send(message)
    return {"t0": t0, "seq": seq}


async def _plain_redis(size: int, seq: int) -> dict[str, Any]:
    frame = _payload(size, seq)
    t0 = time.time()
    await _redis().publish(_plain_channel(), frame)
    return {"t0": t0, "seq": seq}


async def bench_http(scope: dict[str, Any], receive: Any, send: Any) -> None:
    route = scope["path"]
    if not route.startswith("/__bench/"):
        await django_asgi_app(scope, receive, send)
        return
    query = {k: v[0] for k, v in parse_qs(scope.get("query_string", b"").decode()).items()}
    if route == "/__bench/setup/":
        result = await sync_to_async(_setup)()
    elif route.startswith("/__bench/app/"):
        result = await sync_to_async(_pool_change)(int(route.rstrip("/").rsplit("/", 1)[1]), time.time())
    elif route == "/__bench/floor/":
        result = await _floor(int(query.get("size", "80")), int(query.get("seq", "0")))
    elif route == "/__bench/plain/":
        result = await _plain(int(query.get("size", "80")), int(query.get("seq", "0")))
    elif route == "/__bench/plain-redis/":
        result = await _plain_redis(int(query.get("size", "80")), int(query.get("seq", "0")))
    else:
        result = {"error": "unknown"}
    body = json.dumps(result).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


channels_websocket = AllowedHostsOriginValidator(
    AuthMiddlewareStack(URLRouter([*websocket_urlpatterns, path("ws/__bench/floor/", FloorConsumer.as_asgi())]))
)


async def bench_websocket(scope: dict[str, Any], receive: Any, send: Send) -> None:
    if scope["path"] == "/ws/__bench/plain/":
        await plain_websocket(scope, receive, send)
    else:
        await channels_websocket(scope, receive, send)


application = ProtocolTypeRouter({"http": bench_http, "websocket": bench_websocket})
