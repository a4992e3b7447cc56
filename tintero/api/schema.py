"""The OpenAPI generator's adjustments: what every operation shares, said once.

- Bodies are JSON (``multipart/form-data`` only where a file is uploaded): the server also parses forms,
  but a generated client needs one encoding that carries nested fields (``rolls``, ``sheet``, ``params``).
- Every error an operation can answer is documented with the error shape and the exact codes it carries:
  401 everywhere (a token that is unknown, expired or revoked is refused even where anonymous access is
  allowed), 429 everywhere (requests per address, writes per account), 413 and 415 wherever a body is
  read, 403 and 503 (a scene busy twice over) on every write, 404 wherever the path names an object.
- ``?page=`` past the last page (or below 1) answers 404 from DRF's paginator: every list documents it, and
  ``page``/``page_size`` carry their bounds, so a client (or schemathesis) knows what the server accepts.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from rest_framework.parsers import JSONParser

from tintero.api.pagination import Pagination
from tintero.api.views.base import error_description

ERROR_REF = {"$ref": "#/components/schemas/Error"}


def error_answer(status: int, description: str | None = None) -> dict[str, Any]:
    return {
        "description": description or error_description(status),
        "content": {"application/json": {"schema": ERROR_REF}},
    }


_PAGE_404 = "No such page: `page` is past the last page of the list (or below 1); or " + error_description(404)


def _any_or_null_is_any(node: Any) -> Any:
    """``oneOf: [{}, {"type": "null"}]`` (an untyped nullable JSON field) is invalid for null, which both
    match: any value already includes null, so the field is simply any value."""
    if isinstance(node, list):
        return [_any_or_null_is_any(item) for item in node]
    if not isinstance(node, dict):
        return node
    options = node.get("oneOf")
    if isinstance(options, list) and len(options) == 2 and {} in options and {"type": "null"} in options:
        node = {key: value for key, value in node.items() if key != "oneOf"}
    return {key: _any_or_null_is_any(value) for key, value in node.items()}


def untyped_nullables(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: see :func:`_any_or_null_is_any`."""
    return dict(_any_or_null_is_any(result))


class ApiAutoSchema(AutoSchema):
    def map_parsers(self) -> list[Any]:
        parsers = self.view.get_parsers()
        if any(isinstance(parser, JSONParser) for parser in parsers):
            return ["application/json"]
        return [parser.media_type for parser in parsers]

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation = super().get_operation(*args, **kwargs)
        if not operation:
            return operation
        responses: dict[str, Any] = operation.setdefault("responses", {})
        paginated = False
        names_an_object = False
        for parameter in operation.get("parameters", []):
            if parameter.get("in") == "path":
                names_an_object = True
            if parameter.get("in") != "query":
                continue
            if parameter.get("name") == "page":
                parameter["schema"] = {**parameter.get("schema", {}), "minimum": 1}
                paginated = True
            elif parameter.get("name") == "page_size":
                parameter["schema"] = {**parameter.get("schema", {}), "minimum": 1, "maximum": Pagination.max_page_size}
        if paginated:
            responses["404"] = error_answer(404, _PAGE_404)
        elif names_an_object:
            responses.setdefault("404", error_answer(404))
        responses.setdefault("401", error_answer(401))
        if self.method not in ("GET", "HEAD", "OPTIONS"):
            responses.setdefault("403", error_answer(403))
            # A write that deadlocks twice with others in its scene saves nothing (campaigns.scene_locks).
            responses.setdefault("503", error_answer(503))
        # Every request counts against its address's limits (tintero.request_limits), and every write against
        # the account's API write limit too (tintero.api.throttles).
        responses.setdefault("429", error_answer(429))
        if "requestBody" in operation:
            responses.setdefault("400", error_answer(400))
            responses.setdefault("413", error_answer(413))
            responses.setdefault("415", error_answer(415))
        return operation
