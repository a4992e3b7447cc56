"""The header's unread count, for pages of a logged-in user: one COUNT query per request, only when a
template shows it (pages render fragments with their own contexts: the answer is kept on the request)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from notifications import selectors


def unread_notifications(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    def count() -> int:
        cached = getattr(request, "_unread_notifications", None)
        if cached is None:
            cached = selectors.unread_count(user)
            request._unread_notifications = cached  # type: ignore[attr-defined]
        return cached

    return {"unread_notifications": SimpleLazyObject(count)}
