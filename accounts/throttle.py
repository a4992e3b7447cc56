"""Log-in throttling, for the log-in page and ``POST /api/auth/token/`` alike (both call
:func:`authenticate_throttled`).

Failed attempts are counted per account (the username as typed, case-folded) and per client address in
fixed windows of ``LOGIN_THROTTLE_WINDOW`` seconds, in the ``throttle`` cache (Redis when ``REDIS_URL`` is
set, so every worker shares the counts). Once an account or an address has ``LOGIN_THROTTLE_ACCOUNT`` /
``LOGIN_THROTTLE_ADDRESS`` failures in the current window, every attempt for it is refused until the
window ends, the right password included, without checking the password at all. A successful log-in
clears its account's count, not its address's.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import authenticate
from django.core.cache import caches
from django.http import HttpRequest
from django.utils.translation import ngettext

from accounts.models import User

CACHE_ALIAS = "throttle"


class LoginThrottled(Exception):
    """Too many failed log-ins for this account or address. ``retry_after``: seconds until the window ends."""

    def __init__(self, retry_after: int) -> None:
        self.retry_after = max(1, retry_after)
        minutes = (self.retry_after + 59) // 60
        super().__init__(
            ngettext(
                "Demasiados intentos fallidos. Vuelve a intentarlo dentro de %(n)d minuto.",
                "Demasiados intentos fallidos. Vuelve a intentarlo dentro de %(n)d minutos.",
                minutes,
            )
            % {"n": minutes}
        )


@dataclass(frozen=True)
class _Window:
    index: int
    ends_at: float


def _window(now: float) -> _Window:
    size = settings.LOGIN_THROTTLE_WINDOW
    index = int(now // size)
    return _Window(index, (index + 1) * size)


def client_address(request: HttpRequest | None) -> str:
    """The client's address: behind a proxy (``BEHIND_PROXY``), the last hop the proxy appended to
    X-Forwarded-For (earlier hops are whatever the client claimed); otherwise the socket's peer."""
    if request is None:
        return "unknown"
    if settings.SECURE_PROXY_SSL_HEADER:
        forwarded = str(request.META.get("HTTP_X_FORWARDED_FOR", ""))
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            return hops[-1]
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def _keys(username: str, address: str, window: _Window) -> tuple[str, str]:
    # Hashed: usernames typed at a log-in form are arbitrary text, cache keys are not.
    account = hashlib.sha256(username.casefold().encode()).hexdigest()[:32]
    return f"login:acct:{window.index}:{account}", f"login:addr:{window.index}:{address}"


def _count(key: str) -> int:
    return int(caches[CACHE_ALIAS].get(key) or 0)


def _record_failure(key: str, window: _Window, now: float) -> None:
    cache = caches[CACHE_ALIAS]
    timeout = int(window.ends_at - now) + 1
    if not cache.add(key, 1, timeout):
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout)


def authenticate_throttled(request: HttpRequest | None, username: str, password: str) -> User | None:
    """``authenticate`` unless this account or address is throttled (then LoginThrottled, the password
    unchecked). Counts a failure when the credentials are wrong."""
    now = time.time()
    window = _window(now)
    account_key, address_key = _keys(username or "", client_address(request), window)
    if _count(account_key) >= settings.LOGIN_THROTTLE_ACCOUNT or _count(address_key) >= settings.LOGIN_THROTTLE_ADDRESS:
        raise LoginThrottled(int(window.ends_at - now))
    user = authenticate(request, username=username, password=password)
    if user is None:
        _record_failure(account_key, window, now)
        _record_failure(address_key, window, now)
        return None
    caches[CACHE_ALIAS].delete(account_key)
    return user
