"""API test helpers: a client per persona (``api(user)``) and the error-shape assertion."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User

ApiFor = Callable[[User | None], APIClient]


@pytest.fixture
def api() -> ApiFor:
    """``api(user)``: a client authenticated as ``user`` (None: anonymous)."""

    def make(user: User | None) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client

    return make


def assert_error(response: Any, status: int, *fields: str) -> dict[str, Any]:
    """The response is a JSON error with a message (and per-field messages for ``fields``)."""
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["message"]
    assert error["code"]
    for field in fields:
        assert error["fields"][field], error
    return error
