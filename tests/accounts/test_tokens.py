"""API tokens: hashed at rest, shown whole only when created, expiring, revoked by a password change, listed
and revoked one by one from the API and from the profile's tokens page."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import issue_token
from tests.api.conftest import assert_error
from tests.personas import PASSWORD, make_user

pytestmark = pytest.mark.django_db


def _with(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _obtain(username: str, name: str = "") -> dict[str, Any]:
    response = APIClient().post(
        "/api/auth/token/", {"username": username, "password": PASSWORD, "name": name}, format="json"
    )
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    return body


def test_keys_are_not_stored_and_lists_show_only_their_start() -> None:
    make_user("ana")
    first, second = _obtain("ana", "bot"), _obtain("ana", "móvil")
    assert first["token"] != second["token"] and first["expires_at"]
    assert not ApiToken.objects.filter(key_hash=first["token"]).exists()
    listed = _with(first["token"]).get("/api/auth/tokens/").json()
    assert [t["name"] for t in listed["results"]] == ["móvil", "bot"]
    assert [t["current"] for t in listed["results"]] == [False, True]
    body = str(listed)
    assert first["token"] not in body and second["token"] not in body
    assert listed["results"][1]["prefix"] == first["token"][:8]


def test_revoke_one_token_by_id_and_the_current_one() -> None:
    user, other = make_user("bruno"), make_user("otro")
    first, second = _obtain("bruno"), _obtain("bruno")
    foreign = issue_token(user=other)
    client = _with(first["token"])
    assert_error(client.delete(f"/api/auth/tokens/{foreign.token.pk}/"), 404)
    assert client.delete(f"/api/auth/tokens/{second['id']}/").status_code == 204
    assert_error(_with(second["token"]).get("/api/me/"), 401)
    assert client.get("/api/me/").status_code == 200
    assert client.delete("/api/auth/token/").status_code == 204
    assert_error(client.get("/api/me/"), 401)
    assert _with(foreign.key).get("/api/me/").status_code == 200
    assert not ApiToken.objects.filter(user=user).exists()


def test_a_password_change_revokes_every_token() -> None:
    user = make_user("carla")
    key = _obtain("carla")["token"]
    browser = Client()
    browser.force_login(user)
    changed = browser.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": "otra-clave-larga-9", "new_password2": "otra-clave-larga-9"},
    )
    assert changed.status_code == 302
    assert_error(_with(key).get("/api/me/"), 401)
    assert not ApiToken.objects.filter(user=user).exists()


def test_set_password_anywhere_revokes_tokens() -> None:
    user = make_user("dario")
    key = issue_token(user=user).key
    user.set_password("nueva-clave-larga-1")
    user.save()
    assert_error(_with(key).get("/api/me/"), 401)


@override_settings(API_TOKEN_TTL_DAYS=30)
def test_tokens_expire() -> None:
    user = make_user("eva")
    issued = issue_token(user=user)
    assert issued.token.expires_at is not None
    assert timedelta(days=29) < issued.token.expires_at - timezone.now() <= timedelta(days=30)
    ApiToken.objects.filter(pk=issued.token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    error = assert_error(_with(issued.key).get("/api/me/"), 401)
    assert "caducado" in error["message"]


@override_settings(API_TOKEN_TTL_DAYS=0)
def test_a_zero_ttl_means_no_expiry() -> None:
    assert issue_token(user=make_user("flor")).token.expires_at is None


def test_the_tokens_page_creates_shows_the_key_once_and_revokes() -> None:
    user = make_user("gala")
    browser = Client()
    browser.force_login(user)
    assert 'href="/accounts/tokens/"' in browser.get("/accounts/profile/").content.decode()
    created = browser.post("/accounts/tokens/", {"name": "bot de la mesa"})
    assert created.status_code == 200
    token = ApiToken.objects.get(user=user)
    page = created.content.decode()
    assert "bot de la mesa" in page and token.prefix in page
    key = page.split('<code class="token-key">')[1].split("</code>")[0]
    assert _with(key).get("/api/me/").status_code == 200
    assert key not in browser.get("/accounts/tokens/").content.decode()
    other = issue_token(user=make_user("hugo"))
    assert browser.post(f"/accounts/tokens/{other.token.pk}/revoke/").status_code == 302
    assert ApiToken.objects.filter(pk=other.token.pk).exists()
    assert browser.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 302
    assert_error(_with(key).get("/api/me/"), 401)
