"""On SQLite, a process's requests that may write run one at a time, in the order they came.

SQLite has one writer at a time, and under ASGI each request runs on its own thread: eight posting at once
each held the write lock while losing the GIL to the seven others (their reads, Markdown, serializing),
so every transaction stretched and the slowest waited over a second. Queued here, a request that may write
(any method but GET, HEAD, OPTIONS and TRACE) runs its view alone and quickly, and waits only for those
before it: eight writers post about as fast as one, with a p99 of about eight posts' time (``make bench``).
Reads are never queued. On PostgreSQL, or with ``SQLITE_WRITE_QUEUE_SECONDS=0``, it removes itself.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.db import connection
from django.http import HttpRequest, HttpResponse

from tintero.sqlite.base import WriterQueue

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
_queue = WriterQueue()


class WriteRequestQueue:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.timeout = float(settings.SQLITE_WRITE_QUEUE_SECONDS)
        if connection.vendor != "sqlite" or self.timeout <= 0:  # 0: off
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method in SAFE_METHODS:
            return self.get_response(request)
        # Past the timeout the request goes ahead unqueued: the database's own writer queue still keeps
        # its transaction safe; this one only keeps requests from slowing each other down.
        queued = _queue.acquire(self.timeout)
        try:
            return self.get_response(request)
        finally:
            if queued:
                _queue.release()
