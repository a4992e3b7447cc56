"""One retention pass over every table that only grows, from the settings, by the worker or by cron."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from campaigns.models import CampaignEventLog
from notifications.models import Delivery, DeliveryStatus, Kind, Notification
from operations.retention import Trimmed, trim_expired
from operations.tasks import trim_expired_rows
from taskqueue.models import QueuedTask, QueuedTaskStatus
from tests.personas import Table
from tests.test_deployment import ROOT

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("live_events_at_once")]

DAY = timedelta(days=1)


def one_of_each_on_both_sides(table: Table, days: int) -> None:
    """A finished task, a sent delivery, a read notification and a live event, aged ``days`` - 1 and + 1."""
    now = timezone.now()
    for side, age in (("young", (days - 1) * DAY), ("old", (days + 1) * DAY)):
        QueuedTask.objects.create(
            id=f"task-{side}", task_path="x.y", status=QueuedTaskStatus.SUCCESSFUL, finished_at=now - age
        )
        Delivery.objects.create(
            key=f"delivery-{side}",
            user=table.player,
            campaign=table.campaign,
            status=DeliveryStatus.SENT,
            sent_at=now - age,
        )
        Notification.objects.create(
            user=table.player, campaign=table.campaign, kind=Kind.MENTION, key=f"note-{side}", read_at=now - age
        )


@override_settings(
    TASK_RETENTION_DAYS=5, DELIVERY_RETENTION_DAYS=5, NOTIFICATION_RETENTION_DAYS=5, EVENT_LOG_RETENTION_DAYS=5
)
def test_each_age_comes_from_its_setting(table: Table) -> None:
    one_of_each_on_both_sides(table, days=5)
    events = CampaignEventLog.objects.filter(campaign=table.campaign).order_by("seq")
    newest = events.last()
    assert newest is not None
    events.exclude(pk=newest.pk).update(created_at=timezone.now() - 6 * DAY)
    old_events = events.count() - 1
    assert trim_expired(timezone.now()) == Trimmed(tasks=1, deliveries=1, notifications=1, events=old_events)
    assert set(QueuedTask.objects.values_list("id", flat=True)) == {"task-young"}
    assert set(Delivery.objects.values_list("key", flat=True)) == {"delivery-young"}
    assert set(Notification.objects.filter(key__startswith="note-").values_list("key", flat=True)) == {"note-young"}
    assert list(events.values_list("pk", flat=True)) == [newest.pk]  # what a reconnecting client resyncs from


def test_with_the_default_ages_rows_of_a_few_days_stay(table: Table) -> None:
    one_of_each_on_both_sides(table, days=3)  # finished or read three and four days ago: all kept
    assert trim_expired(timezone.now()) == Trimmed(tasks=0, deliveries=0, notifications=0, events=0)


@override_settings(TASK_RETENTION_DAYS=5, DELIVERY_RETENTION_DAYS=5, NOTIFICATION_RETENTION_DAYS=5)
def test_the_task_and_the_cron_command_trim_the_same(table: Table) -> None:
    one_of_each_on_both_sides(table, days=5)
    assert trim_expired_rows.call() == {"tasks": 1, "deliveries": 1, "notifications": 1, "events": 0}
    out = io.StringIO()
    call_command("trim_expired", stdout=out)
    assert out.getvalue().strip() == (
        "Deleted 0 finished tasks, 0 sent deliveries, 0 read notifications and 0 live events."
    )


@pytest.mark.parametrize("name", ["TASK_RETENTION_DAYS", "DELIVERY_RETENTION_DAYS", "NOTIFICATION_RETENTION_DAYS"])
def test_a_retention_under_a_day_is_refused_at_start(name: str) -> None:
    # Under a day, a nudge's row (what stops a second nudge the same day) could go the day it was read.
    env = {**os.environ, name: "0", "DJANGO_SETTINGS_MODULE": "tintero.settings"}
    started = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert started.returncode != 0
    assert f"{name} must be at least 1 (days)" in started.stderr
