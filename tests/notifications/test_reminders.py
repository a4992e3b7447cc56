"""Nudges and the automatic reminder after N days of silence."""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from campaigns import services as campaign_services
from campaigns.models import Post
from notifications import services
from notifications.models import CampaignReminder, Kind
from tests.personas import PASSWORD, Table

pytestmark = pytest.mark.django_db


def _told(table: Table, kind: str) -> set[str]:
    return {r for r in ("gm", "player", "player2", "reader") if table.user(r).notifications.filter(kind=kind).exists()}  # type: ignore[union-attr]


def test_a_nudge_reaches_only_players_who_owe_a_post(mail_table: Table, run_tasks: Any) -> None:
    with run_tasks(execute=True):
        campaign_services.create_post(author=mail_table.player, scene=mail_table.scene, body="Mi turno")
    services.nudge(actor=mail_table.gm, scene=mail_table.scene)
    assert _told(mail_table, Kind.NUDGE) == {"player2"}  # player wrote last; readers owe nothing
    services.nudge(actor=mail_table.gm, scene=mail_table.listed_scene)
    assert mail_table.player.notifications.filter(kind=Kind.NUDGE, scene=mail_table.listed_scene).exists()
    assert not mail_table.player2.notifications.filter(kind=Kind.NUDGE, scene=mail_table.listed_scene).exists()
    with pytest.raises(PermissionDenied):
        services.nudge(actor=mail_table.player, scene=mail_table.scene)


def test_nobody_to_nudge_is_a_clear_error(mail_table: Table) -> None:
    with pytest.raises(ValidationError):
        services.nudge(actor=mail_table.gm, scene=mail_table.scene, user_ids=[mail_table.reader.pk])


def test_the_reminder_comes_after_the_days_of_silence_once(mail_table: Table, run_tasks: Any) -> None:
    services.set_reminder(actor=mail_table.gm, campaign=mail_table.campaign, days=3)
    with run_tasks(execute=True):
        post = campaign_services.create_post(author=mail_table.player, scene=mail_table.scene, body="Mi turno")
    assert services.send_reminders() == 0  # not silent long enough
    Post.objects.filter(scene=mail_table.scene).update(created_at=timezone.now() - timedelta(days=4))
    mail_table.scene.__class__.objects.filter(pk=mail_table.scene.pk).update(
        created_at=timezone.now() - timedelta(days=5)
    )
    call_command("send_reminders", stdout=io.StringIO())
    assert "player2" in _told(mail_table, Kind.REMINDER)
    assert not mail_table.player.notifications.filter(kind=Kind.REMINDER, scene=mail_table.scene).exists()
    before = mail_table.player2.notifications.filter(kind=Kind.REMINDER).count()
    assert services.send_reminders() == 0  # the same silence: told once
    assert mail_table.player2.notifications.filter(kind=Kind.REMINDER).count() == before
    assert post.pk


def test_the_reminder_is_set_by_gms_only(mail_table: Table) -> None:
    with pytest.raises(PermissionDenied):
        services.set_reminder(actor=mail_table.player, campaign=mail_table.campaign, days=2)
    with pytest.raises(ValidationError):
        services.set_reminder(actor=mail_table.gm, campaign=mail_table.campaign, days=61)
    gm = Client()
    gm.login(username=mail_table.gm.username, password=PASSWORD)
    page = gm.get("/avisos/").content.decode()
    assert f"/avisos/partidas/{mail_table.campaign.pk}/recordatorio/" in page
    gm.post(f"/avisos/partidas/{mail_table.campaign.pk}/recordatorio/", {"days": "5"})
    assert CampaignReminder.objects.get(campaign=mail_table.campaign).days == 5
    player = Client()
    player.login(username=mail_table.player.username, password=PASSWORD)
    assert "/recordatorio/" not in player.get("/avisos/").content.decode()
    player.post(f"/avisos/partidas/{mail_table.campaign.pk}/recordatorio/", {"days": "1"})
    assert CampaignReminder.objects.get(campaign=mail_table.campaign).days == 5
