"""The fan-out benchmark: per-round summaries, paired ratios, bounded runs, and both servers really serve."""

from __future__ import annotations

import asyncio
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bench import fanout


def test_each_round_is_summarised_on_its_own() -> None:
    samples = fanout.Samples()
    samples.add_round([0.001 * i for i in range(1, 101)], expected=100)
    samples.add_round([0.5, 0.7], expected=4)  # two clients never got this one
    assert samples.p50 == pytest.approx([0.051, 0.7])
    assert samples.p99 == pytest.approx([0.1, 0.7])
    assert samples.last == pytest.approx([0.1, 0.7])
    assert samples.lost == 2
    assert samples.rounds == 2


def test_a_round_nobody_received_counts_as_lost_not_as_a_round() -> None:
    samples = fanout.Samples()
    samples.add_round([], expected=3)
    assert samples.rounds == 0 and samples.lost == 3


def test_ratio_is_the_median_of_back_to_back_pairs() -> None:
    # A load spike in round 2 slows both app and floor: paired ratios ignore it, a ratio of medians would not.
    assert fanout.paired_ratio([1.0, 10.0, 1.2], [1.0, 10.0, 1.0]) == 1.0
    assert fanout.paired_ratio([2.0, 3.0], [1.0, 0.0]) == 2.0  # a zero floor is skipped, not divided by
    assert math.isnan(fanout.paired_ratio([], []))


def test_a_configuration_cut_short_says_so_with_what_it_measured() -> None:
    result = fanout.Result(connect_s=12.0, stopped="time budget 150 s spent")
    result.app.add_round([0.2, 0.4], expected=2)
    result.floor.add_round([0.1, 0.2], expected=2)
    rows = fanout.format_rows("uvicorn", "core", "off", 500, result)
    assert rows[0].split()[:5] == ["uvicorn", "core", "off", "500", "app"]
    assert rows[0].split()[8:11] == ["2.00", "2.00", "2.00"]
    assert rows[-1] == "uvicorn  core    off  500 did not finish: time budget 150 s spent"


def test_a_finished_configuration_has_no_did_not_finish_row() -> None:
    result = fanout.Result(connect_s=1.0)
    result.app.add_round([0.1], expected=1)
    result.floor.add_round([0.1], expected=1)
    assert len(fanout.format_rows("daphne", "memory", "on", 100, result)) == 2


def test_the_plain_row_compares_the_app_with_plain_websockets() -> None:
    result = fanout.Result(connect_s=1.0)
    result.app.add_round([0.3], expected=1)
    result.floor.add_round([0.3], expected=1)
    result.plain.add_round([0.1], expected=1)
    rows = fanout.format_rows("uvicorn", "memory", "on", 100, result)
    assert [row.split()[4] for row in rows] == ["app", "floor", "plain"]
    assert rows[0].split()[9] == "1.00" and rows[2].split()[9] == "3.00"  # p99 x: app/floor, then app/plain


def test_the_two_process_rows_have_plain_websockets_over_redis_as_their_floor() -> None:
    # Two processes (issue 26): no Channels floor round; the app row's x is app/plain.
    result = fanout.Result(connect_s=1.0)
    result.app.add_round([0.3], expected=1)
    result.plain.add_round([0.2], expected=1)
    rows = fanout.format_rows("uvicorn2", "pubsub", "on", 1000, result)
    assert [row.split()[4] for row in rows] == ["app", "plain"]
    assert rows[0].split()[9] == "1.50"


def test_only_uvicorn_serves_with_more_worker_processes() -> None:
    command = fanout.server_command("uvicorn", "app:application", 8000, workers=2)
    assert command[command.index("--workers") + 1] == "2"
    assert "--workers" not in fanout.server_command("uvicorn", "app:application", 8000)
    with pytest.raises(ValueError):
        fanout.server_command("daphne", "app:application", 8000, workers=2)


def test_unknown_server_or_layer_is_refused() -> None:
    with pytest.raises(ValueError):
        fanout.server_command("hypercorn", "app:application", 8000)
    with pytest.raises(SystemExit):
        fanout.main(["--layers", "redis"])  # the old name: the layers are memory, pubsub, core
    with pytest.raises(SystemExit):
        fanout.main(["--servers", "gunicorn"])
    with pytest.raises(SystemExit):
        fanout.main(["--hub", "maybe"])


def _bench_env(database: Path) -> dict[str, str]:
    env = {**os.environ, "SQLITE_PATH": str(database), "BENCH_LAYER": "memory", "LOG_LEVEL": "ERROR"}
    env.pop("DATABASE_URL", None)
    return env


@pytest.fixture(scope="session")
def migrated_bench_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file, built once per test process: each server test starts from a copy of it."""
    database = tmp_path_factory.mktemp("bench-db") / "bench.sqlite3"
    migrate = [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"]
    subprocess.run(migrate, cwd=fanout.ROOT, env=_bench_env(database), check=True)
    return database


@contextmanager
def _serving(server: str, tmp_path: Path, migrated: Path) -> Iterator[tuple[int, int]]:
    """(port, campaign id) of the benchmark app on ``server`` with the memory layer, stopped afterwards."""
    database = tmp_path / "bench.sqlite3"
    # The migrate process closed its last connection, so the file holds everything (no write-ahead log left).
    shutil.copyfile(migrated, database)
    env = _bench_env(database)
    port = fanout.free_port()
    process = fanout.start_server(server, "bench.fanout_asgi:application", port, env, tmp_path / "server.log")
    try:
        setup = asyncio.run(asyncio.wait_for(fanout.http_post("127.0.0.1", port, "/__bench/setup/"), 60))
        yield port, setup["campaign_id"]
    finally:
        fanout.stop(process)


@pytest.mark.parametrize("server", fanout.SERVERS)
def test_both_servers_deliver_app_and_floor_rounds(server: str, tmp_path: Path, migrated_bench_database: Path) -> None:
    """Small but real: the server process, the benchmark app, our WebSocket client and two rounds of each
    (app, floor and plain WebSockets)."""
    result = fanout.Result()
    with _serving(server, tmp_path, migrated_bench_database) as (port, campaign_id):
        measure = fanout.measure(port, campaign_id, 3, rounds=2, result=result, budget=120, warmup=0, plain=True)
        asyncio.run(asyncio.wait_for(measure, 180))
    assert (result.app.rounds, result.floor.rounds, result.plain.rounds) == (2, 2, 2)
    assert result.app.lost == result.floor.lost == result.plain.lost == 0
    assert not result.stopped


def test_a_spent_budget_stops_the_rounds(tmp_path: Path, migrated_bench_database: Path) -> None:
    result = fanout.Result()
    with _serving("daphne", tmp_path, migrated_bench_database) as (port, campaign_id):
        asyncio.run(asyncio.wait_for(fanout.measure(port, campaign_id, 2, 50, result, budget=0), 120))
    assert result.app.rounds == 0
    assert result.stopped == "time budget 0 s spent"
