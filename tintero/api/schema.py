"""The OpenAPI generator's one adjustment: what every paginated list shares, said once.

``?page=`` past the last page (or below 1) answers 404 from DRF's paginator: every list documents it, and
``page``/``page_size`` carry their bounds, so a client (or schemathesis) knows what the server accepts."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema

from tintero.api.pagination import Pagination

_PAGE_404 = {
    "description": "No such page: `page` is past the last page of the list (or below 1).",
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}},
}


class ApiAutoSchema(AutoSchema):
    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation = super().get_operation(*args, **kwargs)
        if not operation:
            return operation
        paginated = False
        for parameter in operation.get("parameters", []):
            if parameter.get("in") != "query":
                continue
            if parameter.get("name") == "page":
                parameter["schema"] = {**parameter.get("schema", {}), "minimum": 1}
                paginated = True
            elif parameter.get("name") == "page_size":
                parameter["schema"] = {**parameter.get("schema", {}), "minimum": 1, "maximum": Pagination.max_page_size}
        if paginated:
            operation.setdefault("responses", {}).setdefault("404", _PAGE_404)
        return operation
