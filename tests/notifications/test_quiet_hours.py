"""Quiet hours: mail waits until they end, then goes once."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.utils import timezone
from rest_framework.test import APIClient

from campaigns import services as campaign_services
from notifications import services
from notifications.models import Delivery, DeliveryStatus
from tests.api.conftest import assert_error
from tests.personas import Table

pytestmark = pytest.mark.django_db


def _around_now() -> tuple[int, int]:
    hour = timezone.localtime().hour
    return (hour - 1) % 24, (hour + 2) % 24


def test_mail_waits_for_the_end_of_quiet_hours(mail_table: Table, run_tasks: Any) -> None:
    start, end = _around_now()
    services.set_quiet_hours(user=mail_table.reader, start=start, end=end)
    with run_tasks(execute=True):
        campaign_services.create_post(author=mail_table.player, scene=mail_table.scene, body="@reader ¿duermes?")
    delivery = Delivery.objects.get(user=mail_table.reader)
    assert delivery.status == DeliveryStatus.PENDING and delivery.not_before is not None
    assert delivery.not_before > timezone.now()
    assert not [m for m in mail.outbox if "reader@example.org" in m.to]
    assert services.send_held_deliveries() == 0  # not yet
    # A send queued too early (a clock ahead) is refused by the claim: nothing leaves before the end.
    services.send_held_deliveries(now=delivery.not_before + timedelta(minutes=1))
    assert Delivery.objects.get(pk=delivery.pk).status == DeliveryStatus.PENDING
    Delivery.objects.filter(pk=delivery.pk).update(not_before=timezone.now() - timedelta(minutes=1))
    assert services.send_held_deliveries() == 1
    assert len([m for m in mail.outbox if "reader@example.org" in m.to]) == 1
    assert services.send_held_deliveries() == 0


def test_others_and_other_hours_are_not_held(mail_table: Table, run_tasks: Any) -> None:
    hour = timezone.localtime().hour
    services.set_quiet_hours(user=mail_table.reader, start=(hour + 3) % 24, end=(hour + 5) % 24)
    with run_tasks(execute=True):
        campaign_services.create_post(author=mail_table.player, scene=mail_table.scene, body="@reader @player2 hola")
    assert Delivery.objects.get(user=mail_table.reader).status == DeliveryStatus.SENT
    assert Delivery.objects.get(user=mail_table.player2).status == DeliveryStatus.SENT


def test_quiet_hours_span_midnight_and_refuse_nonsense(mail_table: Table) -> None:
    services.set_quiet_hours(user=mail_table.reader, start=23, end=7)
    late = timezone.localtime().replace(hour=2, minute=30)
    until = services.quiet_until([mail_table.reader.pk], late)[mail_table.reader.pk]
    assert until.hour == 7 and until.date() == late.date()
    night = timezone.localtime().replace(hour=23, minute=30)
    assert (
        services.quiet_until([mail_table.reader.pk], night)[mail_table.reader.pk].date()
        == (night + timedelta(days=1)).date()
    )
    assert services.quiet_until([mail_table.reader.pk], timezone.localtime().replace(hour=12)) == {}
    with pytest.raises(ValidationError):
        services.set_quiet_hours(user=mail_table.reader, start=5, end=5)


def test_the_api_sets_and_clears_quiet_hours(mail_table: Table) -> None:
    client = APIClient()
    client.force_authenticate(mail_table.reader)
    url = "/api/notifications/quiet-hours/"
    assert client.get(url).json() == {"start": None, "end": None}
    assert client.post(url, {"start": 22, "end": 8}, format="json").json() == {"start": 22, "end": 8}
    assert_error(client.post(url, {"start": 25, "end": 8}, format="json"), 400, "start")
    assert_error(client.post(url, {"start": 3, "end": 3}, format="json"), 400, "start")
    assert client.post(url, {"start": None, "end": None}, format="json").json() == {"start": None, "end": None}
