from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import hash_key
from tests.api.conftest import ApiFor, assert_error
from tests.personas import PASSWORD, Table

pytestmark = pytest.mark.django_db


def test_token_obtain_use_and_revoke(table: Table) -> None:
    client = APIClient()
    response = client.post("/api/auth/token/", {"username": "gm", "password": PASSWORD}, format="json")
    assert response.status_code == 200
    token = response.json()["token"]
    assert ApiToken.objects.get(user=table.gm).key_hash == hash_key(token)

    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    me = client.get("/api/me/")
    assert me.status_code == 200
    assert me.json()["username"] == "gm"
    # Token clients write without CSRF.
    assert client.post(f"/api/scenes/{table.scene.pk}/read/", {}, format="json").status_code == 204

    assert client.delete("/api/auth/token/").status_code == 204
    assert not ApiToken.objects.filter(user=table.gm).exists()
    assert_error(client.get("/api/me/"), 401)


def test_token_bad_credentials_is_a_clear_400(table: Table) -> None:
    response = APIClient().post("/api/auth/token/", {"username": "gm", "password": "nope"}, format="json")
    error = assert_error(response, 400)
    assert "contraseña" in error["message"]
    assert not ApiToken.objects.exists()
    error = assert_error(APIClient().post("/api/auth/token/", {}, format="json"), 400, "username", "password")
    assert error["code"] == "invalid"


def test_token_revoke_needs_authentication() -> None:
    assert_error(APIClient().delete("/api/auth/token/"), 401)


def test_me_get_and_patch(table: Table, api: ApiFor) -> None:
    client = api(table.player)
    assert client.get("/api/me/").json() == {
        "id": table.player.pk,
        "username": "player",
        "display_name": "Ana",
        "public_name": "Ana",
        "email": "",
        "email_verified": False,
        "pending_email": "",
    }
    response = client.patch("/api/me/", {"display_name": "Ana María", "username": "hacker"}, format="json")
    assert response.status_code == 200
    table.player.refresh_from_db()
    assert (table.player.display_name, table.player.username) == ("Ana María", "player")
    assert_error(client.patch("/api/me/", {"display_name": "x" * 81}, format="json"), 400, "display_name")
    table.player.refresh_from_db()
    assert table.player.display_name == "Ana María"
    assert_error(api(None).get("/api/me/"), 401)


def test_session_auth_needs_csrf(table: Table) -> None:
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(table.gm)
    assert browser.get("/api/me/").status_code == 200  # reads need no token
    url = f"/api/campaigns/{table.campaign.pk}/"
    refused = browser.patch(url, {"title": "Sin CSRF"}, content_type="application/json")
    error = assert_error(refused, 403)
    assert "CSRF" in error["message"]
    table.campaign.refresh_from_db()
    assert table.campaign.title == "La casa de la colina"

    token = "a" * 32  # a valid CSRF secret: the cookie and the header must match
    browser.cookies["csrftoken"] = token
    accepted = browser.patch(url, {"title": "Con CSRF"}, content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 200, accepted.content
    table.campaign.refresh_from_db()
    assert table.campaign.title == "Con CSRF"
