"""schemathesis over the app's own OpenAPI schema, in the suite: a few generated requests per operation,
through the WSGI app as the campaign's GM (token auth), must meet the schema. Checks: no server error,
only documented status codes and content types, and every response body valid against its schema.

Bounded on purpose (EXAMPLES per operation, no shrinking) so it costs about a minute; run it harder with
``SCHEMATHESIS_EXAMPLES=200 .venv/bin/python -m pytest tests/api/test_schemathesis.py``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.services import issue_token
from tests.personas import Table

EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "4"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]

schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))
schema.app = get_wsgi_application()


@pytest.fixture
def gm_token(table: Table) -> Iterator[str]:
    # As Django's test client does: the WSGI handler would close the test transaction's connection.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield issue_token(user=table.gm).key
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.mark.django_db
@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_api_meets_its_schema(case: Any, gm_token: str) -> None:
    case.call_and_validate(headers={"Authorization": f"Token {gm_token}"}, checks=CHECKS)


# The archive import takes a stranger's file (issue 21): its own, larger run over generated multipart bodies
# (random bytes and JSON as the archive, and the invite list) must never answer 500 or leave the schema.
IMPORT_EXAMPLES = int(os.environ.get("SCHEMATHESIS_IMPORT_EXAMPLES", "25"))


@pytest.mark.django_db
@schema.include(path="/api/campaigns/import/").parametrize()
@settings(
    max_examples=IMPORT_EXAMPLES,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_archive_import_meets_its_schema(case: Any, gm_token: str) -> None:
    response = case.call_and_validate(headers={"Authorization": f"Token {gm_token}"}, checks=CHECKS)
    if case.method.upper() == "POST":  # other methods: the checks above (a documented 405)
        assert response.status_code in (201, 400), response.text[:300]
    if response.status_code >= 400:
        assert response.json()["error"]["message"]
