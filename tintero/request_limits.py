"""Requests per client address for the whole site, and the page answer to a write past its limit.

Every request but static files and health checks counts against its address in two fixed windows (by
default 200 per minute and 50 per 10 seconds, as Discourse ships). The counts live in Redis when it is
configured; without Redis only when ``LIMIT_REQUESTS_IN_DATABASE`` is on, since a database write on every
page read would queue SQLite's readers behind its one writer. Past a limit: 429 with ``Retry-After``, JSON
under /api/, a page elsewhere.

A service's :class:`~accounts.write_limits.WriteLimited` that a page view does not turn into a form error
itself reaches :meth:`RequestLimits.process_exception`: the same 429 with its message.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation

from accounts.throttle import client_address
from accounts.write_limits import REQUESTS_BURST, REQUESTS_PER_MINUTE, WriteLimited
from tintero.api.middleware import API_PREFIX, json_error

# Load balancers' probes, not people: never counted.
HEALTH_PATHS = ("/healthz", "/readyz")


def _exempt(path: str) -> bool:
    static = "/" + str(settings.STATIC_URL).lstrip("/")
    return path.startswith(static) or path.rstrip("/") in HEALTH_PATHS or path == "/favicon.ico"


def _counted() -> bool:
    return bool(settings.THROTTLE_REDIS_URL) or bool(settings.LIMIT_REQUESTS_IN_DATABASE)


def limited_response(request: HttpRequest, refused: WriteLimited) -> HttpResponse:
    """429 with the refusal's message and ``Retry-After``: JSON under /api/, the error page elsewhere."""
    if request.path.startswith(API_PREFIX):
        response: HttpResponse = json_error(429, str(refused), refused.code)
    else:
        response = render(request, "429.html", {"exception": str(refused)}, status=429)
    response["Retry-After"] = str(refused.retry_after)
    return response


class RequestLimits:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if _counted() and not _exempt(request.path):
            address = client_address(request)
            waits = []
            for limit in (REQUESTS_BURST, REQUESTS_PER_MINUTE):  # a refused request counts in both windows
                try:
                    limit.count(address)
                except WriteLimited as refused:
                    waits.append(refused.retry_after)
            if waits:
                # Before LocaleMiddleware: the answer is in the language the request asks for.
                with translation.override(translation.get_language_from_request(request)):
                    return limited_response(request, WriteLimited(max(waits)))
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, WriteLimited):
            return limited_response(request, exception)
        return None
