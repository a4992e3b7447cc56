"""Naming spec test vectors so coverage can be checked mechanically.

``@vector("presagios-8")`` makes the test's id carry ``presagios-8``; the test receives ``vector_id``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest

F = TypeVar("F", bound=Callable[..., Any])


def vector(*ids: str) -> Callable[[F], F]:
    """Parametrize a test over the spec vector ids it checks (one test run per id)."""
    return pytest.mark.parametrize("vector_id", ids, ids=list(ids))
