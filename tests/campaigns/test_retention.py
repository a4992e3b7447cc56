"""The live-event log: what ``update_campaign`` logs, how long the log keeps events, and resync past it."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from campaigns import services
from campaigns.events import last_seq
from campaigns.models import CampaignEventLog, Visibility, Voice
from campaigns.retention import retention_cutoff, trim_event_log
from tests.personas import Table

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("live_events_at_once")]

DAY = timedelta(days=1)


def seqs(table: Table) -> list[int]:
    return list(CampaignEventLog.objects.filter(campaign=table.campaign).order_by("seq").values_list("seq", flat=True))


def age_events(table: Table, days: float, up_to_seq: int | None = None) -> None:
    """Pretend the campaign's events (up to ``up_to_seq``) were logged ``days`` ago."""
    rows = CampaignEventLog.objects.filter(campaign=table.campaign)
    if up_to_seq is not None:
        rows = rows.filter(seq__lte=up_to_seq)
    rows.update(created_at=timezone.now() - timedelta(days=days))


def post(table: Table, body: str = "x") -> None:
    services.create_post(author=table.gm, scene=table.offtopic, body=body, voice=Voice.OOC)


# --- campaign.changed in the log ----------------------------------------------------------------------


def test_update_campaign_logs_what_changed_for_whom(table: Table) -> None:
    before = last_seq(table.campaign.pk)
    services.update_campaign(actor=table.gm, campaign=table.campaign, visibility=Visibility.PRIVATE, synopsis="Nueva")
    services.update_campaign(actor=table.gm, campaign=table.campaign, gm_notes="secreto")
    services.update_campaign(actor=table.gm, campaign=table.campaign, synopsis="Nueva")  # nothing changed
    rows = list(
        CampaignEventLog.objects.filter(campaign=table.campaign, seq__gt=before).values_list("type", "data", "audience")
    )
    assert [(t, d, a["public"], a["gms_only"]) for t, d, a in rows] == [
        ("campaign.changed", {"fields": ["synopsis", "visibility"], "visibility": "private"}, True, False),
        ("campaign.changed", {"fields": ["gm_notes"], "visibility": "private"}, False, True),
    ]


def test_a_refused_update_logs_nothing(table: Table) -> None:
    before = last_seq(table.campaign.pk)
    with pytest.raises(PermissionDenied):
        services.update_campaign(actor=table.player, campaign=table.campaign, visibility=Visibility.PRIVATE)
    assert last_seq(table.campaign.pk) == before


# --- Trimming -------------------------------------------------------------------------------------------


def test_trim_deletes_old_events_and_keeps_recent_ones(table: Table) -> None:
    first_recent = last_seq(table.campaign.pk) + 1
    age_events(table, 31)
    post(table)
    post(table)
    assert trim_event_log(timezone.now()) == first_recent - 1
    assert seqs(table) == [first_recent, first_recent + 1]


def test_trim_keeps_each_campaigns_newest_event_and_the_sequence_goes_on(table: Table, private_table: Table) -> None:
    newest = {t.campaign.pk: last_seq(t.campaign.pk) for t in (table, private_table)}
    age_events(table, 400)
    age_events(private_table, 400)
    trim_event_log(timezone.now())
    for t in (table, private_table):
        assert seqs(t) == [newest[t.campaign.pk]]
    assert trim_event_log(timezone.now()) == 0  # the newest stays, however old
    post(table)
    assert seqs(table) == [newest[table.campaign.pk], newest[table.campaign.pk] + 1]


def test_trim_follows_the_setting(table: Table) -> None:
    newest = last_seq(table.campaign.pk)
    age_events(table, 10)
    with override_settings(EVENT_LOG_RETENTION_DAYS=30):
        assert trim_event_log(timezone.now()) == 0
    with override_settings(EVENT_LOG_RETENTION_DAYS=7):
        assert trim_event_log(timezone.now()) == newest - 1
    assert seqs(table) == [newest]


def test_default_retention_is_thirty_days() -> None:
    from django.conf import settings

    now = timezone.now()
    assert settings.EVENT_LOG_RETENTION_DAYS == 30
    assert retention_cutoff(now) == now - 30 * DAY
    with pytest.raises(ValueError):
        retention_cutoff(now, -1)


def test_trim_in_batches(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("campaigns.retention.TRIM_BATCH", 2)
    newest = last_seq(table.campaign.pk)
    age_events(table, 31)
    assert trim_event_log(timezone.now()) == newest - 1
    assert seqs(table) == [newest]


def test_command_trims_and_reports(table: Table) -> None:
    newest = last_seq(table.campaign.pk)
    age_events(table, 5)
    out = StringIO()
    call_command("trim_event_log", stdout=out)
    assert "Deleted 0 " in out.getvalue()
    with override_settings(EVENT_LOG_RETENTION_DAYS=3):
        call_command("trim_event_log", stdout=out)
    assert f"Deleted {newest - 1} live events older than 3 days." in out.getvalue()
    assert seqs(table) == [newest]


# --- Resync past the log --------------------------------------------------------------------------------


def resync(table: Table, user: User, **params: Any) -> dict[str, Any]:
    client = APIClient()
    client.force_authenticate(user)
    response = client.get(f"/api/campaigns/{table.campaign.pk}/events/", params)
    assert response.status_code == 200, response.content
    return response.json()


def test_resync_from_before_the_log_answers_reset(table: Table) -> None:
    trimmed_up_to = last_seq(table.campaign.pk)
    age_events(table, 31)
    post(table, "kept 1")
    post(table, "kept 2")
    trim_event_log(timezone.now())
    newest = last_seq(table.campaign.pk)
    body = resync(table, table.player, after=1)
    assert body == {"events": [], "seq": newest, "last_seq": newest, "more": False, "reset": True}
    # From exactly where the log starts: the events, as before.
    body = resync(table, table.player, after=trimmed_up_to)
    assert [e["seq"] for e in body["events"]] == [newest - 1, newest] and body["reset"] is False


def test_resync_since_before_the_log_answers_reset(table: Table) -> None:
    rendered = int((timezone.now() - 40 * DAY).timestamp())
    age_events(table, 35)
    post(table)
    trim_event_log(timezone.now())
    assert resync(table, table.player, since=rendered)["reset"] is True
    # Rendered after every trimmed event (older than the cutoff), though before the oldest one kept.
    just_now = int((timezone.now() - timedelta(minutes=1)).timestamp())
    body = resync(table, table.player, since=just_now)
    assert body["reset"] is False and len(body["events"]) == 1


def test_resync_since_after_the_oldest_kept_event_is_whole(table: Table) -> None:
    age_events(table, 45)
    trim_event_log(timezone.now())  # only the newest, 45 days old, is left
    post(table)
    body = resync(table, table.player, since=int((timezone.now() - 44 * DAY).timestamp()))
    assert body["reset"] is False and len(body["events"]) == 1


def test_an_untrimmed_log_never_resets(table: Table) -> None:
    body = resync(table, table.gm, after=0)
    assert body["reset"] is False
    assert [e["seq"] for e in body["events"]] == list(range(1, last_seq(table.campaign.pk) + 1))


def test_trimming_only_the_oldest_events_keeps_later_resyncs_whole(table: Table) -> None:
    middle = last_seq(table.campaign.pk) // 2
    age_events(table, 31, up_to_seq=middle)
    trim_event_log(timezone.now())
    assert seqs(table)[0] == middle + 1
    assert resync(table, table.gm, after=middle - 1)["reset"] is True
    assert resync(table, table.gm, after=middle)["reset"] is False
