"""What every API view shares: input parsing, paginated lists and the documented error responses."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from campaigns.error_codes import ErrorCode, codes_for
from tintero.api.serializers import ErrorOut

_STATUS_WORDS = {
    400: "Invalid data: `error.message` says what is wrong, `error.fields` lists the messages per field.",
    401: "Authentication required, or the token sent is unknown, expired or revoked.",
    403: "Not allowed: the viewer may see this but not do that (e.g. a player on a GM action).",
    404: "Not found, or not visible to this viewer (a private campaign or a whisper looks missing).",
    405: "The path does not answer that method.",
    406: "Only JSON is served.",
    409: "Conflict.",
    413: "The body is too large.",
    415: "Send the body as `application/json` (or `multipart/form-data` where a file is uploaded).",
    429: "Too many attempts: retry after the seconds in the `Retry-After` header.",
    503: "Busy: nothing was saved; retry after the seconds in the `Retry-After` header.",
}
# A game's refusal of a step or roll: its own code, from the ruleset's rules.
_RULES_WORDS = "Or a refusal of the campaign's rules, with the ruleset's own lower_snake_case `error.code`."


def error_description(status: int, codes: tuple[ErrorCode, ...] | None = None) -> str:
    """What an error status means and the exact ``error.code`` values it carries (all of the catalogue's for
    that status unless ``codes`` narrows them)."""
    listed = codes if codes is not None else codes_for(status)
    lines = [_STATUS_WORDS[status], "", "`error.code`:"]
    lines += [f"- `{entry.code}`: {entry.meaning}" for entry in listed]
    if status == 400:
        lines.append(_RULES_WORDS)
    return "\n".join(lines)


def errors(*answers: int | ErrorCode) -> dict[int, OpenApiResponse]:
    """Documented error responses, all shaped as ``{"error": {"code", "message", "fields"}}``: a status
    (every code of the catalogue for it) or one :class:`ErrorCode` (that code alone)."""
    statuses: dict[int, list[ErrorCode] | None] = {}
    for answer in answers:
        if isinstance(answer, ErrorCode):
            known = statuses.get(answer.status) or []
            statuses[answer.status] = [*known, answer]
        else:
            statuses[answer] = None
    return {
        status: OpenApiResponse(
            ErrorOut, description=error_description(status, tuple(codes) if codes is not None else None)
        )
        for status, codes in statuses.items()
    }


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
