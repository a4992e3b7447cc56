"""The site's own settings (issue 23): sign-ups open, by invitation only (one-use codes) or closed, from the
environment; a contact address in every page's footer."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client, override_settings

from accounts.models import SignupInvitation, User
from tests.campaigns.web_helpers import PASSWORD

pytestmark = pytest.mark.django_db


def _signup(client: Client, username: str, **extra: str) -> Any:
    data = {"username": username, "password1": PASSWORD, "password2": PASSWORD, **extra}
    return client.post("/accounts/signup/", data)


@override_settings(SIGNUPS="closed")
def test_closed_sign_ups_refuse_the_form_and_hide_the_links() -> None:
    client = Client()
    page = client.get("/accounts/signup/")
    assert page.status_code == 403
    assert "no admite cuentas nuevas" in page.content.decode()
    response = _signup(client, "ana")
    assert response.status_code == 403
    assert not User.objects.filter(username="ana").exists()
    for path in ("/", "/accounts/login/"):
        assert 'href="/accounts/signup/"' not in client.get(path).content.decode()


@override_settings(SIGNUPS="invitation")
def test_invitation_only_sign_ups_need_an_unused_code_and_spend_it() -> None:
    out = io.StringIO()
    call_command("signup_invitations", "--create", "1", "--note", "para Ana", stdout=out)
    code = out.getvalue().strip()
    assert SignupInvitation.objects.get(code=code).note == "para Ana"
    client = Client()
    assert 'name="invitation"' in client.get("/accounts/signup/").content.decode()
    without = _signup(client, "ana")
    assert without.status_code == 200 and without.context["form"].errors["invitation"]
    wrong = _signup(client, "ana", invitation="inventado")
    assert wrong.context["form"].errors["invitation"]
    assert not User.objects.filter(username="ana").exists()
    assert _signup(client, "ana", invitation=code).status_code == 302
    invitation = SignupInvitation.objects.get(code=code)
    assert invitation.used_by == User.objects.get(username="ana") and invitation.used_at is not None
    again = _signup(Client(), "bruno", invitation=code)
    assert again.context["form"].errors["invitation"]
    assert not User.objects.filter(username="bruno").exists()
    listed = io.StringIO()
    call_command("signup_invitations", stdout=listed)
    assert code not in listed.getvalue()


@override_settings(SIGNUPS="open")
def test_open_sign_ups_ask_for_no_code() -> None:
    client = Client()
    assert 'name="invitation"' not in client.get("/accounts/signup/").content.decode()
    assert _signup(client, "ana").status_code == 302


def test_the_contact_address_is_in_the_footer() -> None:
    with override_settings(SITE_CONTACT_EMAIL="hola@tintero.example"):
        html = Client().get("/").content.decode()
    assert 'href="mailto:hola@tintero.example"' in html
    assert "mailto:" not in Client().get("/").content.decode()  # none set: none shown


def test_an_unknown_sign_up_mode_is_a_configuration_error() -> None:
    result = subprocess.run(
        [sys.executable, "-c", "import django, os; django.setup()"],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tintero.settings", "SIGNUPS": "a veces"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0 and "SIGNUPS must be open, invitation or closed" in result.stderr
