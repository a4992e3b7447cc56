"""Mail: immediate or daily digest per user and campaign, signed one-click unsubscribe, retries, and each
mail sent exactly once even when a task is retried, replayed or its worker dies mid-send."""

from __future__ import annotations

import unicodedata
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.core import mail
from django.core.mail import EmailMessage
from django.test import Client, override_settings
from django.utils import timezone
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from campaigns import services as campaign_services
from campaigns.models import Campaign, Recipients, Scene, Voice
from notifications import mail as notification_mail
from notifications import services
from notifications.models import CampaignPreference, Delivery, DeliveryStatus, EmailMode
from notifications.tasks import send_delivery
from tests.personas import Table

pytestmark = pytest.mark.django_db


def _to(address: str) -> list[Any]:
    return [m for m in mail.outbox if address in m.to]


def _post(table: Table, run_tasks: Any, body: str = "Hola", **fields: Any) -> None:
    with run_tasks(execute=True):
        campaign_services.create_post(author=table.player2, scene=table.scene, body=body, **fields)


def test_immediate_mail_once_per_batch_of_posts(mail_table: Table, run_tasks: Any) -> None:
    _post(mail_table, run_tasks, "uno")
    _post(mail_table, run_tasks, "dos")
    sent = _to("reader@example.org")
    assert len(sent) == 1
    assert "1 mensaje nuevo en «Llegada»" in sent[0].subject
    assert "/avisos/baja/" in sent[0].body
    assert sent[0].extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert not _to("player2@example.org")  # the author is never told of their own post


def test_mail_follows_the_campaign_language(mail_table: Table, run_tasks: Any) -> None:
    mail_table.campaign.language = "en"
    mail_table.campaign.save()
    _post(mail_table, run_tasks, "@reader hi")
    assert "Bruno mentions you in “Llegada”" in _to("reader@example.org")[0].subject


def test_off_sends_nothing(mail_table: Table, run_tasks: Any) -> None:
    CampaignPreference.objects.create(user=mail_table.reader, campaign=mail_table.campaign, email=EmailMode.OFF)
    _post(mail_table, run_tasks)
    assert not _to("reader@example.org")
    assert mail_table.reader.notifications.count() == 1  # the inbox still has it


def test_daily_digest_is_one_mail_per_user_and_campaign_with_nothing_unreadable(
    mail_table: Table, run_tasks: Any
) -> None:
    for user in (mail_table.reader, mail_table.player, mail_table.gm):
        CampaignPreference.objects.create(user=user, campaign=mail_table.campaign, email=EmailMode.DAILY)
    _post(mail_table, run_tasks, "Primero")
    _post(mail_table, run_tasks, "DIGEST-SECRETO-GM", recipients=Recipients.GMS)
    with run_tasks(execute=True):
        campaign_services.create_post(
            author=mail_table.gm, scene=mail_table.scene, body="DIGEST-SUSURRO @player", voice=Voice.NARRATOR,
            recipients=Recipients.WHISPER, whisper_to=[mail_table.player.pk],
        )  # fmt: skip
    with run_tasks(execute=True):
        campaign_services.create_post(author=mail_table.player, scene=mail_table.offtopic, body="Fuera de juego")
    for address in ("reader@example.org", "player@example.org", "gm@example.org"):
        assert not _to(address)  # daily: nothing at once
    with run_tasks(execute=True):
        services.schedule_digests()
    for address in ("reader@example.org", "player@example.org", "gm@example.org"):
        assert len(_to(address)) == 1, address
    reader_mail = _to("reader@example.org")[0]
    assert "resumen del día" in reader_mail.subject
    assert "mensaje nuevo en «Llegada»" in reader_mail.body and "Fuera de juego" not in reader_mail.body
    assert "DIGEST" not in reader_mail.body
    assert "DIGEST-SUSURRO" in _to("player@example.org")[0].body
    assert "DIGEST-SECRETO-GM" not in _to("gm@example.org")[0].body  # a batch never quotes posts
    with run_tasks(execute=True):
        services.schedule_digests()  # the same day again: nothing new to tell, nothing sent twice
    assert len(_to("reader@example.org")) == 1


def test_unsubscribe_link_works_once_without_login_and_refuses_tampering(mail_table: Table) -> None:
    url = notification_mail.unsubscribe_url(mail_table.reader.pk, mail_table.campaign.pk).removeprefix(
        "http://127.0.0.1:8000"
    )
    anonymous = Client()
    assert "¿Dejar de recibir" in anonymous.get(url).content.decode()
    assert not CampaignPreference.objects.exists()  # a GET (a mail scanner) changes nothing
    done = anonymous.post(url)
    assert done.status_code == 200 and "No recibirás más correos" in done.content.decode()
    assert CampaignPreference.objects.get(user=mail_table.reader).email == EmailMode.OFF
    again = anonymous.post(url)
    assert "Ya no recibes correos" in again.content.decode()
    tampered = url.replace(url.split("/")[-2], url.split("/")[-2][:-2] + "xx")
    assert anonymous.post(tampered).status_code == 400
    forged = notification_mail.unsubscribe_url(mail_table.gm.pk, mail_table.campaign.pk).split("/")[-2]
    assert anonymous.post(f"/avisos/baja/{forged[:10]}/").status_code == 400


class FlakyBackend:
    """A mail backend whose first ``failures`` sends raise."""

    failures = 1
    calls = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def send_messages(self, messages: list[Any]) -> int:
        FlakyBackend.calls += 1
        if FlakyBackend.calls <= FlakyBackend.failures:
            raise ConnectionError("SMTP down")
        mail.outbox.extend(messages)
        return len(messages)


@override_settings(EMAIL_BACKEND="tests.notifications.test_mail.FlakyBackend", NOTIFICATION_MAIL_ATTEMPTS=3)
def test_a_send_that_raises_is_retried_and_sent_exactly_once(mail_table: Table, run_tasks: Any) -> None:
    FlakyBackend.calls, FlakyBackend.failures = 0, 1
    _post(mail_table, run_tasks, "@reader mira")
    delivery = Delivery.objects.get(user=mail_table.reader)
    assert delivery.status == DeliveryStatus.SENT and delivery.attempts == 2
    assert len(_to("reader@example.org")) == 1
    send_delivery.enqueue(delivery.pk)  # a replayed task
    assert len(_to("reader@example.org")) == 1


@override_settings(EMAIL_BACKEND="tests.notifications.test_mail.FlakyBackend", NOTIFICATION_MAIL_ATTEMPTS=2)
def test_a_mail_that_keeps_failing_is_abandoned_after_its_attempts(mail_table: Table, run_tasks: Any) -> None:
    FlakyBackend.calls, FlakyBackend.failures = 0, 99
    _post(mail_table, run_tasks, "@reader mira")
    delivery = Delivery.objects.get(user=mail_table.reader)
    assert delivery.status == DeliveryStatus.ABANDONED and delivery.attempts == 2
    assert "SMTP down" in delivery.last_error


def test_a_worker_killed_mid_batch_sends_nothing_twice(mail_table: Table, run_tasks: Any) -> None:
    for user in (mail_table.reader, mail_table.gm):
        CampaignPreference.objects.create(user=user, campaign=mail_table.campaign, email=EmailMode.DAILY)
    _post(mail_table, run_tasks)
    # The batch is queued, then the worker dies: the reader's mail was claimed (maybe sent), the GM's not.
    with mock.patch("notifications.tasks.send_delivery"), run_tasks(execute=True):
        services.schedule_digests()
    reader_delivery = Delivery.objects.get(user=mail_table.reader)
    assert notification_mail._claim(reader_delivery.pk)
    # Another worker runs the whole batch again, and the digests are scheduled again.
    for delivery in Delivery.objects.all():
        send_delivery.enqueue(delivery.pk)
    with run_tasks(execute=True):
        services.schedule_digests()
    assert not _to("reader@example.org")  # claimed by the dead worker: never sent a second time
    assert len(_to("gm@example.org")) == 1
    assert Delivery.objects.filter(user__in=[mail_table.reader, mail_table.gm]).count() == 2


def test_a_recipient_no_longer_in_a_private_campaign_gets_no_mail(mail_table: Table, run_tasks: Any) -> None:
    with mock.patch("notifications.tasks.send_delivery"):
        _post(mail_table, run_tasks, "@reader hola")
    campaign_services.leave_campaign(user=mail_table.reader, campaign=mail_table.campaign)
    delivery = Delivery.objects.get(user=mail_table.reader)
    send_delivery.enqueue(delivery.pk)
    delivery.refresh_from_db()
    if mail_table.campaign.visibility == "private":
        assert delivery.status == DeliveryStatus.ABANDONED and not _to("reader@example.org")
    else:
        assert delivery.status == DeliveryStatus.SENT


def test_digest_day_boundary_is_a_new_mail(mail_table: Table, run_tasks: Any) -> None:
    CampaignPreference.objects.create(user=mail_table.reader, campaign=mail_table.campaign, email=EmailMode.DAILY)
    _post(mail_table, run_tasks, "hoy")
    with run_tasks(execute=True):
        services.schedule_digests()
    mail_table.reader.notifications.update(read_at=timezone.now())
    _post(mail_table, run_tasks, "mañana")
    with run_tasks(execute=True):
        services.schedule_digests(now=timezone.now() + timedelta(days=1))
    assert len(_to("reader@example.org")) == 2


def test_a_title_saved_with_line_breaks_never_breaks_the_mail_headers(mail_table: Table, run_tasks: Any) -> None:
    """Titles with CR/LF are refused now, but one saved before must still be mailed, on one header line."""
    Campaign.objects.filter(pk=mail_table.campaign.pk).update(title="Noche\r\nBcc: todos@example.org\x07")
    Scene.objects.filter(pk=mail_table.scene.pk).update(title="Llegada\n\tfría")
    _post(mail_table, run_tasks, "@reader mira")
    delivery = Delivery.objects.get(user=mail_table.reader)
    assert delivery.status == DeliveryStatus.SENT
    (sent,) = _to("reader@example.org")
    assert sent.subject.startswith("[Tintero] Noche Bcc: todos@example.org: ")
    assert "Llegada fría" in sent.subject
    headers = sent.message().as_string().split("\n\n", 1)[0].splitlines()
    assert not sent.bcc and not [line for line in headers if line.lower().startswith("bcc")]


def test_every_send_of_a_delivery_carries_the_same_message_id(mail_table: Table, run_tasks: Any) -> None:
    _post(mail_table, run_tasks, "@reader mira")
    delivery = Delivery.objects.get(user=mail_table.reader)
    (sent,) = _to("reader@example.org")
    expected = f"<delivery.{delivery.pk}@127.0.0.1>"
    assert sent.message()["Message-ID"] == expected
    assert notification_mail.message(delivery, list(delivery.notifications.all())).message()["Message-ID"] == expected


@override_settings(NOTIFICATION_SENDING_TIMEOUT=600, NOTIFICATION_MAIL_ATTEMPTS=3)
def test_a_delivery_stuck_in_sending_past_the_timeout_is_sent_again(mail_table: Table, run_tasks: Any) -> None:
    """A worker killed mid-send left the delivery ``sending``: after the timeout it is sent again, once,
    with the Message-ID it had."""
    with mock.patch("notifications.tasks.send_delivery"):
        _post(mail_table, run_tasks, "@reader mira")
    delivery = Delivery.objects.get(user=mail_table.reader)
    assert notification_mail._claim(delivery.pk)  # the worker that then died
    assert services.retry_stuck_deliveries() == 0  # a live claim is left alone
    send_delivery.enqueue(delivery.pk)
    assert not _to("reader@example.org")
    later = timezone.now() + timedelta(seconds=601)
    assert services.retry_stuck_deliveries(now=later) == 1
    Delivery.objects.filter(pk=delivery.pk).update(claimed_at=timezone.now() - timedelta(seconds=601))
    with run_tasks(execute=True):
        assert services.retry_stuck_deliveries() == 1
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.SENT and delivery.attempts == 2
    (sent,) = _to("reader@example.org")
    assert sent.message()["Message-ID"] == f"<delivery.{delivery.pk}@127.0.0.1>"
    send_delivery.enqueue(delivery.pk)  # sent: a replay sends nothing
    assert len(_to("reader@example.org")) == 1


@override_settings(NOTIFICATION_SENDING_TIMEOUT=600, NOTIFICATION_MAIL_ATTEMPTS=2)
def test_a_stuck_delivery_out_of_attempts_is_not_sent_again(mail_table: Table, run_tasks: Any) -> None:
    with mock.patch("notifications.tasks.send_delivery"):
        _post(mail_table, run_tasks, "@reader mira")
    delivery = Delivery.objects.get(user=mail_table.reader)
    Delivery.objects.filter(pk=delivery.pk).update(
        status=DeliveryStatus.SENDING, attempts=2, claimed_at=timezone.now() - timedelta(hours=1)
    )
    assert services.retry_stuck_deliveries() == 0
    send_delivery.enqueue(delivery.pk)
    assert not _to("reader@example.org")


@override_settings(NOTIFICATION_UNSUBSCRIBE_DAYS=90)
def test_an_unsubscribe_link_expires_and_its_page_says_so(mail_table: Table) -> None:
    issued = timezone.now() - timedelta(days=91)
    with mock.patch("django.core.signing.time.time", return_value=issued.timestamp()):
        old = notification_mail.unsubscribe_url(mail_table.reader.pk, mail_table.campaign.pk)
    url = old.removeprefix("http://127.0.0.1:8000")
    for response in (Client().get(url), Client().post(url)):
        assert response.status_code == 410
        page = response.content.decode()
        assert "ha caducado" in page and 'href="/avisos/"' in page
    assert not CampaignPreference.objects.exists()
    fresh = notification_mail.unsubscribe_url(mail_table.reader.pk, mail_table.campaign.pk)
    assert Client().post(fresh.removeprefix("http://127.0.0.1:8000")).status_code == 200


@given(text=st.text(max_size=300))
@hypothesis_settings(max_examples=60, deadline=None)
def test_header_text_is_always_one_safe_header_line(text: str) -> None:
    subject = notification_mail.header_text(text)
    assert len(subject) <= 200
    assert not any(unicodedata.category(char) in {"Cc", "Zl", "Zp"} for char in subject)
    assert subject == subject.strip()
    EmailMessage(subject=subject, body="x", to=["a@example.org"]).message()  # never BadHeaderError
