"""Helpers for browser tests that use the ASGI live server (fixtures ``asgi_live_server`` and
``live_page_for`` live in tests/browser/fixtures.py, loaded for every test folder by the root conftest.py, so the
session-scoped server starts once)."""

from __future__ import annotations

from typing import Any


def open_live(page: Any, path: str) -> Any:
    """Open ``path`` and wait until its campaign socket says hello (the indicator turns connected)."""
    page.goto(path)
    page.wait_for_selector("#live-status[data-state=connected]", state="visible")
    return page
