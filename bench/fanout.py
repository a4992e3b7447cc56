"""Fan-out benchmark: one pool change broadcast to 100 and 500 WebSocket clients of one campaign.

Run from the repository root (REDIS_URL for the Redis rows; without it they are skipped)::

    .venv/bin/python -m bench.fanout            # memory, redis and redis-pubsub layers; 100 and 500 clients
    .venv/bin/python -m bench.fanout --quick    # memory layer, 100 clients, a few rounds

For each channel layer it starts one daphne process serving ``bench.fanout_asgi:application`` (Tintero
plus a bare floor consumer) on a fresh SQLite database, connects N app clients (anonymous readers of a
public campaign, through the real origin check, auth stack, consumer and policy filter) and N floor
clients, then alternates rounds: the app round commits one pool change through ``publish``; the floor
round has a bare Channels consumer forward a pre-serialized payload of the same size. Latency is
commit (or send, for the floor) to receipt in the client, on the same clock. Reported: p50, p99, the
median time to last delivery per round, and app/floor ratios (target: p99 ratio <= 1.2).

Only daphne is measured (uvicorn is not installed). Benchmarks report, they do not gate: exit status 0.
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


# --- A minimal WebSocket client (the venv has no client library; this one costs almost nothing) --------


class WsClient:
    """Text frames only, server frames unmasked and unfragmented (what daphne sends for small payloads)."""

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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_daphne(app: str, port: int, env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    """A daphne process on ``port``; returns once it accepts connections."""
    command = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), *args, app]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited: {process.stderr.read().decode() if process.stderr else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("daphne did not start in 30 s")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


# --- The measurement ---------------------------------------------------------------------------------


@dataclass
class Samples:
    latencies: list[float] = field(default_factory=list)
    last: list[float] = field(default_factory=list)
    lost: int = 0

    def p(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def _round(clients: list[WsClient], trigger: Any, samples: Samples, timeout: float = 15) -> int:
    result = await trigger()
    seq, t0 = result["seq"], result["t0"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(seq not in c.received for c in clients):
        await asyncio.sleep(0.005)
    times = [c.received[seq] - t0 for c in clients if seq in c.received]
    samples.lost += len(clients) - len(times)
    samples.latencies.extend(times)
    if times:
        samples.last.append(max(times))
    return len(str(seq))


async def _connect_many(port: int, path: str, n: int) -> list[WsClient]:
    gate = asyncio.Semaphore(50)  # the listen backlog is finite: connect in waves

    async def one() -> WsClient:
        async with gate:
            return await WsClient.connect("127.0.0.1", port, path)

    clients = await asyncio.gather(*(one() for _ in range(n)))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(0 not in c.received and not c.received for c in clients):
        await asyncio.sleep(0.01)
    return list(clients)


async def measure(port: int, campaign_id: int, n: int, rounds: int, warmup: int = 3) -> tuple[Samples, Samples]:
    app_clients = await _connect_many(port, f"/ws/campaigns/{campaign_id}/", n)
    floor_clients = await _connect_many(port, "/ws/__bench/floor/", n)
    await asyncio.sleep(0.5)
    app, floor = Samples(), Samples()
    floor_seq = 0
    size = 80

    async def app_trigger() -> dict[str, Any]:
        return await http_post("127.0.0.1", port, f"/__bench/app/{campaign_id}/")

    async def floor_trigger() -> dict[str, Any]:
        return await http_post("127.0.0.1", port, f"/__bench/floor/?size={size}&seq={floor_seq}")

    for index in range(warmup + rounds):
        keep = index >= warmup
        a, f = (app, floor) if keep else (Samples(), Samples())
        await _round(app_clients, app_trigger, a)
        # The floor's payload matches the app's frame, measured on the wire.
        size = app_clients[0].last_size
        await asyncio.sleep(0.1)
        floor_seq += 1
        await _round(floor_clients, floor_trigger, f)
        await asyncio.sleep(0.1)
    for client in app_clients + floor_clients:
        await client.close()
    await asyncio.sleep(0.3)
    return app, floor


MEASURE_LIMIT = 300  # seconds for one layer and size, connections included


def _ms(value: float) -> str:
    return f"{value * 1000:8.1f}"


def run(layers: Sequence[str], sizes: Sequence[int], rounds: int) -> None:
    print(f"fan-out: one event to N WebSocket clients, daphne, {rounds} rounds each (ms; ratio = app / floor)")
    print(f"{'layer':13} {'N':>4} {'':6} {'p50':>8} {'p99':>8} {'last':>8}  {'p50 x':>6} {'p99 x':>6} {'lost':>5}")
    for layer in layers:
        if layer.startswith("redis") and not os.environ.get("REDIS_URL"):
            print(f"{layer:13} skipped: REDIS_URL is not set")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "SQLITE_PATH": str(Path(tmp) / "bench.sqlite3"), "BENCH_LAYER": layer}
            env.pop("DATABASE_URL", None)
            env.setdefault("LOG_LEVEL", "ERROR")
            subprocess.run(
                [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
            )
            port = free_port()
            # 500 sockets connecting at once queue on the database thread: give the handshakes time.
            server = start_daphne("bench.fanout_asgi:application", port, env, "--websocket_connect_timeout", "60")
            try:
                campaign_id = asyncio.run(asyncio.wait_for(http_post("127.0.0.1", port, "/__bench/setup/"), 60))[
                    "campaign_id"
                ]
                for n in sizes:
                    # Bounded in time: a stuck server or layer is reported, never waited on forever.
                    try:
                        app, floor = asyncio.run(asyncio.wait_for(measure(port, campaign_id, n, rounds), MEASURE_LIMIT))
                    except TimeoutError:
                        print(f"{layer:13} {n:4} gave no result within {MEASURE_LIMIT} s: stopped")
                        continue
                    for name, s in (("app", app), ("floor", floor)):
                        print(
                            f"{layer:13} {n:4} {name:6} {_ms(s.p(0.5))} {_ms(s.p(0.99))} "
                            f"{_ms(statistics.median(s.last) if s.last else float('nan'))}"
                            + (
                                f"  {app.p(0.5) / floor.p(0.5):6.2f} {app.p(0.99) / floor.p(0.99):6.2f}"
                                if name == "app"
                                else " " * 15
                            )
                            + f" {s.lost:5}"
                        )
            finally:
                stop(server)
    print(f"target: app p99 within {P99_RATIO_TARGET}x of the floor")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="memory layer, 100 clients, 5 rounds")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--layers", default="memory,redis,redis-pubsub")
    parser.add_argument("--sizes", default="100,500")
    args = parser.parse_args(argv)
    if args.quick:
        run(["memory"], [100], 5)
    else:
        run(args.layers.split(","), [int(n) for n in args.sizes.split(",")], args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
