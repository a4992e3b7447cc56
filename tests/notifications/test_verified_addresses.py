"""Mail about campaigns goes only to addresses their owners confirmed (issue 23): an address typed at sign-up
or on the profile, or set on the account by other means, receives nothing until its link is opened."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from accounts.models import User
from campaigns import services as campaign_services
from notifications import services
from notifications.models import CampaignPreference, Delivery, DeliveryStatus, EmailMode
from tests.personas import Table

pytestmark = pytest.mark.django_db


def _unconfirm(user: User, address: str) -> None:
    user.email, user.email_verified_at = address, None
    user.save(update_fields=["email", "email_verified_at"])


def _mention_reader(table: Table, run_tasks: Any) -> None:
    with run_tasks(execute=True):
        campaign_services.create_post(author=table.player2, scene=table.scene, body="@reader ¿vienes?")


def test_an_unconfirmed_address_gets_no_immediate_mail(mail_table: Table, run_tasks: Any) -> None:
    _unconfirm(mail_table.reader, "stranger@example.net")
    _mention_reader(mail_table, run_tasks)
    assert mail_table.reader.notifications.count() == 1  # the inbox still tells them
    assert not [m for m in mail.outbox if "stranger@example.net" in m.to]
    assert not Delivery.objects.filter(user=mail_table.reader, channel="email").exists()
    assert [m for m in mail.outbox if "gm@example.org" in m.to]  # the confirmed ones are mailed


def test_an_unconfirmed_address_gets_no_digest(mail_table: Table, run_tasks: Any) -> None:
    CampaignPreference.objects.create(user=mail_table.reader, campaign=mail_table.campaign, email=EmailMode.DAILY)
    _unconfirm(mail_table.reader, "stranger@example.net")
    _mention_reader(mail_table, run_tasks)
    with run_tasks(execute=True):
        services.schedule_digests()
    assert not [m for m in mail.outbox if "stranger@example.net" in m.to]


def test_mail_held_before_the_address_lost_its_confirmation_is_not_sent(mail_table: Table, run_tasks: Any) -> None:
    hour = timezone.localtime().hour
    services.set_quiet_hours(user=mail_table.reader, start=(hour - 1) % 24, end=(hour + 2) % 24)
    _mention_reader(mail_table, run_tasks)  # held by the quiet hours
    delivery = Delivery.objects.get(user=mail_table.reader, channel="email")
    _unconfirm(mail_table.reader, "stranger@example.net")
    Delivery.objects.filter(pk=delivery.pk).update(not_before=timezone.now() - timedelta(minutes=1))
    with run_tasks(execute=True):
        services.send_held_deliveries()
    assert Delivery.objects.get(pk=delivery.pk).status == DeliveryStatus.ABANDONED
    assert not [m for m in mail.outbox if "stranger@example.net" in m.to]
