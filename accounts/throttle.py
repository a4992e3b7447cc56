"""Rate limits that count atomically, and the log-in throttle built on them.

The counter (:func:`count_hit`) adds a hit and returns the new count in one atomic step: ``INCRBY`` plus
``EXPIRE`` in one Lua script on Redis when ``THROTTLE_REDIS_URL`` (by default ``REDIS_URL``) is set, so every
process shares the counts; one ``INSERT ... ON CONFLICT DO UPDATE ... RETURNING`` on the database otherwise.
A caller decides on the count the increment returned, never on a count read before, so concurrent attempts
cannot all pass a limit. Counts live in fixed windows: the key carries the window's index, so a new window
starts at zero.

Log-in (the log-in page and ``POST /api/auth/token/``, both through :func:`authenticate_throttled`) follows
OWASP's device cookies: a successful log-in sets a signed cookie naming the user and a random nonce. An
attempt that presents a valid device cookie for the username typed is counted against that device only
(``LOGIN_THROTTLE_DEVICE`` per window); any other attempt is counted against the account
(``LOGIN_THROTTLE_ACCOUNT``) and the client address (``LOGIN_THROTTLE_ADDRESS``). So a stranger who locks an
account out does not lock out its owner on a device they logged in from before. Each attempt is counted
before the password is checked; past a limit the password is not checked at all. A success clears the
account's (or the device's) count.
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import logging
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime

import redis
from django.conf import settings
from django.contrib.auth import authenticate
from django.core import signing
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.utils.translation import ngettext

from accounts.models import ThrottleCount, User

logger = logging.getLogger(__name__)

DEVICE_COOKIE = "tintero_device"
DEVICE_SALT = "accounts.throttle.device"

# INCRBY, then an expiry only for a key that has none (the window's first hit), in one atomic step.
_REDIS_HIT = """
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return count
"""


@dataclass(frozen=True)
class Window:
    """A fixed window of ``size`` seconds: its index since the epoch and when it ends."""

    size: int
    index: int
    ends_at: float

    @classmethod
    def at(cls, size: int, now: float) -> Window:
        index = int(now // size)
        return cls(size, index, (index + 1) * size)

    def seconds_left(self, now: float) -> int:
        return max(1, int(self.ends_at - now) + 1)


def _window_key(key: str, window: Window) -> str:
    return f"rl:{key}:{window.size}:{window.index}"


@functools.cache
def _redis_client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=5)


def _redis_key(key: str) -> str:
    # Prefixed like the channel layer's names, so deployments sharing one Redis keep apart.
    return f"{settings.CHANNEL_LAYER_PREFIX}:{key}"


def _count_in_redis(key: str, amount: int, ttl: int) -> int:
    client = _redis_client(settings.THROTTLE_REDIS_URL)
    return int(client.eval(_REDIS_HIT, 1, _redis_key(key), amount, ttl))


def _count_in_database(key: str, amount: int, expires_at: float) -> int:
    table = connection.ops.quote_name(ThrottleCount._meta.db_table)
    key_column, count = connection.ops.quote_name("key"), connection.ops.quote_name("count")
    expires = connection.ops.adapt_datetimefield_value(datetime.fromtimestamp(expires_at, tz=UTC))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({key_column}, {count}, expires_at) VALUES (%s, %s, %s) "
            f"ON CONFLICT ({key_column}) DO UPDATE SET {count} = {table}.{count} + excluded.{count} "
            f"RETURNING {count}",
            [key, amount, expires],
        )
        new_count = int(cursor.fetchone()[0])
    if new_count == amount:  # the first hit of a new window: sweep the windows that are over
        ThrottleCount.objects.filter(expires_at__lt=datetime.fromtimestamp(time.time(), tz=UTC)).delete()
    return new_count


def count_hit(key: str, window: int, *, amount: int = 1, now: float | None = None) -> int:
    """Add ``amount`` hits to ``key`` in the current fixed window of ``window`` seconds and return the new
    count, atomically (in Redis when ``THROTTLE_REDIS_URL`` is set, else in the database)."""
    now = time.time() if now is None else now
    current = Window.at(window, now)
    stored_key = _window_key(key, current)
    if settings.THROTTLE_REDIS_URL:
        try:
            return _count_in_redis(stored_key, amount, current.seconds_left(now))
        except redis.RedisError as error:  # Redis down: count in the database rather than not at all
            logger.warning("rate limit counter: Redis failed (%s), counting in the database", error)
    return _count_in_database(stored_key, amount, current.ends_at)


def forget_hits(key: str, window: int, *, now: float | None = None) -> None:
    """Clear ``key``'s count in the current window."""
    now = time.time() if now is None else now
    stored_key = _window_key(key, Window.at(window, now))
    if settings.THROTTLE_REDIS_URL:
        try:
            _redis_client(settings.THROTTLE_REDIS_URL).delete(_redis_key(stored_key))
        except redis.RedisError as error:
            logger.warning("rate limit counter: Redis failed (%s)", error)
    ThrottleCount.objects.filter(key=stored_key).delete()


@dataclass(frozen=True)
class Hit:
    """One counted hit: the count after it, whether it is within the limit, and when the window ends."""

    count: int
    allowed: bool
    retry_after: int


@dataclass(frozen=True)
class RateLimit:
    """At most ``limit`` hits per ``window`` seconds for each subject of ``name`` (an account, an address)."""

    name: str
    limit: int
    window: int

    def _key(self, subject: str) -> str:
        # Hashed: subjects (usernames as typed, addresses) are arbitrary text, counter keys are not.
        return f"{self.name}:{hashlib.sha256(subject.encode()).hexdigest()[:32]}"

    def hit(self, subject: str, *, now: float | None = None) -> Hit:
        now = time.time() if now is None else now
        count = count_hit(self._key(subject), self.window, now=now)
        return Hit(count, count <= self.limit, Window.at(self.window, now).seconds_left(now))

    def forget(self, subject: str) -> None:
        forget_hits(self._key(subject), self.window)


class LoginThrottled(Exception):
    """Too many log-ins for this account, device or address. ``retry_after``: seconds until the window ends."""

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


def _account_limit() -> RateLimit:
    return RateLimit("login:acct", settings.LOGIN_THROTTLE_ACCOUNT, settings.LOGIN_THROTTLE_WINDOW)


def _address_limit() -> RateLimit:
    return RateLimit("login:addr", settings.LOGIN_THROTTLE_ADDRESS, settings.LOGIN_THROTTLE_WINDOW)


def _device_limit() -> RateLimit:
    return RateLimit("login:device", settings.LOGIN_THROTTLE_DEVICE, settings.LOGIN_THROTTLE_WINDOW)


@functools.cache
def _networks(entries: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in entries)


def _is_trusted_proxy(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in _networks(tuple(settings.TRUSTED_PROXIES)))


def client_address(request: HttpRequest | None) -> str:
    """The client's address. X-Forwarded-For is believed only when the request comes from one of
    ``TRUSTED_PROXIES``: then the nearest hop that is not a trusted proxy (hops further left are whatever the
    client claimed). Otherwise the socket's peer, whatever the headers say."""
    if request is None:
        return "unknown"
    peer = str(request.META.get("REMOTE_ADDR") or "unknown")
    if not _is_trusted_proxy(peer):
        return peer
    forwarded = str(request.META.get("HTTP_X_FORWARDED_FOR", ""))
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _is_trusted_proxy(hop):
            return hop
    return hops[0] if hops else peer


def _device_nonce(request: HttpRequest | None, username: str) -> str | None:
    """The nonce of the request's device cookie when it is valid and names this username; else None."""
    if request is None:
        return None
    raw = request.COOKIES.get(DEVICE_COOKIE)
    if not raw:
        return None
    try:
        data = signing.loads(raw, salt=DEVICE_SALT, max_age=settings.LOGIN_DEVICE_COOKIE_DAYS * 86_400)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), str) or not isinstance(data.get("n"), str):
        return None
    return data["n"] if data["u"] == username.casefold() else None


def set_device_cookie(response: HttpResponse, user: User) -> None:
    """After a successful log-in: a new device cookie for this user (a fresh nonce, so a device locked out
    before starts clean)."""
    value = signing.dumps({"u": user.get_username().casefold(), "n": secrets.token_urlsafe(16)}, salt=DEVICE_SALT)
    response.set_cookie(
        DEVICE_COOKIE,
        value,
        max_age=settings.LOGIN_DEVICE_COOKIE_DAYS * 86_400,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def authenticate_throttled(request: HttpRequest | None, username: str, password: str) -> User | None:
    """``authenticate`` unless this attempt is over a limit (then LoginThrottled, the password unchecked).
    The attempt is counted first, and the limit checked on the count the increment returned."""
    username = username or ""
    now = time.time()
    nonce = _device_nonce(request, username)
    if nonce is not None:
        hits = [_device_limit().hit(nonce, now=now)]
    else:
        hits = [
            _account_limit().hit(username.casefold(), now=now),
            _address_limit().hit(client_address(request), now=now),
        ]
    refused = [hit.retry_after for hit in hits if not hit.allowed]
    if refused:
        raise LoginThrottled(max(refused))
    user = authenticate(request, username=username, password=password)
    if user is None:
        return None
    if nonce is not None:
        _device_limit().forget(nonce)
    else:
        _account_limit().forget(username.casefold())
    return user
