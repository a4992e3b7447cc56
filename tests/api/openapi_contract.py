"""The API's answers held to its own OpenAPI document: a response's status must be documented for its
operation, and its JSON body valid against the documented schema (JSON Schema 2020-12: the document is
OpenAPI 3.1). ``tests.fixtures`` runs :func:`check_response` on every API test client's response."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

JSON = dict[str, Any]

# Answers no operation documents: the docs pages and the document itself are not JSON operations.
UNCHECKED = ("/api/schema/", "/api/docs/", "/api/redoc/")


class ContractBroken(AssertionError):
    """A response the document does not describe."""


def document() -> JSON:
    """The document as served now: a test that adds a procedure to a game (tests/rolls' duel) gets the
    document with it, as the server would after a restart."""
    from rulesets import registry

    return _document(
        tuple(
            (key, tuple((kind, id(p)) for kind, p in plugin.procedures.items()))
            for key, plugin in registry.plugins().items()
        )
    )


@cache
def _document(registered: tuple[Any, ...]) -> JSON:
    from drf_spectacular.generators import SchemaGenerator

    # Through JSON: the generator's lazy strings and tuples become what a client downloads.
    served: JSON = json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str))
    return served


def _templates() -> list[tuple[re.Pattern[str], str]]:
    found = []
    for template in document()["paths"]:
        pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
        found.append((re.compile(f"^{pattern}$"), template))
    # The most literal template first: /api/campaigns/import/ before /api/campaigns/{campaign_id}/.
    found.sort(key=lambda item: item[1].count("{"))
    return found


def _validator(schema_json: str) -> Draft202012Validator:
    return _validator_of(schema_json, id(document()))


@cache
def _validator_of(schema_json: str, document_id: int) -> Draft202012Validator:
    schema = json.loads(schema_json)
    return Draft202012Validator({"components": document()["components"], "allOf": [schema]})


def operation_for(method: str, path: str) -> tuple[str, JSON] | None:
    for pattern, template in _templates():
        if pattern.match(path):
            operation = document()["paths"][template].get(method.lower())
            return (template, operation) if operation is not None else None
    return None


def check_response(method: str, path: str, status: int, content_type: str, body: bytes | None) -> None:
    """Raise :class:`ContractBroken` when the document does not describe this answer (``body`` None: a
    streamed answer, whose status and type are checked, the body left to the test that reads it)."""
    if not path.startswith("/api/") or path.startswith(UNCHECKED) or method.upper() in ("HEAD", "OPTIONS"):
        return
    found = operation_for(method, path)
    if found is None:
        return  # no such operation: the middleware's JSON 404/405, checked by the error-shape tests
    template, operation = found
    responses = operation.get("responses", {})
    documented = responses.get(str(status)) or responses.get("default")
    if documented is None:
        raise ContractBroken(f"{method} {template} answered {status}, documented: {sorted(responses)}")
    content = documented.get("content")
    if not content:
        if body is not None and body.strip():
            raise ContractBroken(f"{method} {template} {status}: a body where none is documented")
        return
    media = content_type.split(";")[0].strip()
    if media not in content:
        raise ContractBroken(f"{method} {template} {status}: {media!r}, documented: {sorted(content)}")
    if media != "application/json" or body is None:
        return
    schema = content[media].get("schema")
    if schema is None:
        return
    data = json.loads(body)
    try:
        _validator(json.dumps(schema, sort_keys=True)).validate(data)
    except ValidationError as error:
        where = "/".join(str(part) for part in error.absolute_path)
        raise ContractBroken(f"{method} {template} {status}: at {where or 'the root'}: {error.message[:400]}") from None
