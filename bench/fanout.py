"""Fan-out benchmark: one pool change broadcast to 100 and 500 WebSocket clients of one campaign.

Run from the repository root (REDIS_URL for the Redis rows; without it they are skipped)::

    .venv/bin/python -m bench.fanout            # daphne and uvicorn x memory, pubsub, core x 100, 500 clients
    .venv/bin/python -m bench.fanout --quick    # memory layer, 100 clients, 5 rounds, both servers
    .venv/bin/python -m bench.fanout --servers uvicorn --layers core --sizes 500 --rounds 8 --budget 150
    .venv/bin/python -m bench.fanout --hub on,off   # the per-process hub (LIVE_HUB) against one channel per socket
    .venv/bin/python -m bench.fanout --plain        # also against plain WebSockets (the moonshot: app p99 <= 2x)
    .venv/bin/python -m bench.fanout --layers pubsub --sizes 100 --two-processes 1000,3000  # production's shape
    .venv/bin/python -m bench.fanout --memory 1500  # one uvicorn process's memory: started, N sockets, closed

For each server (daphne, uvicorn: one process each, same app) and channel layer (``memory``; ``pubsub``
and ``core`` are RedisPubSubChannelLayer and RedisChannelLayer as tintero/settings.py builds them for
``REDIS_LAYER``) it serves ``bench.fanout_asgi:application`` (Tintero plus a bare floor consumer) on a
fresh SQLite database, connects N app clients (anonymous readers of a public campaign, through the real
origin check, auth stack, consumer and policy filter) and N floor clients, then alternates rounds: the
app round commits one pool change through ``publish``; the floor round has a bare Channels consumer
forward a pre-serialized payload of the same size. Latency runs from the triggering request's arrival
(the app's transaction, the event's numbering after commit and the send included; for the floor, the
send) to receipt in the client, on the same clock.

The machine is shared and loaded, so each round is summarised on its own (p50, p99, last delivery) and
the table shows medians over rounds; the ratios are medians of app/floor over rounds run back to back
(target: p99 ratio <= 1.2). Bounded: each configuration has a time budget (``--budget``); one that runs
out reports the rounds it measured and says it did not finish. Benchmarks report, they do not gate: exit
status 0. ``--hub`` sets ``LIVE_HUB`` for the server (``on``, the settings' default, or ``off``: each
socket joins the group with its own channel); given both, each configuration runs with one then the other.
``--plain`` adds N more clients and a third round to each: a bare ASGI app writes the same payload to its
sockets (no Channels at all); on its row, x is app/plain (the moonshot: p99 <= 2x).

Two processes (``--two-processes 1000,3000``, the default of a full run when REDIS_URL is set): production's
shape, two uvicorn processes on one database and the Redis pub/sub layer with the hub (one subscription per
campaign and process); N/2 app clients on each, the change committed through the first. Its floor is plain
WebSockets with one Redis subscription per process, N/2 plain sockets on each (``/__bench/plain-redis/``:
one PUBLISH, each process writes the message to its sockets); x is app/plain (issue 26 target: p99 <= 1.5x).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
P99_RATIO_TARGET = 1.2
PLAIN_P99_RATIO_TARGET = 2.0
TWO_PROCESS_P99_RATIO_TARGET = 1.5


# --- A minimal WebSocket client (the venv has no client library; this one costs almost nothing) --------


class WsClient:
    """Text frames only, server frames unmasked and unfragmented (what daphne and uvicorn send for small payloads)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.received: dict[int, float] = {}  # seq -> receipt time
        self.frames: list[dict[str, Any]] = []
        self.closed: int | None = None
        self.last_size = 0
        self.keep_frames = False
        self.task: asyncio.Task[None] | None = None
        self.new_frame = asyncio.Event()

    @classmethod
    async def connect(
        cls,
        host: str,
        port: int,
        path: str,
        origin: str | None = None,
        headers: Sequence[str] = (),
        keep_frames: bool = False,
    ) -> WsClient:
        reader, writer = await asyncio.open_connection(host, port)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: {host}:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
            f"Origin: {origin or f'http://{host}:{port}'}",
            *headers,
        ]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        await writer.drain()
        response = await reader.readuntil(b"\r\n\r\n")
        if b" 101 " not in response.split(b"\r\n", 1)[0]:
            writer.close()
            raise ConnectionError(response.split(b"\r\n", 1)[0].decode())
        client = cls(reader, writer)
        client.keep_frames = keep_frames
        client.task = asyncio.create_task(client._read_loop())
        return client

    async def _read_loop(self) -> None:
        reader = self.reader
        try:
            while True:
                head = await reader.readexactly(2)
                opcode, length = head[0] & 0x0F, head[1] & 0x7F
                if length == 126:
                    length = struct.unpack(">H", await reader.readexactly(2))[0]
                elif length == 127:
                    length = struct.unpack(">Q", await reader.readexactly(8))[0]
                payload = await reader.readexactly(length)
                now = time.time()
                if opcode == 1:
                    self._on_text(payload, now)
                elif opcode == 8:
                    self.closed = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else 1005
                    break
                elif opcode == 9:
                    self._send_frame(0xA, payload)  # pong: daphne drops clients that do not answer pings
        except (asyncio.IncompleteReadError, ConnectionError):
            self.closed = self.closed or 1006
        self.new_frame.set()

    def _on_text(self, payload: bytes, now: float) -> None:
        # Only the seq is needed to time a frame: find it without decoding the whole JSON.
        self.last_size = len(payload)
        start = payload.find(b'"seq":')
        if start != -1:
            start += 6
            while payload[start : start + 1] == b" ":
                start += 1
            end = start
            while payload[end : end + 1].isdigit():
                end += 1
            self.received.setdefault(int(payload[start:end]), now)
        if self.keep_frames:
            self.frames.append(json.loads(payload))
        self.new_frame.set()

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        length = len(payload)
        head = bytes([0x80 | opcode])
        if length < 126:
            head += bytes([0x80 | length])
        else:
            head += bytes([0x80 | 126]) + struct.pack(">H", length)
        self.writer.write(head + mask + masked)

    def send_text(self, text: str) -> None:
        self._send_frame(1, text.encode())

    async def next_frame(self, timeout: float = 5) -> dict[str, Any]:
        """The next JSON frame (with ``keep_frames``)."""
        deadline = time.monotonic() + timeout
        while not self.frames:
            if self.closed is not None:
                raise ConnectionError(f"closed with {self.closed}")
            self.new_frame.clear()
            await asyncio.wait_for(self.new_frame.wait(), max(0.001, deadline - time.monotonic()))
        return self.frames.pop(0)

    async def close(self) -> None:
        if self.closed is None:
            try:
                self._send_frame(8, struct.pack(">H", 1000))
                await self.writer.drain()
            except ConnectionError:
                pass
        self.writer.close()
        if self.task:
            self.task.cancel()


async def http_post(host: str, port: int, path: str) -> dict[str, Any]:
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode()
    )
    await writer.drain()
    raw = await reader.read()
    writer.close()
    return json.loads(raw.split(b"\r\n\r\n", 1)[1])


# --- Servers -----------------------------------------------------------------------------------------

SERVERS = ("daphne", "uvicorn")
START_TIMEOUT = 240  # seconds; on the shared, loaded machine importing Django alone can take a minute
LAYERS = ("memory", "pubsub", "core")
HUB_MODES = ("on", "off")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_command(server: str, app: str, port: int, workers: int = 1) -> list[str]:
    """The same app on the same port, each server with its production-like WebSocket settings. ``workers``:
    uvicorn's worker processes sharing the port (daphne has one)."""
    if workers != 1 and server != "uvicorn":
        raise ValueError(f"{server} serves with one process")
    if server == "daphne":
        # 500 sockets connecting at once queue on the database thread: give the handshakes time.
        daphne = ["-b", "127.0.0.1", "-p", str(port), "--websocket_connect_timeout", "60"]
        return [sys.executable, "-m", "daphne", *daphne, app]
    if server == "uvicorn":
        # One worker like daphne unless asked; no access log (daphne's goes to the discarded stdout);
        # lifespan is not used by Channels' ProtocolTypeRouter.
        return [
            sys.executable, "-m", "uvicorn", "--host", "127.0.0.1", "--port", str(port), "--ws", "websockets",
            "--lifespan", "off", "--no-access-log", "--log-level", "warning",
            *(["--workers", str(workers)] if workers != 1 else []), app,
        ]  # fmt: skip
    raise ValueError(f"unknown server {server!r}")


def start_server(
    server: str, app: str, port: int, env: dict[str, str], log: Path, workers: int = 1
) -> subprocess.Popen[bytes]:
    """A server process on ``port``; returns once it accepts connections."""
    command = server_command(server, app, port, workers)
    # stderr to a file, not a pipe nobody reads: a full pipe would block the server mid-benchmark.
    with log.open("wb") as stderr:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{server} exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process
        except OSError:
            time.sleep(0.1)
    stop(process)
    raise RuntimeError(f"{server} did not start in {START_TIMEOUT} s")


def start_daphne(app: str, port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """daphne alone (tests/campaigns/test_live_redis.py runs two); its stderr goes to a temporary file."""
    log = Path(tempfile.mkdtemp(prefix="tintero-daphne-")) / "server.log"
    return start_server("daphne", app, port, env, log)


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# --- The measurement ---------------------------------------------------------------------------------


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


@dataclass
class Samples:
    """Per round: p50, p99 and last delivery of that round's N receipts (the machine is shared and loaded,
    so each round is summarised on its own and the report takes medians over rounds)."""

    p50: list[float] = field(default_factory=list)
    p99: list[float] = field(default_factory=list)
    last: list[float] = field(default_factory=list)
    lost: int = 0

    def add_round(self, times: Sequence[float], expected: int) -> None:
        self.lost += expected - len(times)
        if times:
            self.p50.append(_quantile(times, 0.5))
            self.p99.append(_quantile(times, 0.99))
            self.last.append(max(times))

    @property
    def rounds(self) -> int:
        return len(self.p99)


def paired_ratio(app: Sequence[float], floor: Sequence[float]) -> float:
    """Median of app/floor over rounds run back to back: both see the same load at the same moment."""
    ratios = [a / f for a, f in zip(app, floor, strict=False) if f > 0]
    return _median(ratios)


async def _round(clients: list[WsClient], trigger: Any, samples: Samples, timeout: float) -> None:
    result = await asyncio.wait_for(trigger(), TRIGGER_TIMEOUT)
    seq, t0 = result["seq"], result["t0"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(seq not in c.received for c in clients):
        await asyncio.sleep(0.005)
    samples.add_round([c.received[seq] - t0 for c in clients if seq in c.received], len(clients))


async def _connect_many(port: int, path: str, n: int) -> list[WsClient]:
    gate = asyncio.Semaphore(50)  # the listen backlog is finite: connect in waves

    async def one() -> WsClient:
        async with gate:
            return await WsClient.connect("127.0.0.1", port, path)

    clients = await asyncio.gather(*(one() for _ in range(n)))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(not c.received for c in clients):  # every hello frame in
        await asyncio.sleep(0.01)
    return list(clients)


@dataclass
class Result:
    app: Samples = field(default_factory=Samples)
    floor: Samples = field(default_factory=Samples)
    plain: Samples = field(default_factory=Samples)  # with --plain
    connect_s: float = float("nan")
    stopped: str = ""  # why the configuration did not finish its rounds, if it did not


async def measure(
    port: int,
    campaign_id: int,
    n: int,
    rounds: int,
    result: Result,
    budget: float,
    warmup: int = 3,
    plain: bool = False,
) -> None:
    """Fills ``result`` as rounds complete, so a configuration cut short still reports what it measured."""
    deadline = time.monotonic() + budget
    started = time.monotonic()
    app_clients = await _connect_many(port, f"/ws/campaigns/{campaign_id}/", n)
    floor_clients = await _connect_many(port, "/ws/__bench/floor/", n)
    plain_clients = await _connect_many(port, "/ws/__bench/plain/", n) if plain else []
    result.connect_s = time.monotonic() - started
    await asyncio.sleep(0.5)
    floor_seq = 0
    size = 80

    async def app_trigger() -> dict[str, Any]:
        return await http_post("127.0.0.1", port, f"/__bench/app/{campaign_id}/")

    async def floor_trigger() -> dict[str, Any]:
        return await http_post("127.0.0.1", port, f"/__bench/floor/?size={size}&seq={floor_seq}")

    async def plain_trigger() -> dict[str, Any]:
        return await http_post("127.0.0.1", port, f"/__bench/plain/?size={size}&seq={floor_seq}")

    try:
        for index in range(warmup + rounds):
            if time.monotonic() > deadline:
                result.stopped = f"time budget {budget:.0f} s spent"
                break
            keep = index >= warmup
            app, floor, bare = (result.app, result.floor, result.plain) if keep else (Samples(), Samples(), Samples())
            await _round(app_clients, app_trigger, app, ROUND_TIMEOUT)
            # The floor's payload matches the app's frame, measured on the wire.
            size = app_clients[0].last_size or size
            await asyncio.sleep(0.1)
            floor_seq += 1
            await _round(floor_clients, floor_trigger, floor, ROUND_TIMEOUT)
            await asyncio.sleep(0.1)
            if plain_clients:
                await _round(plain_clients, plain_trigger, bare, ROUND_TIMEOUT)
                await asyncio.sleep(0.1)
    finally:
        for client in app_clients + floor_clients + plain_clients:
            await client.close()
        await asyncio.sleep(0.3)


async def measure_two_processes(
    ports: Sequence[int], campaign_id: int, n: int, rounds: int, result: Result, budget: float, warmup: int = 3
) -> None:
    """The app through two processes against plain WebSockets with one Redis subscription per process: half
    the clients of each kind on each process, every change sent through the first."""
    deadline = time.monotonic() + budget
    started = time.monotonic()
    halves = [n // len(ports) + (1 if i < n % len(ports) else 0) for i in range(len(ports))]
    app_clients: list[WsClient] = []
    plain_clients: list[WsClient] = []
    for port, count in zip(ports, halves, strict=True):
        app_clients += await _connect_many(port, f"/ws/campaigns/{campaign_id}/", count)
        plain_clients += await _connect_many(port, "/ws/__bench/plain/", count)
    result.connect_s = time.monotonic() - started
    await asyncio.sleep(0.5)
    seq, size = 0, 80

    async def app_trigger() -> dict[str, Any]:
        return await http_post("127.0.0.1", ports[0], f"/__bench/app/{campaign_id}/")

    async def plain_trigger() -> dict[str, Any]:
        return await http_post("127.0.0.1", ports[0], f"/__bench/plain-redis/?size={size}&seq={seq}")

    try:
        for index in range(warmup + rounds):
            if time.monotonic() > deadline:
                result.stopped = f"time budget {budget:.0f} s spent"
                break
            keep = index >= warmup
            app, bare = (result.app, result.plain) if keep else (Samples(), Samples())
            await _round(app_clients, app_trigger, app, ROUND_TIMEOUT)
            size = app_clients[0].last_size or size
            await asyncio.sleep(0.1)
            seq += 1
            await _round(plain_clients, plain_trigger, bare, ROUND_TIMEOUT)
            await asyncio.sleep(0.1)
    finally:
        for client in app_clients + plain_clients:
            await client.close()
        await asyncio.sleep(0.3)


MEASURE_LIMIT = 300  # seconds of rounds for one configuration, connections included
ROUND_TIMEOUT = 15  # seconds for one event to reach every client; the missing ones count as lost
TRIGGER_TIMEOUT = 60  # seconds for the commit (or floor send) request itself on a loaded machine


def _ms(value: float) -> str:
    return f"{value * 1000:8.1f}"


HEADER = (
    f"{'server':8} {'layer':7} {'hub':3} {'N':>4} {'':6} {'p50':>8} {'p99':>8} {'last':>8}  "
    f"{'p50 x':>6} {'p99 x':>6} {'last x':>6} {'rounds':>6} {'lost':>5} {'conn s':>6}"
)


def _ratios(app: Samples, base: Samples) -> str:
    return (
        f"  {paired_ratio(app.p50, base.p50):6.2f} {paired_ratio(app.p99, base.p99):6.2f}"
        f" {paired_ratio(app.last, base.last):6.2f}"
    )


def format_rows(server: str, layer: str, hub: str, n: int, result: Result) -> list[str]:
    """The app row (x: app/floor), the floor's, and with --plain the plain row (x: app/plain)."""
    app, floor, plain = result.app, result.floor, result.plain
    if not (floor.rounds or floor.lost):  # the two-process rows: plain WebSockets over Redis is the floor
        lines = [("app", app, _ratios(app, plain)), ("plain", plain, " " * 23)]
    else:
        lines = [("app", app, _ratios(app, floor)), ("floor", floor, " " * 23)]
        if plain.rounds or plain.lost:
            lines.append(("plain", plain, _ratios(app, plain)))
    rows = []
    for name, s, ratios in lines:
        rows.append(
            f"{server:8} {layer:7} {hub:3} {n:4} {name:6}"
            f" {_ms(_median(s.p50))} {_ms(_median(s.p99))} {_ms(_median(s.last))}"
            + ratios
            + f" {s.rounds:6} {s.lost:5} {result.connect_s:6.1f}"
        )
    if result.stopped:
        rows.append(f"{server:8} {layer:7} {hub:3} {n:4} did not finish: {result.stopped}")
    return rows


def run_configuration(
    server: str, layer: str, hub: str, sizes: Sequence[int], rounds: int, budget: float, plain: bool = False
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "SQLITE_PATH": str(Path(tmp) / "bench.sqlite3"), "BENCH_LAYER": layer}
        env["LIVE_HUB"] = "1" if hub == "on" else "0"
        if layer != "memory":
            env["REDIS_LAYER"] = layer  # the app's own settings build the layer (see fanout_asgi)
        env.pop("DATABASE_URL", None)
        env.setdefault("LOG_LEVEL", "ERROR")
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
        port = free_port()
        try:
            process = start_server(server, "bench.fanout_asgi:application", port, env, Path(tmp) / "server.log")
        except RuntimeError as error:
            print(f"{server:8} {layer:7} {hub:3} did not start: {str(error).strip().splitlines()[-1:]}", flush=True)
            return
        try:
            campaign_id = asyncio.run(asyncio.wait_for(http_post("127.0.0.1", port, "/__bench/setup/"), 60))[
                "campaign_id"
            ]
            for n in sizes:
                result = Result()
                # Bounded in time: rounds stop at the budget; a hang (connect, trigger) is cut a minute later.
                try:
                    rounds_of = measure(port, campaign_id, n, rounds, result, budget, plain=plain)
                    asyncio.run(asyncio.wait_for(rounds_of, budget + 60))
                except (TimeoutError, ConnectionError, OSError) as error:
                    result.stopped = f"{type(error).__name__} {error}".strip()
                for row in format_rows(server, layer, hub, n, result):
                    print(row, flush=True)
        finally:
            stop(process)


def run_two_processes(sizes: Sequence[int], rounds: int, budget: float) -> None:
    """Two uvicorn processes, the Redis pub/sub layer and the hub, against plain WebSockets over Redis."""
    server, layer = "uvicorn", "pubsub"
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "SQLITE_PATH": str(Path(tmp) / "bench.sqlite3"), "BENCH_LAYER": layer}
        env.update({"LIVE_HUB": "1", "REDIS_LAYER": layer})
        # Its own channel names: another run sharing the Redis server does not hear these events.
        env["CHANNEL_LAYER_PREFIX"] = f"{env.get('CHANNEL_LAYER_PREFIX', 'tintero')}-bench-{os.getpid()}"
        env.pop("DATABASE_URL", None)
        env.setdefault("LOG_LEVEL", "ERROR")
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
        ports = [free_port(), free_port()]
        processes = []
        try:
            for i, port in enumerate(ports):
                log = Path(tmp) / f"server-{i}.log"
                processes.append(start_server(server, "bench.fanout_asgi:application", port, env, log))
        except RuntimeError as error:
            print(f"{'uvicorn2':8} {layer:7} on  did not start: {str(error).strip().splitlines()[-1:]}", flush=True)
            for process in processes:
                stop(process)
            return
        try:
            campaign_id = asyncio.run(asyncio.wait_for(http_post("127.0.0.1", ports[0], "/__bench/setup/"), 60))[
                "campaign_id"
            ]
            for n in sizes:
                result = Result()
                try:
                    rounds_of = measure_two_processes(ports, campaign_id, n, rounds, result, budget)
                    asyncio.run(asyncio.wait_for(rounds_of, budget + 60))
                except (TimeoutError, ConnectionError, OSError) as error:
                    result.stopped = f"{type(error).__name__} {error}".strip()
                for row in format_rows("uvicorn2", layer, "on", n, result):
                    print(row, flush=True)
        finally:
            for process in processes:
                stop(process)


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _open_and_close(port: int, campaign_id: int, n: int, pid: int) -> tuple[float, float]:
    clients = await _connect_many(port, f"/ws/campaigns/{campaign_id}/", n)
    await asyncio.sleep(1)
    opened = _rss_mib(pid)
    for client in clients:
        await client.close()
    await asyncio.sleep(5)  # the server sees the closes
    return opened, _rss_mib(pid)


def run_memory(n: int) -> None:
    """One uvicorn process (memory layer): its resident size started, with ``n`` live sockets open, and after
    they closed, twice (a second wave shows whether the first's memory was kept for reuse or leaked)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "SQLITE_PATH": str(Path(tmp) / "bench.sqlite3"), "BENCH_LAYER": "memory"}
        env.pop("DATABASE_URL", None)
        env.setdefault("LOG_LEVEL", "ERROR")
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
        port = free_port()
        process = start_server("uvicorn", "bench.fanout_asgi:application", port, env, Path(tmp) / "server.log")
        try:
            campaign_id = asyncio.run(http_post("127.0.0.1", port, "/__bench/setup/"))["campaign_id"]
            started = _rss_mib(process.pid)
            for wave in (1, 2):
                opened, closed = asyncio.run(_open_and_close(port, campaign_id, n, process.pid))
                print(
                    f"memory, uvicorn, wave {wave}: started {started:.0f} MiB, {n} sockets open {opened:.0f} MiB, "
                    f"closed {closed:.0f} MiB (given back: {(opened - closed) / max(opened - started, 1e-9):.0%})",
                    flush=True,
                )
        finally:
            stop(process)


def run(
    servers: Sequence[str],
    layers: Sequence[str],
    sizes: Sequence[int],
    rounds: int,
    budget: float,
    hubs: Sequence[str] = ("on",),
    plain: bool = False,
    two_processes: Sequence[int] = (),
) -> None:
    print(
        f"fan-out: one event to N WebSocket clients, {rounds} rounds each; ms, medians over rounds of each round's"
        " p50/p99/last; x = median over rounds of app/floor run back to back"
    )
    print(HEADER, flush=True)
    for layer in layers:
        if layer != "memory" and not os.environ.get("REDIS_URL"):
            print(f"{'*':8} {layer:7} skipped: REDIS_URL is not set")
            continue
        for server in servers:
            for hub in hubs:  # innermost: the modes compared run back to back, under the same load
                run_configuration(server, layer, hub, sizes, rounds, budget, plain)
    if two_processes:
        if os.environ.get("REDIS_URL"):
            run_two_processes(two_processes, rounds, budget)
        else:
            print(f"{'uvicorn2':8} {'pubsub':7} skipped: REDIS_URL is not set (two processes share events through it)")
    print(
        f"target: app p99 within {P99_RATIO_TARGET}x of the floor"
        + (f"; moonshot: within {PLAIN_P99_RATIO_TARGET}x of plain WebSockets" if plain else "")
        + (
            f"; uvicorn2 (two processes, x = app/plain over Redis): p99 within {TWO_PROCESS_P99_RATIO_TARGET}x"
            if two_processes
            else ""
        )
    )


def _choices(value: str, allowed: Sequence[str]) -> list[str]:
    chosen = [item for item in value.split(",") if item]
    unknown = sorted(set(chosen) - set(allowed))
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown {unknown}; choose from {','.join(allowed)}")
    return chosen


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="memory layer, 100 clients, 5 rounds, both servers")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--servers", type=lambda v: _choices(v, SERVERS), default=list(SERVERS))
    parser.add_argument("--layers", type=lambda v: _choices(v, LAYERS), default=list(LAYERS))
    parser.add_argument("--sizes", default="100,500")
    parser.add_argument("--budget", type=float, default=MEASURE_LIMIT, help="seconds per configuration and size")
    hub_help = "LIVE_HUB for the server: on (the default), off, or on,off to compare"
    parser.add_argument("--hub", type=lambda v: _choices(v, HUB_MODES), default=["on"], help=hub_help)
    parser.add_argument("--plain", action="store_true", help="also measure plain WebSockets (no Channels)")
    two_help = "sizes of the two-process rows (uvicorn x2, Redis pub/sub, vs plain WebSockets over Redis); '' skips"
    parser.add_argument("--two-processes", default="1000,3000", help=two_help)
    parser.add_argument("--memory", type=int, default=0, help="only the memory row, with this many sockets")
    args = parser.parse_args(argv)
    if args.memory:
        run_memory(args.memory)
        return 0
    two = [int(n) for n in args.two_processes.split(",") if n]
    if args.quick:
        run(args.servers, ["memory"], [100], 5, args.budget, args.hub, args.plain)
    else:
        sizes = [int(n) for n in args.sizes.split(",")]
        run(args.servers, args.layers, sizes, args.rounds, args.budget, args.hub, args.plain, two)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
