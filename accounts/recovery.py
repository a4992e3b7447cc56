"""Password recovery: the reset request (one answer whether the address has an account or not), counted per
typed address and per client address so it cannot be used to flood a mailbox or probe addresses.

Every request counts (accounts.request_counts), in windows of ``PASSWORD_RESET_THROTTLE_WINDOW`` seconds,
whether an account has the address or not.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest

from accounts import mail, tasks
from accounts.models import User
from accounts.request_counts import count_or_refuse, hashed
from accounts.services import normalized_address
from accounts.throttle import client_address


def account_for_reset(address: str) -> User | None:
    """The live account whose confirmed address this is (one at most: confirmed addresses are unique)."""
    return (
        User.objects.filter(email__iexact=address, email_verified_at__isnull=False, is_active=True)
        .exclude(email="")
        .first()
    )


def request_password_reset(request: HttpRequest | None, address: str) -> None:
    """Mail a reset link to ``address`` if it is an account's confirmed address; nothing otherwise, and the
    caller answers the same either way. Raises TooManyRequests past the limits."""
    address = normalized_address(address)
    count_or_refuse(
        {
            f"reset:email:{hashed(address)}": settings.PASSWORD_RESET_THROTTLE_EMAIL,
            f"reset:addr:{client_address(request)}": settings.PASSWORD_RESET_THROTTLE_ADDRESS,
        },
        settings.PASSWORD_RESET_THROTTLE_WINDOW,
    )
    user = account_for_reset(address) if address else None
    if user is not None:
        with transaction.atomic():
            tasks.send_after_commit(mail.PASSWORD_RESET, user.pk)
