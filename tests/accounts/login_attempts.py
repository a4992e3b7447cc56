"""What a child process of tests/accounts/test_throttle_processes.py runs: Django set up from the environment
it is given, then wrong-password attempts at once, from threads. Importable before Django is set up (the
child imports it by name), so the app is imported inside the function."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def attempt_logins(env: dict[str, str], username: str, attempts: int, start: Any, results: Any) -> None:
    os.environ.update(env)
    import django

    django.setup()
    from django.db import connection

    from accounts import throttle

    def attempt(_index: int) -> str:
        try:
            return "checked" if throttle.authenticate_throttled(None, username, "mal") is None else "in"
        except throttle.LoginThrottled:
            return "refused"
        finally:
            connection.close()

    start.wait()  # every process starts its attempts together
    with ThreadPoolExecutor(max_workers=attempts) as pool:
        results.put(list(pool.map(attempt, range(attempts))))
