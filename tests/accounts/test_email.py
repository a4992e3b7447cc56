"""An email address belongs to its owner (issue 23): a new or changed address is used for nothing until the
signed, expiring link mailed to it is opened; the confirmed address keeps working until then and is told.
Through real mail (Django's locmem backend)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail, signing
from django.test import Client, override_settings
from django.utils import timezone
from hypothesis import given, settings
from hypothesis import strategies as st

from accounts import mail as account_mail
from accounts import services
from accounts.models import User
from tests.campaigns.web_helpers import PASSWORD, client_for, make_user

pytestmark = pytest.mark.django_db


def _link(message: mail.EmailMessage) -> str:
    match = re.search(r"http://[^\s]+/accounts/email/confirm/[^\s]+/", str(message.body))
    assert match is not None, message.body
    return match.group(0).removeprefix("http://127.0.0.1:8000")


def _to(address: str) -> list[mail.EmailMessage]:
    return [m for m in mail.outbox if address in m.to]


def _confirmed(username: str, address: str) -> User:
    user = make_user(username)
    user.email, user.email_verified_at = address, timezone.now()
    user.save(update_fields=["email", "email_verified_at"])
    return user


def test_signup_with_an_address_mails_the_link_and_uses_the_address_once_it_is_opened(
    django_capture_on_commit_callbacks: Any,
) -> None:
    client = Client()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/accounts/signup/",
            {"username": "ana", "email": "ana@example.org", "password1": PASSWORD, "password2": PASSWORD},
        )
    assert response.status_code == 302
    user = User.objects.get(username="ana")
    assert (user.email, user.pending_email, user.email_verified) == ("", "ana@example.org", False)
    [message] = _to("ana@example.org")
    assert "Confirma" in message.subject
    link = _link(message)
    page = client.get(link)
    assert page.status_code == 200 and "Confirmar" in page.content.decode()
    user.refresh_from_db()
    assert not user.email_verified  # a GET (a mail scanner) confirms nothing
    assert client.post(link).status_code == 302
    user.refresh_from_db()
    assert (user.email, user.pending_email, user.email_verified) == ("ana@example.org", "", True)


def test_a_changed_address_waits_for_its_link_and_the_old_one_is_told(django_capture_on_commit_callbacks: Any) -> None:
    user = _confirmed("ana", "old@example.org")
    client = client_for(user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/accounts/profile/email/", {"email": "new@example.org"})
    assert response.status_code == 302
    user.refresh_from_db()
    assert (user.email, user.pending_email, user.email_verified) == ("old@example.org", "new@example.org", True)
    [told] = _to("old@example.org")
    assert "new@example.org" in str(told.body)
    assert "espera confirmación" in client.get("/accounts/profile/").content.decode()
    [link_mail] = _to("new@example.org")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert Client().post(_link(link_mail)).status_code == 302  # the link works without logging in
    user.refresh_from_db()
    assert (user.email, user.pending_email) == ("new@example.org", "")
    [changed] = _to("old@example.org")
    assert "ha cambiado" in changed.subject
    assert not _to("new@example.org")


def test_a_tampered_link_is_a_clear_error_and_changes_nothing() -> None:
    user = make_user("ana")
    services.request_email(user=user, address="ana@example.org")
    token = account_mail.confirmation_token(user.pk, "ana@example.org")
    forged = token[:-3] + ("abc" if not token.endswith("abc") else "xyz")
    response = Client().post(f"/accounts/email/confirm/{forged}/")
    assert response.status_code == 400
    assert "El enlace no es válido." in response.content.decode()
    user.refresh_from_db()
    assert not user.email_verified


def test_an_expired_link_is_refused() -> None:
    user = make_user("ana")
    services.request_email(user=user, address="ana@example.org")
    token = account_mail.confirmation_token(user.pk, "ana@example.org")
    with override_settings(EMAIL_CONFIRM_HOURS=0):
        response = Client().post(f"/accounts/email/confirm/{token}/")
    assert response.status_code == 400
    assert "caducado" in response.content.decode()
    user.refresh_from_db()
    assert not user.email_verified


def test_a_link_for_an_address_no_longer_asked_for_does_not_confirm_it(django_capture_on_commit_callbacks: Any) -> None:
    user = make_user("ana")
    with django_capture_on_commit_callbacks(execute=True):
        services.request_email(user=user, address="first@example.org")
    with django_capture_on_commit_callbacks(execute=True):
        services.request_email(user=user, address="second@example.org")
    first_link = _link(_to("first@example.org")[0])
    response = Client().post(first_link)
    assert response.status_code == 400
    user.refresh_from_db()
    assert (user.email, user.pending_email) == ("", "second@example.org")


def test_an_address_confirmed_by_another_account_is_refused_at_confirmation() -> None:
    _confirmed("bruno", "shared@example.org")
    ana = make_user("ana")
    services.request_email(user=ana, address="Shared@EXAMPLE.org")
    token = account_mail.confirmation_token(ana.pk, "Shared@example.org")
    response = Client().post(f"/accounts/email/confirm/{token}/")
    assert response.status_code == 400
    assert "ya es de otra cuenta" in response.content.decode()


def test_the_confirmation_token_is_signed_with_its_own_salt() -> None:
    # An unsubscribe link (another salt) never confirms an address.
    token = signing.dumps({"u": 1, "e": "x@example.org"}, salt="notifications.unsubscribe")
    with pytest.raises(account_mail.BadConfirmation):
        account_mail.read_confirmation_token(token)


def test_an_invalid_address_on_the_profile_is_a_form_error() -> None:
    user = make_user("ana")
    response = client_for(user).post("/accounts/profile/email/", {"email": "no-es-una-direccion"})
    assert response.status_code == 400
    assert response.context["email_form"].errors["email"]
    user.refresh_from_db()
    assert user.pending_email == ""


def test_resend_mails_the_link_again_and_without_an_address_says_so(django_capture_on_commit_callbacks: Any) -> None:
    user = make_user("ana")
    client = client_for(user)
    page = client.post("/accounts/profile/email/resend/", follow=True)
    assert "No hay ninguna dirección por confirmar." in page.content.decode()
    services.request_email(user=user, address="ana@example.org")
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/accounts/profile/email/resend/")
    assert len(_to("ana@example.org")) == 1


def test_emptying_the_field_removes_the_address() -> None:
    user = _confirmed("ana", "ana@example.org")
    assert client_for(user).post("/accounts/profile/email/", {"email": ""}).status_code == 302
    user.refresh_from_db()
    assert (user.email, user.email_verified) == ("", False)


def test_an_address_set_without_confirmation_gets_no_link_mail_for_another_kind() -> None:
    # Only the confirmation link goes to an unconfirmed address; a reset never does.
    user = make_user("ana")
    user.email = "ana@example.org"  # set by other means (the admin): not confirmed
    user.save(update_fields=["email"])
    assert account_mail.send(account_mail.PASSWORD_RESET, user.pk, "", "es") == "skipped"
    assert account_mail.send(account_mail.CONFIRM, user.pk, "ana@example.org", "es") == "sent"
    assert [m.to for m in mail.outbox] == [["ana@example.org"]]


def test_confirmation_links_to_one_address_are_limited(django_capture_on_commit_callbacks: Any) -> None:
    # Nobody can flood a stranger's mailbox by asking for links (sign-up, profile, resend).
    with override_settings(EMAIL_CONFIRM_THROTTLE_ADDRESS=2, EMAIL_CONFIRM_THROTTLE_ACCOUNT=10):
        for name in ("a1", "a2"):
            with django_capture_on_commit_callbacks(execute=True):
                assert (
                    client_for(make_user(name))
                    .post("/accounts/profile/email/", {"email": "victima@example.org"})
                    .status_code
                    == 302
                )
        refused = client_for(make_user("a3")).post("/accounts/profile/email/", {"email": "victima@example.org"})
        signup = Client().post(
            "/accounts/signup/",
            {"username": "a4", "email": "victima@example.org", "password1": PASSWORD, "password2": PASSWORD},
        )
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Demasiadas peticiones de correo" in refused.content.decode()
    assert signup.status_code == 429 and not User.objects.filter(username="a4").exists()
    assert len(_to("victima@example.org")) == 2


def test_resending_is_limited_per_account(django_capture_on_commit_callbacks: Any) -> None:
    user = make_user("ana")
    client = client_for(user)
    with override_settings(EMAIL_CONFIRM_THROTTLE_ACCOUNT=2, EMAIL_CONFIRM_THROTTLE_ADDRESS=10):
        with django_capture_on_commit_callbacks(execute=True):
            services.request_email(user=user, address="ana@example.org")
            client.post("/accounts/profile/email/resend/")
        page = client.post("/accounts/profile/email/resend/", follow=True)
    assert "Demasiadas peticiones de correo" in page.content.decode()
    assert len(_to("ana@example.org")) == 2


@settings(max_examples=25, deadline=None)
@given(
    user_id=st.integers(min_value=1, max_value=2**31),
    address=st.emails(),
    position=st.integers(min_value=0),
    replacement=st.sampled_from("AZaz09-_:"),
)
def test_a_confirmation_token_opens_to_what_it_was_signed_for_and_any_change_breaks_it(
    user_id: int, address: str, position: int, replacement: str
) -> None:
    token = account_mail.confirmation_token(user_id, address)
    assert account_mail.read_confirmation_token(token) == account_mail.Confirmation(user_id, address)
    index = position % len(token)
    tampered = token[:index] + replacement + token[index + 1 :]
    if tampered != token:
        with pytest.raises(account_mail.BadConfirmation):
            account_mail.read_confirmation_token(tampered)
