"""SQLite's writers (issue 12): one process's transactions queue in order on a lock instead of SQLite's
busy wait, and its requests that may write run one at a time."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from django.core.exceptions import MiddlewareNotUsed
from django.db import OperationalError, connection, connections, transaction
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from tintero.sqlite.base import WriterQueue, writer_queue
from tintero.sqlite.middleware import WriteRequestQueue

on_sqlite = pytest.mark.skipif(connection.vendor != "sqlite", reason="the writer queue is SQLite's")


def _until(condition: Callable[[], bool]) -> None:
    """Wait for another thread to reach a point; the generous deadline only turns a hang into a failure."""
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, "the other thread never got there"
        time.sleep(0.001)


def _in_line(queue: WriterQueue, count: int) -> bool:
    return queue.waiting() == count


def _in_threads(*targets: Callable[[], None]) -> None:
    threads = [threading.Thread(target=target) for target in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
        assert not thread.is_alive()


def test_the_queue_hands_the_lock_over_in_arrival_order() -> None:
    queue = WriterQueue()
    assert queue.acquire(timeout=1)
    order: list[int] = []

    def waiter(n: int) -> Callable[[], None]:
        def run() -> None:
            assert queue.acquire(timeout=10)
            order.append(n)
            queue.release()

        return run

    threads = [threading.Thread(target=waiter(n)) for n in range(5)]
    for n, thread in enumerate(threads):
        thread.start()
        _until(partial(_in_line, queue, n + 1))  # in line before the next one comes
    queue.release()
    for thread in threads:
        thread.join(timeout=30)
    assert order == [0, 1, 2, 3, 4]
    assert queue.acquire(timeout=0.1)  # free again once the last let go


def test_a_wait_that_runs_out_leaves_the_line() -> None:
    queue = WriterQueue()
    assert queue.acquire(timeout=1)
    assert not queue.acquire(timeout=0.05)
    queue.release()
    assert queue.acquire(timeout=0.05)  # the one that gave up was not handed the lock


@on_sqlite
@pytest.mark.django_db(transaction=True)
def test_a_transaction_holds_its_process_queue_until_commit_or_rollback() -> None:
    queue = writer_queue(str(connection.settings_dict["NAME"]))
    with transaction.atomic():
        assert connection.holds_writer_lock  # type: ignore[attr-defined]
        with transaction.atomic():  # a savepoint takes nothing more
            pass
        assert not queue.acquire(timeout=0)
    assert queue.acquire(timeout=0)
    queue.release()
    with pytest.raises(RuntimeError), transaction.atomic():
        assert not queue.acquire(timeout=0)
        raise RuntimeError("rolled back")
    assert not connection.holds_writer_lock  # type: ignore[attr-defined]
    assert queue.acquire(timeout=0)
    queue.release()


@on_sqlite
@pytest.mark.django_db(transaction=True)
def test_a_second_transaction_waits_for_the_first_and_a_rollback_lets_it_go() -> None:
    events: list[str] = []
    first_in = threading.Event()
    release_first = threading.Event()

    def first() -> None:
        try:
            with transaction.atomic():
                events.append("first begins")
                first_in.set()
                release_first.wait(30)
                events.append("first rolls back")
                raise RuntimeError("rolled back")
        except RuntimeError:
            pass
        finally:
            connections.close_all()

    def second() -> None:
        first_in.wait(30)
        queue = writer_queue(str(connection.settings_dict["NAME"]))

        def release_once_in_line() -> None:
            _until(partial(_in_line, queue, 1))
            release_first.set()

        threading.Thread(target=release_once_in_line).start()
        try:
            with transaction.atomic():
                events.append("second begins")
        finally:
            connections.close_all()

    _in_threads(first, second)
    assert events == ["first begins", "first rolls back", "second begins"]


@on_sqlite
@pytest.mark.django_db(transaction=True)
def test_waiting_longer_than_the_timeout_is_database_is_locked() -> None:
    holding = threading.Event()
    done = threading.Event()
    errors: list[Exception] = []

    def holder() -> None:
        try:
            with transaction.atomic():
                holding.set()
                done.wait(30)
        finally:
            connections.close_all()

    def latecomer() -> None:
        holding.wait(30)
        options = connections["default"].settings_dict["OPTIONS"]
        options["timeout"], saved = 0.1, options.get("timeout")
        try:
            with transaction.atomic():
                pass
        except OperationalError as error:
            errors.append(error)
        finally:
            options["timeout"] = saved
            done.set()
            connections.close_all()

    _in_threads(holder, latecomer)
    assert [str(e) for e in errors] == ["database is locked"]


def _gated(view: Callable[[HttpRequest], HttpResponse]) -> WriteRequestQueue:
    if connection.vendor != "sqlite":
        pytest.skip("the request queue is SQLite's")
    return WriteRequestQueue(view)


def test_requests_that_may_write_run_one_at_a_time_and_reads_do_not_wait() -> None:
    running: list[str] = []
    overlaps: list[str] = []
    guard = threading.Lock()
    read_ran = threading.Event()
    writes_saw_the_read: list[bool] = []

    def view(request: HttpRequest) -> HttpResponse:
        with guard:
            if any(method != "GET" for method in running) and request.method != "GET":
                overlaps.append(request.method or "")
            running.append(request.method or "")
        if request.method == "GET":
            read_ran.set()
        else:
            # A write holds the line until the read has run: were reads queued too, it would wait in vain.
            writes_saw_the_read.append(read_ran.wait(30))
            time.sleep(0.02)  # room for a second write to step in, were writes not queued
        with guard:
            running.remove(request.method or "")
        return HttpResponse("ok")

    middleware = _gated(view)
    factory = RequestFactory()

    def write(method: str) -> Callable[[], None]:
        def run() -> None:
            middleware(getattr(factory, method.lower())("/"))

        return run

    def read() -> None:
        _until(lambda: bool(running))  # a write is inside its view
        middleware(factory.get("/"))

    _in_threads(write("POST"), write("PATCH"), write("DELETE"), read)
    assert overlaps == []
    assert writes_saw_the_read == [True, True, True]


def test_on_postgresql_the_request_queue_removes_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection, "vendor", "postgresql")
    with pytest.raises(MiddlewareNotUsed):
        WriteRequestQueue(lambda request: HttpResponse())


def test_a_zero_timeout_turns_the_request_queue_off(settings: Any) -> None:
    settings.SQLITE_WRITE_QUEUE_SECONDS = 0
    with pytest.raises(MiddlewareNotUsed):
        WriteRequestQueue(lambda request: HttpResponse())
