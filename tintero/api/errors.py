"""Every API error is JSON with a clear message: ``{"error": {"code", "message", "fields"}}``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django.utils.translation import gettext as _
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from campaigns.scene_locks import SceneBusy
from systems.errors import RulesError


def _flatten(detail: Any) -> Any:
    if isinstance(detail, dict):
        return {key: _flatten(value) for key, value in detail.items()}
    if isinstance(detail, list):
        return [_flatten(item) for item in detail]
    return str(detail)


def error_response(code: str, message: str, http_status: int, fields: dict[str, Any] | None = None) -> Response:
    body: dict[str, Any] = {"error": {"code": code, "message": message}}
    if fields:
        body["error"]["fields"] = fields
    return Response(body, status=http_status)


def _service_refusal(exc: Exception) -> Response | None:
    """A service's own refusal with its status (an idempotency key reused for another request: 409; a write
    past its limit, accounts.write_limits.WriteLimited: 429 with the seconds to wait in Retry-After)."""
    http_status, code = getattr(exc, "http_status", None), getattr(exc, "code", None)
    if not isinstance(http_status, int) or not isinstance(code, str):
        return None
    response = error_response(code, str(exc), http_status)
    retry_after = getattr(exc, "retry_after", None)
    if isinstance(retry_after, int):
        response["Retry-After"] = str(retry_after)
    return response


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    language = getattr(context.get("request"), "LANGUAGE_CODE", "es") or "es"
    if isinstance(exc, RulesError):
        return error_response(exc.code, exc.message(language), status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, SceneBusy):  # a write that deadlocked twice: nothing was written, try again
        response = error_response(exc.code, " ".join(exc.messages), status.HTTP_503_SERVICE_UNAVAILABLE)
        response["Retry-After"] = "1"
        return response
    if isinstance(exc, DjangoValidationError):
        if hasattr(exc, "error_dict"):
            fields = {name: [str(m) for e in errors for m in e.messages] for name, errors in exc.error_dict.items()}
            first = next(iter(fields.values()))[0]
            return error_response("invalid", first, status.HTTP_400_BAD_REQUEST, fields)
        return error_response("invalid", " ".join(exc.messages), status.HTTP_400_BAD_REQUEST)
    refusal = _service_refusal(exc)
    if refusal is not None:
        return refusal
    if isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        if isinstance(fields, dict):
            first_field, first = next(iter(fields.items()), ("", [_("Datos no válidos.")]))
            message = first[0] if isinstance(first, list) and first else str(first)
            if first_field and first_field != "non_field_errors":
                message = f"{first_field}: {message}"
            response.data = {"error": {"code": "invalid", "message": message, "fields": fields}}
        else:
            messages = fields if isinstance(fields, list) else [fields]
            response.data = {"error": {"code": "invalid", "message": " ".join(map(str, messages))}}
        return response
    detail = getattr(exc, "detail", None)
    code = getattr(detail, "code", None) or getattr(exc, "default_code", "error")
    response.data = {"error": {"code": str(code), "message": str(detail) if detail else str(exc)}}
    return response
