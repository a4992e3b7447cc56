"""Limits on the writes a person can repeat: posts, API writes, sign-ups per address, invitations, join requests
and nudges, each at most N per window of seconds (settings ``LIMIT_<NAME>`` and ``LIMIT_<NAME>_WINDOW``, from the
environment; 0 turns one off), plus how many people one post may mention.

They count on accounts.throttle's atomic counter (Redis when it is configured, so every process shares the
counts; the database otherwise), and are checked in the services that write, so pages, the API and sockets
share them. Past a limit the service raises :class:`WriteLimited`: pages answer 429 with its message
(tintero.request_limits), the API a JSON 429 ``throttled`` with ``Retry-After`` (tintero.api.errors).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.throttle import RateLimit


def wait_words(seconds: int) -> str:
    """How long to wait, in the largest unit that is still precise enough to act on."""
    if seconds < 120:
        return ngettext("%(n)d segundo", "%(n)d segundos", seconds) % {"n": seconds}
    minutes = (seconds + 59) // 60
    if minutes < 120:
        return ngettext("%(n)d minuto", "%(n)d minutos", minutes) % {"n": minutes}
    hours = (minutes + 59) // 60
    return ngettext("%(n)d hora", "%(n)d horas", hours) % {"n": hours}


class WriteLimited(Exception):
    """A write past its limit: nothing was written. ``retry_after``: seconds until the window ends."""

    http_status = 429
    code = "throttled"

    def __init__(self, retry_after: int) -> None:
        self.retry_after = max(1, retry_after)
        super().__init__(
            _("Demasiadas peticiones seguidas. Vuelve a intentarlo dentro de %(wait)s.")
            % {"wait": wait_words(self.retry_after)}
        )


# Writes the site scripts itself (the demo's campaigns) are nobody's repeated writes: they count against no one.
_paused: ContextVar[bool] = ContextVar("write_limits_paused", default=False)


@contextmanager
def limits_paused() -> Iterator[None]:
    """Within this block no write limit counts or refuses (for the site's own scripted writes, never a request)."""
    token = _paused.set(True)
    try:
        yield
    finally:
        _paused.reset(token)


@dataclass(frozen=True)
class WriteLimit:
    """One repeatable write, limited by the settings ``LIMIT_<setting>`` (how many) and
    ``LIMIT_<setting>_WINDOW`` (seconds), read at each check so the environment and tests can change them."""

    name: str
    setting: str

    def rate(self) -> RateLimit:
        limit = int(getattr(settings, f"LIMIT_{self.setting}"))
        window = int(getattr(settings, f"LIMIT_{self.setting}_WINDOW"))
        return RateLimit(f"write:{self.name}", limit, max(1, window))

    def count(self, subject: str | int, *, now: float | None = None) -> None:
        """Count one write by ``subject`` (an account id, an address); raise WriteLimited past the limit.
        The decision is on the count the increment returned, so concurrent writes cannot all pass."""
        rate = self.rate()
        if rate.limit <= 0 or _paused.get():
            return
        hit = rate.hit(str(subject), now=now)
        if not hit.allowed:
            raise WriteLimited(hit.retry_after)


POST_LIMIT = WriteLimit("post", "POSTS")
API_WRITE_LIMIT = WriteLimit("api", "API_WRITES")
SIGNUP_LIMIT = WriteLimit("signup", "SIGNUPS_PER_ADDRESS")
INVITATION_LIMIT = WriteLimit("invitation", "INVITATIONS")
JOIN_REQUEST_LIMIT = WriteLimit("join", "JOIN_REQUESTS")
NUDGE_LIMIT = WriteLimit("nudge", "NUDGES")
# Site-wide, per client address, every request (tintero.request_limits).
REQUESTS_PER_MINUTE = WriteLimit("requests", "REQUESTS_PER_MINUTE")
REQUESTS_BURST = WriteLimit("burst", "REQUESTS_BURST")


def mentions_allowed() -> int:
    """How many people one post may mention (0: no limit)."""
    return int(settings.LIMIT_MENTIONS_PER_POST)
