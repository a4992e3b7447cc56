"""The per-account limit on API writes (accounts.write_limits.API_WRITE_LIMIT), for every API view.

Reads are not counted here (the site-wide per-address limit covers them); a write counts against its account,
or against its client address when anonymous. Past the limit the view answers the JSON 429 ``throttled`` with
``Retry-After`` (tintero.api.errors).
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from accounts.throttle import client_address
from accounts.write_limits import API_WRITE_LIMIT

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class ApiWriteThrottle(BaseThrottle):
    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        user = request.user
        subject = f"user:{user.pk}" if user is not None and user.is_authenticated else client_address(request)
        API_WRITE_LIMIT.count(subject)  # raises WriteLimited past the limit: its message and Retry-After
        return True
