"""Log-in throttling by account and by address, on the log-in page and POST /api/auth/token/ alike: past
the limit the right password is refused too, with a clear message (form error; JSON 429 + Retry-After)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest
from django.db import connection
from django.http import HttpRequest
from django.test import Client, override_settings
from rest_framework.test import APIClient

from accounts import throttle
from accounts.models import ApiToken
from accounts.throttle import RateLimit, count_hit
from tests.api.conftest import assert_error
from tests.personas import PASSWORD, make_user

pytestmark = pytest.mark.django_db

T = TypeVar("T")
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


# --- Counting atomically (issue 26) -----------------------------------------------------------------


def _in_threads(count: int, work: Callable[[int], T]) -> list[T]:
    def run(index: int) -> T:
        try:
            return work(index)
        finally:
            connection.close()  # each thread's own connection, or the test database cannot be dropped

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(run, range(count)))


@pytest.mark.django_db(transaction=True)
def test_count_hit_gives_each_concurrent_hit_its_own_count() -> None:
    counts = _in_threads(12, lambda _index: count_hit("test:threads", 900))
    assert sorted(counts) == list(range(1, 13))
    assert count_hit("test:threads", 900) == 13
    assert count_hit("test:threads", 900, now=time.time() + 900) == 1  # the next window starts again


@pytest.mark.django_db(transaction=True)
def test_rate_limit_refuses_past_the_limit_and_forgets() -> None:
    limit = RateLimit("test:limit", limit=2, window=60)
    assert [limit.hit("x").allowed for _ in range(3)] == [True, True, False]
    assert limit.hit("y").allowed  # another subject, its own count
    hit = limit.hit("x")
    assert (hit.count, hit.allowed) == (4, False) and 0 < hit.retry_after <= 61
    limit.forget("x")
    assert limit.hit("x").count == 1


@pytest.mark.django_db(transaction=True)
@override_settings(**{**LIMITS, "LOGIN_THROTTLE_ADDRESS": 100})
def test_concurrent_wrong_passwords_never_pass_the_account_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The old throttle read the count, checked the password, then counted the failure: 15 attempts at
    once were all checked. Every checker here waits for the others, so only counting first can hold."""
    make_user("elena")
    real_authenticate = throttle.authenticate
    limit = LIMITS["LOGIN_THROTTLE_ACCOUNT"]
    together = threading.Barrier(limit, timeout=10)
    checked: list[int] = []

    def checking_together(request: Any, **credentials: Any) -> Any:
        checked.append(1)
        with contextlib.suppress(threading.BrokenBarrierError):
            together.wait()
        return real_authenticate(request, **credentials)

    monkeypatch.setattr(throttle, "authenticate", checking_together)

    def attempt(_index: int) -> str:
        try:
            return "checked" if throttle.authenticate_throttled(None, "elena", "mal") is None else "in"
        except throttle.LoginThrottled:
            return "refused"

    outcomes = _in_threads(limit + 4, attempt)
    assert len(checked) == limit
    assert sorted(outcomes) == ["checked"] * limit + ["refused"] * 4


# --- The owner's way in: device cookies (OWASP) ----------------------------------------------------


def _device_cookie_of(username: str, address: str = "10.0.1.1") -> str:
    client = Client(REMOTE_ADDR=address)
    assert client.post("/accounts/login/", {"username": username, "password": PASSWORD}).status_code == 302
    return client.cookies[throttle.DEVICE_COOKIE].value


@override_settings(**LIMITS)
def test_a_locked_account_still_lets_its_owner_in_from_a_device_they_used_before() -> None:
    make_user("fabio")
    device = _device_cookie_of("fabio")
    for _ in range(5):  # a stranger locks the account
        _token("fabio", "mal", address="10.6.6.6")
    assert_error(_token("fabio", PASSWORD, address="10.0.1.1"), 429)  # no device cookie: locked
    owner = Client(REMOTE_ADDR="10.0.1.1")
    owner.cookies[throttle.DEVICE_COOKIE] = device
    page = owner.post("/accounts/login/", {"username": "fabio", "password": PASSWORD})
    assert page.status_code == 302
    assert owner.session["_auth_user_id"]
    api = APIClient(REMOTE_ADDR="10.0.1.1")
    api.cookies[throttle.DEVICE_COOKIE] = device
    assert api.post("/api/auth/token/", {"username": "fabio", "password": PASSWORD}, format="json").status_code == 200


@override_settings(**LIMITS)
def test_a_device_cookie_opens_no_way_for_a_stranger() -> None:
    make_user("gala")
    make_user("hugo")
    hugos_device = _device_cookie_of("hugo")
    for _ in range(3):
        _token("gala", "mal")
    stranger = Client(REMOTE_ADDR="10.6.6.6")
    for cookie in [hugos_device, hugos_device[:-2] + "xx", "nada"]:  # another user's, tampered, garbage
        stranger.cookies[throttle.DEVICE_COOKIE] = cookie
        assert stranger.post("/accounts/login/", {"username": "gala", "password": PASSWORD}).status_code == 429


@override_settings(**{**LIMITS, "LOGIN_THROTTLE_DEVICE": 2})
def test_failures_from_a_device_lock_that_device_only() -> None:
    make_user("ines")
    device = _device_cookie_of("ines")
    client = Client(REMOTE_ADDR="10.0.2.2")
    client.cookies[throttle.DEVICE_COOKIE] = device
    for _ in range(2):
        assert client.post("/accounts/login/", {"username": "ines", "password": "mal"}).status_code == 200
    assert client.post("/accounts/login/", {"username": "ines", "password": PASSWORD}).status_code == 429
    # The account itself was not counted: without the cookie the owner gets in.
    assert _token("ines", PASSWORD, address="10.0.2.3").status_code == 200


# --- Client addresses behind a proxy ---------------------------------------------------------------


def _request(remote: str, forwarded: str = "") -> HttpRequest:
    request = HttpRequest()
    request.META["REMOTE_ADDR"] = remote
    if forwarded:
        request.META["HTTP_X_FORWARDED_FOR"] = forwarded
    return request


@override_settings(TRUSTED_PROXIES=["10.9.0.0/16", "::1"])
def test_forwarded_for_is_believed_only_from_a_trusted_proxy() -> None:
    assert throttle.client_address(_request("203.0.113.5", "1.2.3.4")) == "203.0.113.5"
    assert throttle.client_address(_request("10.9.0.2", "6.6.6.6, 198.51.100.7")) == "198.51.100.7"
    assert throttle.client_address(_request("10.9.0.2", "198.51.100.7, 10.9.0.3")) == "198.51.100.7"
    assert throttle.client_address(_request("::1", "")) == "::1"


@override_settings(**LIMITS, TRUSTED_PROXIES=[], SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"))
def test_a_rotated_forwarded_for_from_a_direct_client_is_still_throttled() -> None:
    for index in range(6):
        APIClient(REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR=f"1.1.1.{index}").post(
            "/api/auth/token/", {"username": f"nadie{index}", "password": "mal"}, format="json"
        )
    make_user("julia")
    response = APIClient(REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR="1.1.1.99").post(
        "/api/auth/token/", {"username": "julia", "password": PASSWORD}, format="json"
    )
    assert_error(response, 429)


@override_settings(**LIMITS)
def test_signing_up_makes_the_device_known_to_the_throttle() -> None:
    client = Client(REMOTE_ADDR="10.0.3.3")
    signup = {"username": "karen", "display_name": "", "email": "", "password1": PASSWORD, "password2": PASSWORD}
    assert client.post("/accounts/signup/", signup).status_code == 302
    device = client.cookies[throttle.DEVICE_COOKIE].value
    for _ in range(3):
        _token("karen", "mal", address="10.6.6.6")
    owner = Client(REMOTE_ADDR="10.0.3.3")
    owner.cookies[throttle.DEVICE_COOKIE] = device
    assert owner.post("/accounts/login/", {"username": "karen", "password": PASSWORD}).status_code == 302
