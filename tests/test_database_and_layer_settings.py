"""Production database and channel-layer settings come from the environment (issue 12): PostgreSQL uses
Django's connection pool unless told not to (then CONN_MAX_AGE applies), and the Redis channel names carry
a per-deployment prefix so two deployments sharing one Redis never hear each other."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = (
    # Only the settings module is read (no django.setup(): loading every app costs seconds per process).
    "import json; from django.conf import settings as s; "
    "d = s.DATABASES['default']; "
    "print(json.dumps({'pool': d.get('OPTIONS', {}).get('pool'), 'age': d.get('CONN_MAX_AGE', 0), "
    "'prefix': s.CHANNEL_LAYERS['default'].get('CONFIG', {}).get('prefix')}))"
)


def _settings(**env: str) -> dict[str, object]:
    # The defaults, not what the test process runs with (tests/settings.py gives it its own channel prefix).
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "CONN_MAX_AGE", "CHANNEL_LAYER_PREFIX"}
    }
    result = subprocess.run(
        [sys.executable, "-c", CODE],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "tintero.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_postgresql_pools_connections_from_the_environment() -> None:
    url = "postgresql://tintero@db.example:5432/tintero"
    pooled = _settings(DATABASE_URL=url, DATABASE_POOL_MAX_SIZE="7")
    assert pooled["age"] == 0 and pooled["pool"] == {"min_size": 2, "max_size": 7, "timeout": 10}
    unpooled = _settings(DATABASE_URL=url, DATABASE_POOL="false", CONN_MAX_AGE="60")
    assert unpooled["pool"] is None and unpooled["age"] == 60


def test_channel_layer_prefix_comes_from_the_environment() -> None:
    redis = "redis://127.0.0.1:6379/9"
    assert _settings(REDIS_URL=redis)["prefix"] == "tintero"
    assert _settings(REDIS_URL=redis, CHANNEL_LAYER_PREFIX="staging")["prefix"] == "staging"


def test_each_test_process_has_its_own_channel_prefix_and_its_servers_share_it() -> None:
    # Parallel workers (and parallel runs) share one Redis, where channel names are global: a campaign id
    # repeats across their test databases, so one worker would hear another's campaign groups.
    redis = "redis://127.0.0.1:6379/9"
    first = _settings(REDIS_URL=redis, DJANGO_SETTINGS_MODULE="tests.settings")["prefix"]
    second = _settings(REDIS_URL=redis, DJANGO_SETTINGS_MODULE="tests.settings")["prefix"]
    assert len({first, second, "tintero"}) == 3
    # A server a test starts inherits the environment, and with it the test process's prefix.
    inherited = _settings(
        REDIS_URL=redis, DJANGO_SETTINGS_MODULE="tests.settings", CHANNEL_LAYER_PREFIX="tintero-test-1"
    )
    assert inherited["prefix"] == "tintero-test-1"
