"""Fixtures shared by every test folder: the personas of tests/personas.py.

Imports of Django code stay inside the fixtures, so the pure ``systems`` tests also run without Django
(``-p no:django``).
"""

from __future__ import annotations

import os
from collections import Counter
from typing import TYPE_CHECKING, Any

import pytest
from _pytest.nodeid import coerce_node_id
from hypothesis import HealthCheck, settings

# Properties are about correctness, never speed (speed lives in `make bench`): on a shared 2-core CI
# machine a single example has taken 760 ms, so no per-example deadline and no too-slow health check.
# Bounded: 100 examples where a test does not say (tests that need more name their own bound).
settings.register_profile("tintero", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# CI (HYPOTHESIS_PROFILE=ci, .ci/run): the same examples on every run, so a failure reproduces and one
# run is comparable with the next, and no example database, which parallel workers would all write to.
settings.register_profile(
    "ci", parent=settings.get_profile("tintero"), derandomize=True, database=None, print_blob=True
)
# A deeper search by hand: HYPOTHESIS_PROFILE=thorough (ten times the examples where a test does not say).
settings.register_profile("thorough", parent=settings.get_profile("tintero"), max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "tintero"))

if TYPE_CHECKING:
    from tests.personas import Table


def pytest_configure(config: pytest.Config) -> None:
    # Hashing passwords the production way costs ~0.3 s per user, and the tests create hundreds.
    if config.pluginmanager.hasplugin("django"):
        from django.conf import settings

        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
        # Rate-limit counts live in the test database in tests (never in a shared Redis), so they start
        # empty in each test; tests/accounts/test_throttle_processes.py counts in Redis in its own processes.
        settings.THROTTLE_REDIS_URL = ""


@pytest.fixture(autouse=True)
def _fresh_caches(request: pytest.FixtureRequest) -> None:
    if request.config.pluginmanager.hasplugin("django"):
        from django.core.cache import caches

        # Rendered posts, fields and thread pages are keyed by what they show, but ids come back after a
        # test's rollback: each test starts without another test's fragments and pages.
        caches["fragments"].clear()
        caches["pages"].clear()


@pytest.fixture(autouse=True)
def _default_language(request: pytest.FixtureRequest) -> None:
    # A request with Accept-Language: en leaves English active in the thread (LocaleMiddleware activates,
    # nothing deactivates): a later test that renders a form without a request would read English. Each
    # test starts in the default language, whatever ran before it.
    if request.config.pluginmanager.hasplugin("django"):
        from django.conf import settings
        from django.utils import translation

        translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def _api_answers_meet_the_schema(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every answer an API test client receives is checked against the OpenAPI document (its status is
    documented, its body valid), so a new endpoint's tests hold it to its schema without asking. A test that
    sends what the document forbids on purpose marks itself ``off_contract``."""
    if not request.config.pluginmanager.hasplugin("django") or request.node.get_closest_marker("off_contract"):
        return
    from rest_framework.test import APIClient

    from tests.api.openapi_contract import check_response

    sent = APIClient.request

    def checked(client: APIClient, **kwargs: Any) -> Any:
        response = sent(client, **kwargs)
        check_response(
            kwargs.get("REQUEST_METHOD", "GET"),
            kwargs.get("PATH_INFO", ""),
            response.status_code,
            response.get("Content-Type", ""),
            None if getattr(response, "streaming", False) else response.content,
        )
        return response

    monkeypatch.setattr(APIClient, "request", checked)


@pytest.fixture
def table(db: None) -> Table:
    """A public campaign with every role and every kind of post."""
    from campaigns.models import Visibility
    from tests.personas import build_table

    return build_table(Visibility.PUBLIC)


@pytest.fixture
def private_table(db: None) -> Table:
    """The same table on a private campaign."""
    from campaigns.models import Visibility
    from tests.personas import build_table

    return build_table(Visibility.PRIVATE, prefix="p_")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Browser tests last: Playwright's sync API keeps an event loop running in the main thread while its
    # session lives, and async tests (WebSocket consumers) cannot start their own loop beside it.
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
    give_each_test_its_own_id(items)


def give_each_test_its_own_id(items: list[pytest.Item]) -> None:
    """schemathesis names its tests by operation (``test_x[GET /api/...]``) but gives them all one node id.
    xdist schedules by node id: tests sharing one would run as one (a hundred API operations unchecked)."""
    counts = Counter(item.nodeid for item in items)
    for item in items:
        if counts[item.nodeid] > 1 and item.parent is not None:
            # The id pytest would give it: the parent's, then the name with its parameters.
            item._id = coerce_node_id(f"{item.parent.nodeid}::{item.name}")
    repeated = sorted(nodeid for nodeid, n in Counter(item.nodeid for item in items).items() if n > 1)
    if repeated:
        raise pytest.UsageError(f"tests sharing one id (xdist would run only one of each): {repeated[:5]}")


@pytest.fixture
def live_events_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run after-commit work (numbering and sending live events) at once: a test's transaction never
    commits, and tests of the event log read the numbers the commit would have handed out."""
    from django.db import transaction

    monkeypatch.setattr(transaction, "on_commit", lambda func, using=None, robust=False: func())


@pytest.fixture
def fragment_renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The templates rendered for kept fragments (tintero.fragments) during the test, in order: a fragment
    served from the cache is not in the list."""
    from tintero import fragments

    rendered: list[str] = []
    original = fragments.render_to_string

    def counting(template: str, context: dict[str, object] | None = None) -> str:
        rendered.append(template)
        return original(template, context)

    monkeypatch.setattr(fragments, "render_to_string", counting)
    return rendered
