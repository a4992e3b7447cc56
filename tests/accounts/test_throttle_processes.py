"""The log-in throttle counts atomically across processes (issue 26): two processes try wrong passwords for
one account at once, counting in Redis or in PostgreSQL; no more attempts than the limit reach the password
check. Needs the real services (``services`` marker); skipped with the reason when their URLs are not set."""

from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection

from accounts.throttle import count_hit, forget_hits
from tests.accounts.login_attempts import attempt_logins
from tests.personas import make_user

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

LIMIT = 4
PROCESSES = 2
ATTEMPTS_EACH = 5


def _database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("needs DATABASE_URL (PostgreSQL): the processes must share the test database of this process")
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgresql://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.mark.parametrize("counter", ["redis", "database"])
def test_two_processes_at_once_never_pass_the_account_limit(counter: str) -> None:
    redis_url = os.environ.get("REDIS_URL", "")
    if counter == "redis" and not redis_url:
        pytest.skip("REDIS_URL is not set: this case counts in a Redis shared by two processes")
    env = {
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": _database_url(),
        "REDIS_URL": redis_url if counter == "redis" else "",
        "LOGIN_THROTTLE_ACCOUNT": str(LIMIT),
        "LOGIN_THROTTLE_ADDRESS": "1000",
        "LOG_LEVEL": "ERROR",
    }
    username = f"proc-{counter}-{os.getpid()}"
    make_user(username)
    context = multiprocessing.get_context("spawn")  # fresh interpreters: no connection shared by a fork
    start, results = context.Barrier(PROCESSES, timeout=120), context.Queue()
    processes = [
        context.Process(target=attempt_logins, args=(env, username, ATTEMPTS_EACH, start, results))
        for _ in range(PROCESSES)
    ]
    for process in processes:
        process.start()
    outcomes = [outcome for _ in processes for outcome in results.get(timeout=180)]
    for process in processes:
        process.join(timeout=30)
    assert sorted(outcomes) == ["checked"] * LIMIT + ["refused"] * (PROCESSES * ATTEMPTS_EACH - LIMIT)


def test_count_hit_in_redis_gives_each_concurrent_hit_its_own_count(settings: Any) -> None:
    if not os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL is not set: this case counts in Redis")
    settings.THROTTLE_REDIS_URL = os.environ["REDIS_URL"]
    key = f"test:redis-threads:{os.getpid()}:{time.time()}"
    with ThreadPoolExecutor(max_workers=8) as pool:
        counts = list(pool.map(lambda _index: count_hit(key, 60), range(16)))
    assert sorted(counts) == list(range(1, 17))
    forget_hits(key, 60)
    assert count_hit(key, 60) == 1
