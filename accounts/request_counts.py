"""Counts of requests that send mail to an address (password reset links, address confirmation links), so
none of them can flood a mailbox or probe addresses: per key, in fixed windows, in the ``throttle`` cache
(Redis when ``REDIS_URL`` is set, so every worker shares them).

A stop-gap beside accounts.throttle: these counts should move onto its shared atomic counter once it has one.
"""

from __future__ import annotations

import hashlib
import time

from django.core.cache import caches
from django.utils.translation import ngettext

from accounts.throttle import CACHE_ALIAS


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
    or raise TooManyRequests, counting nothing, when any key is at its limit."""
    now = time.time()
    index = int(now // window)
    retry_after = int((index + 1) * window - now)
    keys = {f"{key}:{index}": limit for key, limit in limits.items()}
    cache = caches[CACHE_ALIAS]
    counts = cache.get_many(list(keys))
    if any(int(counts.get(key) or 0) >= limit for key, limit in keys.items()):
        raise TooManyRequests(retry_after)
    for key in keys:
        if not cache.add(key, 1, retry_after + 1):
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.add(key, 1, retry_after + 1)
