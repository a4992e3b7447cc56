"""Deployment settings: the README's production environment passes ``check --deploy`` without a warning,
a weak SECRET_KEY is refused at start, HSTS and the SSL redirect come from the environment, and every
page carries a Content-Security-Policy that allows no inline script (and no template has one)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

ROOT = Path(__file__).resolve().parent.parent
STRONG_KEY = "k3y-" + "tintero-production-secret-abcdefghijklmnopqrstuvwxyz-0123456789"


def _readme_production_env() -> dict[str, str]:
    """The variables of the README's production line (``- `DEBUG=false SECRET_KEY=... ...` ``)."""
    readme = (ROOT / "README.md").read_text()
    line = next(line for line in readme.splitlines() if "DEBUG=false" in line and "SECRET_KEY=" in line)
    pairs = dict(item.split("=", 1) for item in re.findall(r"[A-Z_]+=\S+", line.strip("-` ")))
    pairs = {name: value.strip("`") for name, value in pairs.items()}
    pairs["SECRET_KEY"] = STRONG_KEY  # the README shows "..."
    return pairs


def _manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE"}}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_the_readme_production_environment() -> None:
    env = _readme_production_env()
    assert env["DEBUG"] == "false"
    result = _manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNINGS" not in result.stderr + result.stdout
    assert "no issues" in result.stdout


@pytest.mark.parametrize(
    ("key", "reason"),
    [("short", "characters"), ("django-insecure-" + "x" * 60, "development key"), ("a" * 60, "distinct")],
)
def test_a_weak_secret_key_is_refused_at_start(key: str, reason: str) -> None:
    env = {**_readme_production_env(), "SECRET_KEY": key}
    result = _manage("check", env=env)
    assert result.returncode != 0
    assert "SECRET_KEY is too weak" in result.stderr and reason in result.stderr


def test_hsts_and_ssl_redirect_come_from_the_environment() -> None:
    env = {
        **_readme_production_env(),
        "SECURE_HSTS_SECONDS": "600",
        "SECURE_SSL_REDIRECT": "false",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": "false",
    }
    # Only the settings module is read: no django.setup(), which loads every app for seconds.
    code = (
        "from django.conf import settings as s; "
        "print(s.SECURE_HSTS_SECONDS, s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_INCLUDE_SUBDOMAINS)"
    )
    clean = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY"}}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, **env, "DJANGO_SETTINGS_MODULE": "tintero.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.split() == ["600", "False", "False"], result.stderr


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I)
EVENT_HANDLER = re.compile(r"""\s(?:on[a-z]+|hx-on[:\w-]*)\s*=\s*["']""", re.I)


def test_no_template_has_an_inline_script_or_event_handler() -> None:
    offenders = []
    # The shared templates and every app's own (rulesets/<key>/templates included).
    templates = [path for path in ROOT.glob("**/templates/**/*.html") if ".venv" not in path.parts]
    assert len(templates) > 50
    for template in templates:
        text = template.read_text()
        for pattern in (INLINE_SCRIPT, EVENT_HANDLER):
            for match in pattern.finditer(text):
                offenders.append(f"{template.relative_to(ROOT)}: {match.group(0)}")
    assert not offenders, offenders


@pytest.mark.django_db
def test_pages_carry_a_csp_without_inline_script(table: object) -> None:
    client = Client()
    client.force_login(table.gm)  # type: ignore[attr-defined]
    for url in ("/", f"/campaigns/{table.campaign.pk}/", f"/scenes/{table.scene.pk}/", "/dashboard/"):  # type: ignore[attr-defined]
        response = client.get(url)
        assert response.status_code == 200, url
        policy = response["Content-Security-Policy"]
        directives = dict(part.strip().split(" ", 1) for part in policy.split(";") if part.strip())
        assert directives["script-src"] == "'self'", policy
        assert "unsafe" not in directives["script-src"] and "unsafe" not in directives["default-src"]
        html = response.content.decode()
        assert not INLINE_SCRIPT.search(html), url
        assert not EVENT_HANDLER.search(html), url


def test_no_template_comment_spans_lines() -> None:
    # Django's {# #} comments are single-line: one that spans lines is printed on the page as text.
    found = []
    for path in ROOT.glob("**/templates/**/*.html"):
        if ".venv" in path.parts:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "{#" in line and "#}" not in line.split("{#", 1)[1]:
                found.append(f"{path.relative_to(ROOT)}:{number}")
    assert not found, found


def test_the_asgi_entry_point_keeps_what_it_loaded_out_of_the_garbage_collector() -> None:
    # In a process of its own: the test process has imported the application long before.
    script = "import gc, tintero.asgi; print(gc.get_freeze_count())"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    assert int(result.stdout.strip().splitlines()[-1]) > 10_000


@pytest.mark.skipif(not Path("/usr/bin/make").exists(), reason="make is not installed")
@pytest.mark.parametrize("target", ["run", "dev"])
def test_make_run_on_another_port_points_mail_and_feeds_there(target: str) -> None:
    """Issue 28: mail linked to port 8000 whatever `make run PORT=` said. Every process the target starts
    (the server and the task worker that sends mail) gets the SITE_URL it serves."""
    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if k != "SITE_URL"}
    dry = subprocess.run(
        ["make", "-n", target, "PORT=8123"], cwd=root, capture_output=True, text=True, check=False, env=env
    ).stdout
    starts = [line for line in dry.splitlines() if "manage.py run_task_worker" in line or "runserver" in line]
    assert len(starts) >= 2
    assert all('SITE_URL="http://127.0.0.1:8123"' in line for line in starts), starts
