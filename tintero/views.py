"""Site-level answers that belong to no app."""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.views.decorators.http import require_safe
from django.views.static import serve


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


# What media may be shown inline: the types the portrait pipeline writes (and older uploads were). Anything
# else under MEDIA_ROOT is downloaded, never rendered in the site's origin.
INLINE_MEDIA_TYPES = frozenset({"image/webp", "image/png", "image/jpeg", "image/gif"})
# The header set media carry wherever they are served (docs: README, "Production", the nginx snippet).
MEDIA_CSP = "default-src 'none'; sandbox"


def media_headers(response: HttpResponseBase) -> HttpResponseBase:
    """A stored file's own restrictive headers: no sniffing, no script, no page of the site's origin."""
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = MEDIA_CSP
    response["Cross-Origin-Resource-Policy"] = "same-origin"
    content_type = response.get("Content-Type", "").split(";")[0].strip().lower()
    if content_type not in INLINE_MEDIA_TYPES:
        response["Content-Type"] = "application/octet-stream"
        response["Content-Disposition"] = "attachment"
    return response


@require_safe
def media(request: HttpRequest, path: str) -> HttpResponseBase:
    """``MEDIA_URL`` served by the app (SERVE_MEDIA): Django's static serve, with :func:`media_headers`."""
    return media_headers(serve(request, path, document_root=str(settings.MEDIA_ROOT)))
