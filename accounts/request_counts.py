"""Counts of requests that send mail to an address (password reset links, address confirmation links), so
none of them can flood a mailbox or probe addresses: per key, in fixed windows, on accounts.throttle's
atomic counter (Redis when it is configured, else the database), so every process shares them.
"""

from __future__ import annotations

import hashlib
import time

from django.utils.translation import ngettext

from accounts.throttle import Window, count_hit


class TooManyRequests(Exception):
    """A limit is reached. ``retry_after``: seconds until its window ends."""

    def __init__(self, retry_after: int) -> None:
        self.retry_after = max(1, retry_after)
        minutes = (self.retry_after + 59) // 60
        super().__init__(
            ngettext(
                "Demasiadas peticiones de correo. Vuelve a intentarlo dentro de %(n)d minuto.",
                "Demasiadas peticiones de correo. Vuelve a intentarlo dentro de %(n)d minutos.",
                minutes,
            )
            % {"n": minutes}
        )


def hashed(text: str) -> str:
    """Typed text (an address) as a cache key part."""
    return hashlib.sha256(text.casefold().encode()).hexdigest()[:32]


def count_or_refuse(limits: dict[str, int], window: int) -> None:
    """Count one request under each key of ``limits`` (key -> most allowed per window of ``window`` seconds),
    and raise TooManyRequests when any key is past its limit. Each count is an atomic increment that returns
    the new value, so concurrent requests in several processes cannot all slip under a limit."""
    now = time.time()
    over = [key for key, limit in limits.items() if count_hit(f"mail:{key}", window, now=now) > limit]
    if over:
        raise TooManyRequests(Window.at(window, now).seconds_left(now))
