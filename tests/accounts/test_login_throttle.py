"""Log-in throttling by account and by address, on the log-in page and POST /api/auth/token/ alike: past
the limit the right password is refused too, with a clear message (form error; JSON 429 + Retry-After)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, override_settings
from rest_framework.test import APIClient

from accounts.models import ApiToken
from tests.api.conftest import assert_error
from tests.personas import PASSWORD, make_user

pytestmark = pytest.mark.django_db

LIMITS = {"LOGIN_THROTTLE_ACCOUNT": 3, "LOGIN_THROTTLE_ADDRESS": 6, "LOGIN_THROTTLE_WINDOW": 900}


def _token(username: str, password: str, address: str = "10.0.0.1") -> Any:
    return APIClient(REMOTE_ADDR=address).post(
        "/api/auth/token/", {"username": username, "password": password}, format="json"
    )


@override_settings(**LIMITS)
def test_api_refuses_the_right_password_after_too_many_failures_for_the_account() -> None:
    make_user("ana")
    for _ in range(3):
        assert_error(_token("ana", "mal"), 400)
    response = _token("ana", PASSWORD, address="10.0.0.2")  # another address: the account is throttled
    error = assert_error(response, 429)
    assert error["code"] == "throttled"
    assert "intentos" in error["message"]
    assert 0 < int(response["Retry-After"]) <= 900
    assert not ApiToken.objects.exists()


@override_settings(**LIMITS)
def test_api_throttles_an_address_that_tries_many_accounts() -> None:
    make_user("bruno")
    for index in range(6):
        _token(f"nadie{index}", "mal")
    assert_error(_token("bruno", PASSWORD), 429)
    assert _token("bruno", PASSWORD, address="10.0.0.9").status_code == 200


@override_settings(**LIMITS)
def test_a_success_clears_the_account_count() -> None:
    make_user("carla")
    for _ in range(2):
        _token("carla", "mal")
    assert _token("carla", PASSWORD).status_code == 200
    for _ in range(2):
        _token("carla", "mal")
    assert _token("carla", PASSWORD).status_code == 200


@override_settings(**LIMITS)
def test_login_page_shows_a_form_error_with_429_and_refuses_the_right_password() -> None:
    make_user("dario")
    client = Client(REMOTE_ADDR="10.0.0.3")
    for _ in range(3):
        page = client.post("/accounts/login/", {"username": "DARIO", "password": "mal"})
        assert page.status_code == 200
    page = client.post("/accounts/login/", {"username": "dario", "password": PASSWORD})
    assert page.status_code == 429
    assert "Demasiados intentos fallidos" in page.content.decode()
    assert int(page["Retry-After"]) > 0
    assert "_auth_user_id" not in client.session
    # The page and the API share the counts.
    assert_error(_token("dario", PASSWORD, address="10.0.0.4"), 429)
