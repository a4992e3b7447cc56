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
    "import json, django; django.setup(); from django.conf import settings as s; "
    "d = s.DATABASES['default']; "
    "print(json.dumps({'pool': d.get('OPTIONS', {}).get('pool'), 'age': d['CONN_MAX_AGE'], "
    "'prefix': s.CHANNEL_LAYERS['default'].get('CONFIG', {}).get('prefix')}))"
)


def _settings(**env: str) -> dict[str, object]:
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "CONN_MAX_AGE"}}
    result = subprocess.run(
        [sys.executable, "-c", CODE],
        cwd=ROOT,
        env={**clean, **env, "DJANGO_SETTINGS_MODULE": "tintero.settings"},
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
