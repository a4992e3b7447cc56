"""Shared Playwright fixtures for the browser tests (headless Debian Chromium against ``live_server``).

Where Chromium or Playwright is missing the tests skip and say why. Playwright's sync API runs an event
loop in this thread, so Django's async-safety check is relaxed for these tests only (the ORM calls of the
test itself run before and after the page steps, never concurrently with them).
"""

from __future__ import annotations

import os
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

    def make(user: Any = None, language: str = "es") -> Any:
        context = browser.new_context(base_url=live_server.url, locale=language)
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
