"""What every API view shares: input parsing, paginated lists and the documented error responses."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from tintero.api.serializers import ErrorOut

_ERROR_DESCRIPTIONS = {
    400: "Invalid data: `error.message` says what is wrong, `error.fields` lists the messages per field.",
    401: "Authentication required (a token or a browser session).",
    403: "Not allowed: the viewer may see this but not do that (e.g. a player on a GM action).",
    404: "Not found, or not visible to this viewer (a private campaign or a whisper looks missing).",
    409: "Conflict: the idempotency key was already used for a different request.",
    429: "Too many failed attempts: retry after the seconds in the `Retry-After` header.",
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """Documented error responses, all shaped as ``{"error": {"code", "message", "fields"}}``."""
    return {code: OpenApiResponse(ErrorOut, description=_ERROR_DESCRIPTIONS[code]) for code in codes}


class ApiView(GenericAPIView):
    """A plain view with helpers; each method is annotated with its own serializers."""

    def parse(self, serializer_class: type[serializers.Serializer]) -> dict[str, Any]:
        """Validate the request body; a ``ValidationError`` becomes a 400 with per-field messages."""
        serializer = serializer_class(data=self.request.data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)

    def paginated(
        self, items: Iterable[Any], serializer_class: type[serializers.Serializer], **context: Any
    ) -> Response:
        page = self.paginate_queryset(items)  # type: ignore[arg-type]
        data = serializer_class(page, many=True, context={**self.get_serializer_context(), **context}).data
        return self.get_paginated_response(data)

    def render(
        self, instance: Any, serializer_class: type[serializers.Serializer], status: int = 200, **context: Any
    ) -> Response:
        data = serializer_class(instance, context={**self.get_serializer_context(), **context}).data
        return Response(data, status=status)
