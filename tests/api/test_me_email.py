"""The account's email address through the API (issue 23): same rules as the profile page, JSON errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from accounts.models import User
from tests.api.conftest import ApiFor, assert_error
from tests.personas import Table

pytestmark = pytest.mark.django_db


def _token(message: mail.EmailMessage) -> str:
    match = re.search(r"/accounts/email/confirm/([^\s/]+)/", str(message.body))
    assert match is not None
    return match.group(1)


def test_change_through_the_api_waits_for_the_mailed_token(
    table: Table, api: ApiFor, django_capture_on_commit_callbacks: Any
) -> None:
    gm = table.gm
    gm.email, gm.email_verified_at = "gm@example.org", timezone.now()
    gm.save(update_fields=["email", "email_verified_at"])
    with django_capture_on_commit_callbacks(execute=True):
        response = api(gm).put("/api/me/email/", {"email": "nueva@example.org"}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert (body["email"], body["email_verified"]) == ("gm@example.org", True)
    assert body["pending_email"] == "nueva@example.org"
    [link] = [m for m in mail.outbox if m.to == ["nueva@example.org"]]
    assert [m for m in mail.outbox if m.to == ["gm@example.org"]]  # the old address is told
    confirmed = api(None).post("/api/auth/email/confirm/", {"token": _token(link)}, format="json")
    assert confirmed.status_code == 200
    assert confirmed.json()["email"] == "nueva@example.org"
    assert User.objects.get(pk=gm.pk).email == "nueva@example.org"


def test_bad_input_is_a_json_error(table: Table, api: ApiFor) -> None:
    assert_error(api(table.gm).put("/api/me/email/", {"email": "nope"}, format="json"), 400, "email")
    assert_error(api(table.gm).post("/api/me/email/"), 400)  # nothing waits for confirmation
    error = assert_error(api(None).post("/api/auth/email/confirm/", {"token": "x"}, format="json"), 400)
    assert "no es válido" in error["message"]
    assert_error(api(None).put("/api/me/email/", {"email": "a@example.org"}, format="json"), 401)


def test_too_many_links_is_a_json_429(table: Table, api: ApiFor) -> None:
    from django.test import override_settings

    with override_settings(EMAIL_CONFIRM_THROTTLE_ACCOUNT=1):
        assert api(table.gm).put("/api/me/email/", {"email": "a@example.org"}, format="json").status_code == 200
        refused = api(table.gm).post("/api/me/email/")
    error = assert_error(refused, 429)
    assert int(refused["Retry-After"]) > 0 and "Demasiadas peticiones" in error["message"]
