"""How long the live-event log keeps its rows, and what a resync from before that means.

The log exists so a reconnecting client catches up; a client away for longer than
``settings.EVENT_LOG_RETENTION_DAYS`` reloads what it shows instead (the resync endpoint answers
``"reset": true``). Each campaign's newest event is always kept, whatever its age: its seq marks where
the log ends, so "what was trimmed" stays answerable from the log alone. (The numbers themselves come
from ``CampaignSequence``, which trimming never touches, so a seq is never handed out twice.)
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, OuterRef, Subquery
from django.utils import timezone

from campaigns.models import CampaignEventLog

# Rows deleted per statement: short transactions, so publishers never wait long on the log table.
TRIM_BATCH = 5_000


def retention_cutoff(now: datetime, days: int | None = None) -> datetime:
    """Events logged before this moment may go."""
    keep_days = settings.EVENT_LOG_RETENTION_DAYS if days is None else days
    if keep_days < 0:
        raise ValueError("the retention must be zero days or more")
    return now - timedelta(days=keep_days)


def trim_event_log(now: datetime, days: int | None = None) -> int:
    """Delete the events older than the retention, never a campaign's newest one. Returns how many went."""
    cutoff = retention_cutoff(now, days)
    newest_of_campaign = (
        CampaignEventLog.objects.filter(campaign_id=OuterRef("campaign_id"))
        .order_by(F("seq").desc(nulls_last=True))
        .values("seq")[:1]
    )
    expired = CampaignEventLog.objects.filter(created_at__lt=cutoff, seq__lt=Subquery(newest_of_campaign))
    deleted = 0
    while True:
        with transaction.atomic():
            batch = list(expired.order_by("pk").values_list("pk", flat=True)[:TRIM_BATCH])
            if not batch:
                return deleted
            deleted += CampaignEventLog.objects.filter(pk__in=batch).delete()[0]


def resync_needs_reset(campaign_id: int, after: int, since: datetime | None = None) -> bool:
    """Would the events the client asks for start before the oldest one kept? Then it must reload instead.

    The log has no holes (a seq is taken and written to its row in one transaction), so events
    ``after+1 .. oldest-1`` are exactly the trimmed ones. With ``since`` (a page's render time), the
    trimmed events were all logged before the oldest kept one and before the retention's cutoff: a
    ``since`` later than either of those missed none.
    """
    log = CampaignEventLog.objects.filter(campaign_id=campaign_id, seq__isnull=False)
    oldest = log.order_by("seq").values("seq", "created_at").first()
    if oldest is None or oldest["seq"] is None or oldest["seq"] <= 1:
        return False  # nothing was ever trimmed
    if since is not None:
        return since < oldest["created_at"] and since < retention_cutoff(timezone.now())
    return after < oldest["seq"] - 1


__all__ = ["TRIM_BATCH", "resync_needs_reset", "retention_cutoff", "trim_event_log"]
