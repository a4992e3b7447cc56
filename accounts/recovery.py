"""Password recovery: the reset request (one answer whether the address has an account or not), counted per
typed address and per client address so it cannot be used to flood a mailbox or probe addresses.

The counts live in the ``throttle`` cache (Redis when ``REDIS_URL`` is set) in fixed windows of
``PASSWORD_RESET_THROTTLE_WINDOW`` seconds: every request counts, whether an account has the address or not.
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.core.cache import caches
from django.db import transaction
from django.http import HttpRequest
from django.utils.translation import ngettext

from accounts import mail, tasks
from accounts.models import User
from accounts.services import normalized_address
from accounts.throttle import CACHE_ALIAS, client_address


class ResetThrottled(Exception):
    """Too many reset requests for this address or from this client. ``retry_after``: seconds to wait."""

    def __init__(self, retry_after: int) -> None:
        self.retry_after = max(1, retry_after)
        minutes = (self.retry_after + 59) // 60
        super().__init__(
            ngettext(
                "Demasiadas peticiones de contraseña nueva. Vuelve a intentarlo dentro de %(n)d minuto.",
                "Demasiadas peticiones de contraseña nueva. Vuelve a intentarlo dentro de %(n)d minutos.",
                minutes,
            )
            % {"n": minutes}
        )


def _count_request(address: str, client: str) -> None:
    """Count this request, or raise ResetThrottled (uncounted) when either count is at its limit."""
    size = settings.PASSWORD_RESET_THROTTLE_WINDOW
    now = time.time()
    window = int(now // size)
    retry_after = int((window + 1) * size - now)
    hashed = hashlib.sha256(address.casefold().encode()).hexdigest()[:32]  # typed text is no cache key
    keys = {
        f"reset:email:{window}:{hashed}": settings.PASSWORD_RESET_THROTTLE_EMAIL,
        f"reset:addr:{window}:{client}": settings.PASSWORD_RESET_THROTTLE_ADDRESS,
    }
    cache = caches[CACHE_ALIAS]
    counts = cache.get_many(list(keys))
    if any(int(counts.get(key) or 0) >= limit for key, limit in keys.items()):
        raise ResetThrottled(retry_after)
    for key in keys:
        if not cache.add(key, 1, retry_after + 1):
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.add(key, 1, retry_after + 1)


def account_for_reset(address: str) -> User | None:
    """The live account whose confirmed address this is (one at most: confirmed addresses are unique)."""
    return (
        User.objects.filter(email__iexact=address, email_verified_at__isnull=False, is_active=True)
        .exclude(email="")
        .first()
    )


def request_password_reset(request: HttpRequest | None, address: str) -> None:
    """Mail a reset link to ``address`` if it is an account's confirmed address; nothing otherwise, and the
    caller answers the same either way. Raises ResetThrottled past the limits."""
    address = normalized_address(address)
    _count_request(address, client_address(request))
    user = account_for_reset(address) if address else None
    if user is not None:
        with transaction.atomic():
            tasks.send_after_commit(mail.PASSWORD_RESET, user.pk)
