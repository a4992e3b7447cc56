"""Site-level answers that belong to no app."""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe


@cache
def _favicon_bytes() -> bytes:
    return (settings.BASE_DIR / "static" / "favicon.ico").read_bytes()


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``: browsers ask for it on every page whatever the page links, so answer it once and
    let them keep it for a week instead of logging a 404 per load."""
    response = HttpResponse(_favicon_bytes(), content_type="image/x-icon")
    response["Cache-Control"] = "public, max-age=604800"
    return response
