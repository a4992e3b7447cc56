"""Password reset by email (issue 23): the same answer whether the address has an account or not, limited per
typed address and per client like log-in, through real mail; a new password (reset or change) ends the other
sessions and revokes the API tokens."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import services
from accounts.models import ApiToken, User
from tests.campaigns.web_helpers import PASSWORD, client_for, make_user

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "otra-clave-larga-y-nueva-77"


def _confirmed(username: str, address: str) -> User:
    user = make_user(username, password=PASSWORD)
    user.email, user.email_verified_at = address, timezone.now()
    user.save(update_fields=["email", "email_verified_at"])
    return user


def _ask(client: Client, address: str, capture: Any, ip: str = "10.0.0.1") -> Any:
    with capture(execute=True):
        return client.post("/accounts/password/reset/", {"email": address}, REMOTE_ADDR=ip)


def _reset_link(message: mail.EmailMessage) -> str:
    match = re.search(r"/accounts/password/reset/[^\s/]+/[^\s/]+/", str(message.body))
    assert match is not None, message.body
    return match.group(0)


def test_the_login_page_links_to_the_reset() -> None:
    assert 'href="/accounts/password/reset/"' in Client().get("/accounts/login/").content.decode()


def test_reset_through_the_mailed_link_ends_every_session_and_token(django_capture_on_commit_callbacks: Any) -> None:
    user = _confirmed("ana", "ana@example.org")
    elsewhere = client_for(user)
    assert elsewhere.get("/accounts/profile/").status_code == 200
    services.issue_token(user=user, name="bot")
    client = Client()
    answer = _ask(client, "ANA@example.org", django_capture_on_commit_callbacks)
    assert answer.status_code == 200
    [message] = mail.outbox
    assert message.to == ["ana@example.org"]
    link = _reset_link(message)
    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200 and form_page.context["validlink"]
    done = client.post(form_page.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302 and done["Location"] == "/accounts/password/reset/done/"
    assert User.objects.get(pk=user.pk).check_password(NEW_PASSWORD)
    assert elsewhere.get("/accounts/profile/").status_code == 302  # that session has ended
    assert not ApiToken.objects.filter(user=user).exists()
    assert client.get(link).context["validlink"] is False  # the link worked once
    assert Client().login(username="ana", password=NEW_PASSWORD)


def test_the_answer_is_the_same_whether_the_address_has_an_account_or_not(
    django_capture_on_commit_callbacks: Any,
) -> None:
    _confirmed("ana", "ana@example.org")
    unconfirmed = make_user("bruno")
    services.request_email(user=unconfirmed, address="bruno@example.org")
    mail.outbox.clear()

    def page(address: str) -> str:
        response = _ask(Client(), address, django_capture_on_commit_callbacks)
        assert response.status_code == 200
        main: str = response.content.decode().split('<main id="main"')[1]  # the header carries a CSRF token
        return main.replace(address, "ADDRESS")

    known = page("ana@example.org")
    assert page("nadie@example.org") == known
    assert page("bruno@example.org") == known  # an unconfirmed address gets no link either
    assert [m.to for m in mail.outbox] == [["ana@example.org"]]


def test_requests_past_the_limit_answer_429_and_send_nothing(django_capture_on_commit_callbacks: Any) -> None:
    _confirmed("ana", "ana@example.org")
    with override_settings(PASSWORD_RESET_THROTTLE_EMAIL=2):
        for _ in range(2):
            assert _ask(Client(), "ana@example.org", django_capture_on_commit_callbacks).status_code == 200
        refused = _ask(Client(), "ana@example.org", django_capture_on_commit_callbacks, ip="10.0.0.2")
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Demasiadas peticiones" in refused.content.decode()
    assert len(mail.outbox) == 2


def test_requests_from_one_client_are_limited_across_addresses(django_capture_on_commit_callbacks: Any) -> None:
    with override_settings(PASSWORD_RESET_THROTTLE_ADDRESS=3):
        for n in range(3):
            assert _ask(Client(), f"x{n}@example.org", django_capture_on_commit_callbacks).status_code == 200
        assert _ask(Client(), "y@example.org", django_capture_on_commit_callbacks).status_code == 429
        assert _ask(Client(), "y@example.org", django_capture_on_commit_callbacks, ip="10.0.0.9").status_code == 200


def test_a_bad_address_is_a_form_error() -> None:
    response = Client().post("/accounts/password/reset/", {"email": "no"})
    assert response.status_code == 400
    assert response.context["form"].errors["email"]


def test_a_tampered_link_shows_a_clear_message() -> None:
    user = _confirmed("ana", "ana@example.org")
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    uid = urlsafe_base64_encode(force_bytes(user.pk))
    page = Client().get(f"/accounts/password/reset/{uid}/abc-123/")
    assert page.status_code == 200 and page.context["validlink"] is False
    assert "El enlace no es válido" in page.content.decode()


def test_changing_the_password_keeps_this_session_and_ends_the_others() -> None:
    user = make_user("ana", password=PASSWORD)
    here, elsewhere = client_for(user), client_for(user)
    services.issue_token(user=user)
    response = here.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    assert here.get("/accounts/profile/").status_code == 200
    assert elsewhere.get("/accounts/profile/").status_code == 302
    assert not ApiToken.objects.filter(user=user).exists()


def test_api_reset_same_answer_json_and_429(django_capture_on_commit_callbacks: Any) -> None:
    _confirmed("ana", "ana@example.org")
    client = APIClient(REMOTE_ADDR="10.0.0.5")
    with override_settings(PASSWORD_RESET_THROTTLE_EMAIL=1), django_capture_on_commit_callbacks(execute=True):
        known = client.post("/api/auth/password-reset/", {"email": "ana@example.org"}, format="json")
        unknown = client.post("/api/auth/password-reset/", {"email": "nadie@example.org"}, format="json")
        refused = client.post("/api/auth/password-reset/", {"email": "ana@example.org"}, format="json")
    assert known.status_code == unknown.status_code == 202
    assert known.json() == unknown.json()
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Demasiadas peticiones" in refused.json()["error"]["message"]
    assert [m.to for m in mail.outbox] == [["ana@example.org"]]
    bad = client.post("/api/auth/password-reset/", {"email": "no"}, format="json")
    assert bad.status_code == 400 and bad.json()["error"]["fields"]["email"]
