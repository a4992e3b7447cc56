"""SQLite's writers (issue 12): one process's transactions queue in order on a lock instead of SQLite's
busy wait, and its requests that may write run one at a time."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.core.exceptions import MiddlewareNotUsed
from django.db import OperationalError, connection, connections, transaction
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from tintero.sqlite.base import WriterQueue
from tintero.sqlite.middleware import WriteRequestQueue

on_sqlite = pytest.mark.skipif(connection.vendor != "sqlite", reason="the writer queue is SQLite's")


def _in_threads(*targets: Callable[[], None]) -> None:
    threads = [threading.Thread(target=target) for target in targets]
    for thread in threads:
        thread.start()
        time.sleep(0.05)  # each starts waiting before the next: their order is the test's
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

    releaser = threading.Timer(0.3, queue.release)
    releaser.start()
    _in_threads(*(waiter(n) for n in range(5)))
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
    from tintero.sqlite.base import writer_queue

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
                release_first.wait(5)
                events.append("first rolls back")
                raise RuntimeError("rolled back")
        except RuntimeError:
            pass
        finally:
            connections.close_all()

    def second() -> None:
        first_in.wait(5)
        try:
            threading.Timer(0.2, release_first.set).start()
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
                done.wait(5)
        finally:
            connections.close_all()

    def latecomer() -> None:
        holding.wait(5)
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

    def view(request: HttpRequest) -> HttpResponse:
        with guard:
            if any(method != "GET" for method in running) and request.method != "GET":
                overlaps.append(request.method or "")
            running.append(request.method or "")
        time.sleep(0.1)
        with guard:
            running.remove(request.method or "")
        return HttpResponse("ok")

    middleware = _gated(view)
    factory = RequestFactory()
    started = time.perf_counter()
    reads: list[float] = []

    def write(method: str) -> Callable[[], None]:
        def run() -> None:
            middleware(getattr(factory, method.lower())("/"))

        return run

    def read() -> None:
        began = time.perf_counter()
        middleware(factory.get("/"))
        reads.append(time.perf_counter() - began)

    _in_threads(write("POST"), write("PATCH"), write("DELETE"), read)
    assert overlaps == []
    assert time.perf_counter() - started >= 0.3  # the three writes ran one after another
    assert reads and reads[0] < 0.25  # the read ran beside them, not after them


def test_on_postgresql_the_request_queue_removes_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection, "vendor", "postgresql")
    with pytest.raises(MiddlewareNotUsed):
        WriteRequestQueue(lambda request: HttpResponse())


def test_a_zero_timeout_turns_the_request_queue_off(settings: Any) -> None:
    settings.SQLITE_WRITE_QUEUE_SECONDS = 0
    with pytest.raises(MiddlewareNotUsed):
        WriteRequestQueue(lambda request: HttpResponse())
