"""Accounts in the browser: sign up, log in/out, password change, display name, language switcher."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User
from tests.campaigns.web_helpers import PASSWORD, client_for, make_user

pytestmark = pytest.mark.django_db


def test_signup_page_and_happy_path_logs_in() -> None:
    client = Client()
    page = client.get("/accounts/signup/")
    assert page.status_code == 200
    for name in ("username", "display_name", "email", "password1", "password2"):
        assert f'name="{name}"' in page.content.decode()
    response = client.post(
        "/accounts/signup/",
        {"username": "ana", "display_name": "Ana la Brava", "email": "", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert response["Location"] == "/"
    user = User.objects.get(username="ana")
    assert user.display_name == "Ana la Brava"
    assert user.email == ""
    home = client.get("/")
    assert "Ana la Brava" in home.content.decode()


def test_signup_password_mismatch_shows_error_and_creates_nothing() -> None:
    response = Client().post(
        "/accounts/signup/",
        {"username": "ana", "display_name": "", "password1": PASSWORD, "password2": PASSWORD + "x"},
    )
    assert response.status_code == 200
    assert response.context["form"].errors["password2"]
    assert 'class="errorlist' in response.content.decode()
    assert not User.objects.filter(username="ana").exists()


def test_signup_duplicate_username_is_a_field_error() -> None:
    make_user("ana")
    response = Client().post("/accounts/signup/", {"username": "ana", "password1": PASSWORD, "password2": PASSWORD})
    assert response.context["form"].errors["username"]
    assert User.objects.filter(username="ana").count() == 1


def test_signup_when_logged_in_redirects_home() -> None:
    assert client_for(make_user("ana")).get("/accounts/signup/").status_code == 302


def test_login_and_logout() -> None:
    make_user("ana", password=PASSWORD)
    client = Client()
    assert client.get("/accounts/login/").status_code == 200
    bad = client.post("/accounts/login/", {"username": "ana", "password": "nope"})
    assert bad.status_code == 200
    assert bad.context["form"].non_field_errors()
    response = client.post("/accounts/login/", {"username": "ana", "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert "_auth_user_id" in client.session
    assert client.get("/accounts/logout/").status_code == 405  # logging out is a POST
    assert client.post("/accounts/logout/").status_code == 302
    assert "_auth_user_id" not in client.session


def test_header_shows_logout_form_and_language_switcher() -> None:
    html = client_for(make_user("ana")).get("/").content.decode()
    assert 'action="/accounts/logout/"' in html
    assert 'action="/i18n/setlang/"' in html
    assert 'name="language"' in html


def test_language_switcher_sets_english() -> None:
    client = Client()
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert response.status_code == 302
    html = client.get("/").content.decode()
    assert '<html lang="en">' in html


def test_password_change() -> None:
    user = make_user("ana", password=PASSWORD)
    client = client_for(user)
    assert client.get("/accounts/password/").status_code == 200
    wrong = client.post(
        "/accounts/password/",
        {"old_password": "nope", "new_password1": "otra-clave-muy-larga-7", "new_password2": "otra-clave-muy-larga-7"},
    )
    assert wrong.status_code == 200
    assert wrong.context["form"].errors["old_password"]
    user.refresh_from_db()
    assert user.check_password(PASSWORD)
    ok = client.post(
        "/accounts/password/",
        {
            "old_password": PASSWORD,
            "new_password1": "otra-clave-muy-larga-7",
            "new_password2": "otra-clave-muy-larga-7",
        },
    )
    assert ok.status_code == 302
    assert ok["Location"] == "/accounts/password/done/"
    user.refresh_from_db()
    assert user.check_password("otra-clave-muy-larga-7")
    assert client.get("/accounts/password/done/").status_code == 200


def test_password_change_needs_login() -> None:
    response = Client().get("/accounts/password/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_profile_edits_display_name() -> None:
    user = make_user("ana", "Ana")
    client = client_for(user)
    assert client.get("/accounts/profile/").status_code == 200
    response = client.post("/accounts/profile/", {"display_name": "Ana de las Brumas"})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.display_name == "Ana de las Brumas"


def test_profile_too_long_name_shows_error_and_changes_nothing() -> None:
    user = make_user("ana", "Ana")
    response = client_for(user).post("/accounts/profile/", {"display_name": "x" * 81})
    assert response.status_code == 200
    assert response.context["form"].errors["display_name"]
    user.refresh_from_db()
    assert user.display_name == "Ana"


def test_profile_needs_login() -> None:
    response = Client().post("/accounts/profile/", {"display_name": "X"})
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
