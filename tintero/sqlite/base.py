"""Django's SQLite backend, with the writers of one process queued on a lock instead of SQLite's busy wait.

SQLite lets one writer in at a time. A transaction that finds the write lock taken is put to sleep by
SQLite's busy handler in growing steps (1, 2, 5, 10 ... 100 ms) and tries again: it may sleep 100 ms for a
lock freed 1 ms later, and a newcomer can take the lock before writers already waiting. Under ASGI every
request runs on its own thread, so eight writers of one process spent more time asleep than writing
(eight slower than one, p99 over a second in ``make bench``). Here a transaction (an ``atomic`` block,
``BEGIN IMMEDIATE``) first takes a lock shared by the process's connections to the same database file and
holds it until COMMIT or ROLLBACK: the process's writers queue and each starts the moment the previous one
ends, in the order they came. Other processes (the task worker) still meet SQLite's busy timeout. Waiting
longer than the connection's ``timeout`` raises ``database is locked``, as SQLite would have.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from django.db import OperationalError
from django.db.backends.sqlite3 import base


class WriterQueue:
    """A lock handed to waiters in the order they came: no writer is overtaken by later ones (a plain
    ``threading.Lock`` wakes any waiter, and an unlucky one can wait through many transactions)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._waiting: deque[threading.Event] = deque()
        self._held = False

    def acquire(self, timeout: float) -> bool:
        with self._guard:
            if not self._held:
                self._held = True
                return True
            turn = threading.Event()
            self._waiting.append(turn)
        if turn.wait(timeout):
            return True
        with self._guard:
            if turn.is_set():  # handed over as the wait ran out
                return True
            self._waiting.remove(turn)
            return False

    def waiting(self) -> int:
        """How many wait in line (tests use it to line waiters up in a known order)."""
        with self._guard:
            return len(self._waiting)

    def release(self) -> None:
        with self._guard:
            if self._waiting:
                self._waiting.popleft().set()  # handed over: it stays held, by the next in line
            else:
                self._held = False


_queues: dict[str, WriterQueue] = {}
_queues_guard = threading.Lock()


def writer_queue(name: str) -> WriterQueue:
    """The queue of this process's writers to the database file ``name``."""
    with _queues_guard:
        return _queues.setdefault(name, WriterQueue())


class DatabaseWrapper(base.DatabaseWrapper):
    holds_writer_lock = False

    def _writer_lock(self) -> WriterQueue:
        return writer_queue(str(self.settings_dict["NAME"]))

    def _start_transaction_under_autocommit(self) -> None:
        if not self.holds_writer_lock and not self.is_in_memory_db():
            timeout = float(self.settings_dict.get("OPTIONS", {}).get("timeout", 5))
            if not self._writer_lock().acquire(timeout=timeout):
                raise OperationalError("database is locked")
            self.holds_writer_lock = True
        try:
            super()._start_transaction_under_autocommit()  # type: ignore[misc]
        except BaseException:
            self._release_writer_lock()
            raise

    def _release_writer_lock(self) -> None:
        if self.holds_writer_lock:
            self.holds_writer_lock = False
            self._writer_lock().release()

    def _commit(self) -> Any:
        try:
            return super()._commit()  # type: ignore[misc]  # not in django-stubs
        finally:
            self._release_writer_lock()

    def _rollback(self) -> Any:
        try:
            return super()._rollback()  # type: ignore[misc]  # not in django-stubs
        finally:
            self._release_writer_lock()

    def _close(self) -> Any:
        try:
            return super()._close()  # type: ignore[misc]  # not in django-stubs
        finally:
            self._release_writer_lock()
