"""One error shape for everything under /api/, whatever produced the error.

DRF views already answer ``{"error": {"code", "message", "fields"}}`` (tintero.api.errors). This middleware
covers what never reaches a DRF view or escapes it: an unknown path (Django's 404 page), a body over
DATA_UPLOAD_MAX_MEMORY_SIZE (413, refused before it is read; the archive import allows ARCHIVE_IMPORT_MAX_BYTES
and a multipart envelope), Django's own 400/403/500 pages, and any error answered with an empty body (an empty
multipart body once got a bare 400).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _

from campaigns.error_codes import BY_STATUS

API_PREFIX = "/api/"
# The one endpoint whose body may be larger: a campaign archive, streamed by the multipart parser to a file.
ARCHIVE_IMPORT_PATH = "/api/campaigns/import/"
MULTIPART_ENVELOPE = 64 * 1024

_CODES = BY_STATUS


def _limit(path: str) -> int:
    if path == ARCHIVE_IMPORT_PATH:
        return int(settings.ARCHIVE_IMPORT_MAX_BYTES) + MULTIPART_ENVELOPE
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)


def _messages(path: str = "") -> dict[int, str]:
    return {
        400: _("Petición mal formada."),
        403: _("No tienes permiso para hacer esto."),
        404: _("No encontrado."),
        405: _("Método no permitido."),
        413: _("La petición es demasiado grande: como mucho %(max)d bytes.") % {"max": _limit(path)},
        500: _("Error del servidor. Nada se ha guardado a medias: vuelve a intentarlo."),
    }


def json_error(status: int, message: str | None = None, code: str | None = None, path: str = "") -> JsonResponse:
    text = message or _messages(path).get(status) or _("Error.")
    return JsonResponse({"error": {"code": code or _CODES.get(status, "error"), "message": text}}, status=status)


def _too_large(request: HttpRequest) -> bool:
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return False
    return length > _limit(request.path)


def _has_json_body(response: HttpResponse) -> bool:
    # An error answered JSON-typed but empty (a bare 400 from a parser or a view) still gets the message.
    if not response.get("Content-Type", "").startswith("application/json"):
        return False
    return bool(response.streaming or response.content.strip())


class ApiErrorMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        if _too_large(request):
            return json_error(413, path=request.path)
        response = self.get_response(request)
        if response.status_code >= 400 and not _has_json_body(response):
            replaced = json_error(response.status_code)
            for header in ("Allow", "Retry-After", "WWW-Authenticate"):
                if header in response:
                    replaced[header] = response[header]
            return replaced
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not request.path.startswith(API_PREFIX):
            return None
        if isinstance(exception, RequestDataTooBig):
            return json_error(413, path=request.path)
        if isinstance(exception, SuspiciousOperation):
            return json_error(400)
        return None


__all__ = ["ApiErrorMiddleware", "json_error"]
