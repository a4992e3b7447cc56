"""Production as the README's recipe runs it, in the suite (issue 26): two uvicorn processes and the task worker
on PostgreSQL and Redis, started by the test with exactly the README's commands. Sockets on one process, writes
through the API on the other: every event reaches each socket in order (or the gaps it sees are resynced),
the thread pages the first process keeps are never stale, idempotency keys hold across processes, and the
worker writes the notifications the writes queued.

Real services only (``make test-services``): DATABASE_URL (PostgreSQL, so that the processes read this test's
database) and REDIS_URL (the channel layer, under a prefix of the test's own).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from accounts.models import User
from accounts.services import issue_token
from bench.fanout import WsClient, free_port, stop
from campaigns.models import Post, Visibility
from notifications.models import Kind, Notification
from tests.personas import Table, build_table

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parent.parent
# The README's production recipe (section "Production"): test_the_readme_starts_what_this_test_starts keeps
# the two the same.
SERVER_COMMAND = "uvicorn tintero.asgi:application --host 127.0.0.1 --port {port} --ws websockets --lifespan off"
WORKER_COMMAND = "python manage.py run_task_worker"
START_SECONDS = 120  # three Django processes importing at once on a loaded machine
DELIVERY_SECONDS = 20
POSTS = 8
KEYS = 5


def _database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("needs DATABASE_URL (PostgreSQL): every process must read the test database of this one")
    if not os.environ.get("REDIS_URL"):
        pytest.skip("needs REDIS_URL: the two server processes share their events through Redis")
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgresql://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def _start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    # stderr to a file, not a pipe nobody reads (a full pipe would block the process).
    with log.open("wb") as stderr:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=stderr)


def _wait_for_port(process: subprocess.Popen[bytes], port: int, log: Path, deadline: float) -> None:
    import socket

    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server on {port} exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the server on {port} did not start in {START_SECONDS} s")


class Http:
    """Requests to one server process, as one user (an API token, a session cookie, or anonymous)."""

    def __init__(self, port: int, token: str = "", cookie: str = "") -> None:
        self.base, self.token, self.cookie = f"http://127.0.0.1:{port}", token, cookie

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Token {self.token}")
        if self.cookie:
            request.add_header("Cookie", self.cookie)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                raw, status = response.read(), response.status
        except urllib.error.HTTPError as error:
            raw, status = error.read(), error.code
        text = raw.decode(errors="replace")
        try:
            return status, json.loads(text) if text else None
        except json.JSONDecodeError:
            return status, text


def _session_cookie(user: User) -> str:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def _in_thread(func: Callable[..., Any], *args: Any) -> Any:
    try:
        return func(*args)
    finally:
        connection.close()  # this thread's connection would keep the test database from being dropped


def test_the_readme_starts_what_this_test_starts() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Production") :]
    section = section[: section.index("\n## ", 1)]
    servers = re.findall(r"^uvicorn .*?(?=\s+#|$)", section, re.MULTILINE)
    assert [line.strip() for line in servers] == [SERVER_COMMAND.format(port=8001), SERVER_COMMAND.format(port=8002)]
    assert re.search(rf"^{re.escape(WORKER_COMMAND)}\s*(#|$)", section, re.MULTILINE), section


def test_two_server_processes_and_the_worker_as_production_runs_them() -> None:
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "DJANGO_SETTINGS_MODULE": "tintero.settings",
        "CHANNEL_LAYER_PREFIX": f"{os.environ.get('CHANNEL_LAYER_PREFIX', 'tintero')}-{uuid.uuid4().hex[:8]}",
        "LOG_LEVEL": "ERROR",
    }
    table = build_table(Visibility.PUBLIC)
    ports = [free_port(), free_port()]
    logs = Path(tempfile.mkdtemp(prefix="tintero-recipe-"))
    python = [sys.executable, "-m"]
    processes = [
        _start([*python, *SERVER_COMMAND.format(port=port).split()], env, logs / f"server-{port}.log") for port in ports
    ]
    processes.append(_start([sys.executable, *WORKER_COMMAND.split()[1:]], env, logs / "worker.log"))
    try:
        deadline = time.monotonic() + START_SECONDS
        for process, port in zip(processes, ports, strict=False):
            _wait_for_port(process, port, logs / f"server-{port}.log", deadline)
        asyncio.run(_scenario(table, *ports))
        _the_worker_wrote_the_notifications(table, processes[2], logs / "worker.log")
    finally:
        for process in processes:
            stop(process)
        for log in sorted(logs.iterdir()):
            tail = log.read_text(errors="replace")[-2000:]
            if tail.strip():
                print(f"--- {log.name}\n{tail}")


async def _scenario(table: Table, port_a: int, port_b: int) -> None:
    tokens = await asyncio.to_thread(
        _in_thread, lambda: {u.pk: issue_token(user=u).key for u in (table.gm, table.player, table.player2)}
    )
    cookies = await asyncio.to_thread(
        _in_thread, lambda: {u.pk: _session_cookie(u) for u in (table.gm, table.player, table.player2)}
    )
    path = f"/ws/campaigns/{table.campaign.pk}/"
    viewers: dict[str, User | None] = {"anon": None, "gm": table.gm, "ana": table.player, "bruno": table.player2}
    sockets: dict[str, WsClient] = {}
    for name, user in viewers.items():
        headers = [f"Cookie: {cookies[user.pk]}"] if user is not None else []
        sockets[name] = await WsClient.connect("127.0.0.1", port_a, path, headers=headers, keep_frames=True)
    hellos = {name: await client.next_frame(timeout=30) for name, client in sockets.items()}
    assert {frame["type"] for frame in hellos.values()} == {"hello"}, hellos
    start_seq = min(frame["seq"] for frame in hellos.values())

    gm_b = Http(port_b, token=tokens[table.gm.pk])
    pages = {name: Http(port_a, cookie=cookies[user.pk]) for name, user in viewers.items() if user is not None}
    scene_page = table.scene.get_absolute_url()

    def page(name: str) -> str:
        status, html = pages[name].call("GET", scene_page)
        assert status == 200, (status, str(html)[:500])
        return str(html)

    # A page kept by process A (viewed twice), then each change made on B: A's next view shows it at once.
    for _ in range(2):
        await asyncio.to_thread(page, "ana")
    written: list[int] = []
    for index in range(POSTS):
        text = f"PUBLICO-{index}-{uuid.uuid4().hex[:6]}"
        status, body = await asyncio.to_thread(
            gm_b.call, "POST", f"/api/scenes/{table.scene.pk}/posts/", {"body": text, "voice": "narrator"}
        )
        assert status == 201, body
        written.append(body["id"])
        assert text in await asyncio.to_thread(page, "ana"), f"process A served a stale page after post {index}"
    whisper_text = f"SUSURRO-{uuid.uuid4().hex[:6]}"
    status, body = await asyncio.to_thread(
        gm_b.call,
        "POST",
        f"/api/scenes/{table.scene.pk}/posts/",
        {"body": whisper_text, "voice": "narrator", "recipients": "whisper", "whisper_to": [table.player.pk]},
    )
    assert status == 201, body
    assert whisper_text in await asyncio.to_thread(page, "ana")
    assert whisper_text not in await asyncio.to_thread(page, "bruno")
    edited_text = f"EDITADO-{uuid.uuid4().hex[:6]}"
    status, body = await asyncio.to_thread(gm_b.call, "PATCH", f"/api/posts/{written[0]}/", {"body": edited_text})
    assert status == 200, body
    assert edited_text in await asyncio.to_thread(page, "ana"), "process A served a stale page after an edit"
    deleted_text = f"BORRADO-{uuid.uuid4().hex[:6]}"
    status, body = await asyncio.to_thread(gm_b.call, "PATCH", f"/api/posts/{written[1]}/", {"body": deleted_text})
    assert status == 200, body
    assert deleted_text in await asyncio.to_thread(page, "ana")
    status, body = await asyncio.to_thread(gm_b.call, "DELETE", f"/api/posts/{written[1]}/")
    assert status == 204, body
    assert deleted_text not in await asyncio.to_thread(page, "ana"), "process A served a stale page after a deletion"

    # One idempotency key, the same request sent at once to both processes: one post, both answers name it.
    await asyncio.to_thread(_one_post_per_key, table, tokens[table.player.pk], port_a, port_b)

    # Every socket on A received, in order, what B's writes announced to its viewer.
    newest = await asyncio.to_thread(_in_thread, _last_seq, table.campaign.pk)
    assert newest >= start_seq + POSTS + 4
    for name, user in viewers.items():
        resync = Http(port_a, token=tokens[user.pk] if user is not None else "")
        await _delivered_in_order_or_resynced(name, sockets[name], hellos[name]["seq"], newest, resync, table)
    for client in sockets.values():
        await client.close()


def _last_seq(campaign_id: int) -> int:
    from campaigns.events import last_seq

    return last_seq(campaign_id)


def _one_post_per_key(table: Table, token: str, port_a: int, port_b: int) -> None:
    servers = [Http(port_a, token=token), Http(port_b, token=token)]
    scene_posts = f"/api/scenes/{table.scene.pk}/posts/"
    keys = [f"clave-{uuid.uuid4().hex[:8]}" for _ in range(KEYS)]
    with ThreadPoolExecutor(max_workers=2 * KEYS) as pool:
        calls = [
            (key, pool.submit(server.call, "POST", scene_posts, {"body": f"una vez {key}", "idempotency_key": key}))
            for key in keys
            for server in servers
        ]
        answers = [(key, *future.result()) for key, future in calls]
    for key in keys:
        mine = [(status, body) for k, status, body in answers if k == key]
        assert sorted(status for status, _ in mine) in ([200, 201], [201, 201]), mine
        assert len({body["id"] for _, body in mine}) == 1, mine
    stored = _in_thread(lambda: Post.objects.filter(author=table.player, idempotency_key__in=keys).count())
    assert stored == KEYS


async def _delivered_in_order_or_resynced(
    name: str, client: WsClient, hello_seq: int, newest: int, resync: Http, table: Table
) -> None:
    """What a client does: read frames; a seq gap not explained by ``skipped`` is asked of the resync endpoint.
    The frames and the resynced events together must be exactly what the endpoint lists for this viewer."""
    path = f"/api/campaigns/{table.campaign.pk}/events/?after={hello_seq}"
    status, listed = await asyncio.to_thread(resync.call, "GET", path)
    assert status == 200, listed
    expected = [(e["seq"], e["type"], e["data"]) for e in listed["events"] if e["seq"] <= newest]
    received: list[tuple[int, str, Any]] = []
    accounted = hello_seq  # the last seq this client knows about (received, skipped or resynced)
    resynced: list[tuple[int, str, Any]] = []
    deadline = time.monotonic() + DELIVERY_SECONDS
    while accounted < newest and time.monotonic() < deadline:
        try:
            frame = await client.next_frame(timeout=max(0.1, deadline - time.monotonic()))
        except TimeoutError:
            break
        skipped = set(frame.get("skipped", ()))
        gap = set(range(accounted + 1, frame["seq"])) - skipped
        if gap:  # lost in transit: the client resyncs from the log
            status, body = await asyncio.to_thread(resync.call, "GET", f"{path[: path.index('?')]}?after={accounted}")
            resynced += [(e["seq"], e["type"], e["data"]) for e in body["events"] if e["seq"] in gap]
        if frame["type"] != "heartbeat":
            if frame["seq"] <= accounted and frame["seq"] in {seq for seq, _, _ in resynced}:
                continue  # a resync got there first: the client drops the late frame (static/js/live.js)
            assert frame["seq"] > accounted, f"{name}: seq {frame['seq']} after {accounted}: out of order or twice"
            received.append((frame["seq"], frame["type"], frame["data"]))
        accounted = max(accounted, frame["seq"])
    assert accounted >= newest, f"{name}: the stream stopped at seq {accounted} of {newest}"
    assert sorted(received + resynced) == expected, name
    assert received == sorted(received), name
    # Live, not only through the log: at least every public post reached the socket on the other process.
    assert len(received) >= POSTS, (name, len(received), len(resynced))


def _the_worker_wrote_the_notifications(table: Table, worker: subprocess.Popen[bytes], log: Path) -> None:
    # The whisper's notification for Ana is written by the worker process, from the task the server queued.
    deadline = time.monotonic() + DELIVERY_SECONDS
    while time.monotonic() < deadline:
        if Notification.objects.filter(user=table.player, kind=Kind.WHISPER).exists():
            return
        if worker.poll() is not None:
            raise AssertionError(f"the task worker exited: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.2)
    raise AssertionError("the task worker wrote no notification for the whisper")
