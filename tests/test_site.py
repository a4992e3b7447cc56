"""The site answers like a finished one: a favicon, its own error pages (never Django's debug page under
`make run`), one log line per request."""

from __future__ import annotations

import os
import subprocess
from typing import Any

import pytest
from django.conf import settings
from django.template.loader import render_to_string
from django.test import Client

from tests.test_deployment import ROOT


def test_favicon_is_served_with_a_long_cache(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    assert b"".join(response)[:4] == b"\x00\x00\x01\x00"  # an ICO header, not an HTML page
    assert "max-age=604800" in response["Cache-Control"]


@pytest.mark.django_db
def test_a_missing_page_is_the_sites_own_404(client: Client) -> None:
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert "Esta página no existe" in response.content.decode()
    assert "URLconf" not in response.content.decode()


def test_the_500_page_renders_without_any_context() -> None:
    # Django's server_error renders with no request: nothing in it may need one.
    html = render_to_string("500.html")
    assert "Algo ha fallado en el servidor" in html


def test_make_run_serves_with_debug_off_and_a_local_key() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    recipe = subprocess.run(["make", "-n", "run"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60).stdout
    serve = next(line for line in recipe.splitlines() if "runserver" in line)
    assert "DEBUG=0" in serve
    assert "SECRET_KEY=" in serve and ".local/secret_key" in serve
    collect = next(line for line in recipe.splitlines() if "collectstatic" in line)
    assert "DEBUG=0" in collect  # so the manifest WhiteNoise serves exists
    assert ".local/" in (ROOT / ".gitignore").read_text()


def test_django_logs_each_line_once() -> None:
    # Django's default config gives "django" a console handler of its own; ours replaces it with one that
    # does not also propagate to the root handler (which printed every access line twice).
    loggers: Any = settings.LOGGING["loggers"]
    assert loggers["django"]["handlers"] == ["console"]
    assert loggers["django"]["propagate"] is False
    assert loggers["django.request"]["level"] == "ERROR"  # the access line already shows the 404
