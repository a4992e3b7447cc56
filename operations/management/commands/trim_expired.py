"""``manage.py trim_expired``: delete what is past its retention, for sites that run no task worker."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.utils import timezone

from operations.retention import trim_expired


class Command(BaseCommand):
    # No --days override on purpose: a resync by time trusts that nothing newer than
    # EVENT_LOG_RETENTION_DAYS was ever trimmed (campaigns.retention.resync_needs_reset).
    help = (
        "Delete finished tasks, sent deliveries, read notifications and live events older than their "
        "retention settings (README, Operations). The task worker does it hourly; without one, run this "
        "daily from cron."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        trimmed = trim_expired(timezone.now())
        self.stdout.write(
            f"Deleted {trimmed.tasks} finished tasks, {trimmed.deliveries} sent deliveries, "
            f"{trimmed.notifications} read notifications and {trimmed.events} live events."
        )
