"""Shared Playwright fixtures for the browser tests (headless Debian Chromium against ``live_server``).

Where Chromium or Playwright is missing the tests skip and say why. Playwright's sync API runs an event
loop in this thread, so Django's async-safety check is relaxed for these tests only (the ORM calls of the
test itself run before and after the page steps, never concurrently with them).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("TINTERO_CHROMIUM", "/usr/bin/chromium"))
# Generous: CI shares a 2-core machine with other services, and a loaded page step has taken over 10 s.
PAGE_TIMEOUT_MS = 30_000


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests need Chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser tests need the playwright Python package")
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            launched = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-gpu"]
            )
            yield launched
            launched.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page_for(browser: Any, live_server: Any) -> Iterator[Callable[..., Any]]:
    """``page_for(user)``: a new browser page logged in as ``user`` (None: anonymous), whose relative
    ``goto`` paths resolve against the live server. Every context is closed after the test."""
    from django.conf import settings
    from django.test import Client

    contexts: list[Any] = []

    def make(user: Any = None, language: str = "es", **options: Any) -> Any:
        context = browser.new_context(base_url=live_server.url, locale=language, **options)
        context.set_default_timeout(PAGE_TIMEOUT_MS)
        if user is not None:
            client = Client()
            client.force_login(user)
            cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
            context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


# --- The ASGI live server (pytest-django's ``live_server`` is WSGI: no WebSockets) -----------------
# daphne runs in a thread of the test process, so it shares the test database (transactional tests) and
# the in-memory channel layer with the test. Twisted's reactor runs once per process: the server is
# session-scoped and defined here only, so every module shares the one instance.


class _InFlight:
    """The live server's requests and sockets still being handled. A test's database flush (TRUNCATE of
    every table) must not start while one of them still reads: PostgreSQL then finds the two waiting on
    each other's table locks and kills one (a deadlock at teardown)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self.count = 0

    def __enter__(self) -> None:
        with self._guard:
            self.count += 1

    def __exit__(self, *exc: object) -> None:
        with self._guard:
            self.count -= 1

    def wait_until_idle(self, seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        while self.count and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not self.count, f"the live server still handled {self.count} requests {seconds} s after the test"


_in_flight = _InFlight()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def asgi_live_server() -> Iterator[str]:
    from daphne.endpoints import build_endpoint_description_strings
    from daphne.server import Server
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
    from twisted.internet import reactor

    from tintero.asgi import application, django_asgi_app

    # Tests run with DEBUG off and no collectstatic: serve static files from the finders, as runserver does.
    static_http = ASGIStaticFilesHandler(django_asgi_app)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        handler = static_http if scope["type"] == "http" else application
        with _in_flight:
            await handler(scope, receive, send)

    port = _free_port()
    server = Server(
        application=app,
        endpoints=build_endpoint_description_strings(host="127.0.0.1", port=port),
        signal_handlers=False,  # only the main thread may install them
        verbosity=0,
    )
    thread = threading.Thread(target=server.run, name="daphne-live-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.05)
    else:
        pytest.fail("the ASGI live server did not start")
    yield f"http://127.0.0.1:{port}"
    reactor.callFromThread(reactor.stop)  # type: ignore[attr-defined]
    thread.join(timeout=5)


@pytest.fixture
def live_page_for(browser: Any, asgi_live_server: str) -> Iterator[Callable[..., Any]]:
    """``live_page_for(user)``: a page in its own browser context, logged in as ``user`` (None: anonymous),
    against the ASGI live server."""
    from django.conf import settings
    from django.test import Client

    contexts: list[Any] = []

    def make(user: Any = None) -> Any:
        context = browser.new_context(base_url=asgi_live_server, locale="es")
        context.set_default_timeout(PAGE_TIMEOUT_MS)
        if user is not None:
            client = Client()
            client.force_login(user)
            cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
            context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": asgi_live_server}])
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()
    _in_flight.wait_until_idle()  # before the test's database is flushed
