"""The header's unread count, on every page of a logged-in user (one COUNT query)."""

from __future__ import annotations

from django.http import HttpRequest

from notifications import selectors


def unread_notifications(request: HttpRequest) -> dict[str, int]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"unread_notifications": selectors.unread_count(user)}
