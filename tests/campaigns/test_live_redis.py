"""Two ASGI server processes sharing Redis both deliver an event to their clients.

Real services only (``make test-services``): REDIS_URL for the layer, and PostgreSQL (DATABASE_URL) so
that the two daphne processes read the test database this process writes.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from bench.fanout import WsClient, free_port, start_daphne, stop
from campaigns import services
from campaigns.models import Recipients, Voice
from tests.personas import Table

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("needs DATABASE_URL (PostgreSQL): both servers must read the test database of this process")
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgresql://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def _session_header(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return f"Cookie: {settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def _in_thread(func: Any, **kwargs: Any) -> Any:
    try:
        return func(**kwargs)
    finally:
        connection.close()  # this thread's connection would keep the test database from being dropped


def test_two_daphne_processes_deliver_through_redis(table: Table) -> None:
    if not os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL is not set: this test needs a real Redis shared by two server processes")
    env = {**os.environ, "DATABASE_URL": _database_url(), "LOG_LEVEL": "ERROR"}
    ports = [free_port(), free_port()]
    servers = [start_daphne("tintero.asgi:application", port, env) for port in ports]
    player_cookie, player2_cookie = _session_header(table.player), _session_header(table.player2)
    try:
        asyncio.run(_scenario(table, ports, player_cookie, player2_cookie))
    finally:
        for server in servers:
            stop(server)
            print(server.stderr.read().decode()[-3000:] if server.stderr else "")


async def _scenario(table: Table, ports: list[int], player_cookie: str, player2_cookie: str) -> None:
    path = f"/ws/campaigns/{table.campaign.pk}/"
    # On each server: an anonymous reader of the public campaign, and a player (whispers reach only Ana).
    clients = {
        "anon-a": await WsClient.connect("127.0.0.1", ports[0], path, keep_frames=True),
        "ana-a": await WsClient.connect("127.0.0.1", ports[0], path, headers=[player_cookie], keep_frames=True),
        "anon-b": await WsClient.connect("127.0.0.1", ports[1], path, keep_frames=True),
        "bruno-b": await WsClient.connect("127.0.0.1", ports[1], path, headers=[player2_cookie], keep_frames=True),
    }
    hellos = {name: await client.next_frame(timeout=30) for name, client in clients.items()}
    # Idle for longer than channels_redis' blocking pop (5 s): a read timeout at or under it kills the
    # sockets (redis-py 8 defaults to 5 s; the settings must give the layer a longer one).
    await asyncio.sleep(6.5)
    assert all(client.closed is None for client in clients.values()), {n: c.closed for n, c in clients.items()}
    assert {frame["type"] for frame in hellos.values()} == {"hello"}
    whisper = await asyncio.to_thread(
        _in_thread,
        services.create_post,
        author=table.gm,
        scene=table.scene,
        body="solo Ana",
        voice=Voice.NARRATOR,
        recipients=Recipients.WHISPER,
        whisper_to=[table.player.pk],
    )
    post = await asyncio.to_thread(
        _in_thread, services.create_post, author=table.gm, scene=table.scene, body="todos", voice=Voice.NARRATOR
    )
    seq = hellos["anon-a"]["seq"]
    expected_all = {"seq": seq + 2, "type": "post.created", "data": {"scene_id": table.scene.pk, "post_id": post.pk}}
    ana = await clients["ana-a"].next_frame()
    assert (ana["seq"], ana["data"]["post_id"]) == (seq + 1, whisper.pk)
    assert await clients["ana-a"].next_frame() == expected_all
    for name in ("anon-a", "anon-b", "bruno-b"):
        assert await clients[name].next_frame() == {**expected_all, "skipped": [seq + 1]}, name
    for client in clients.values():
        await client.close()
