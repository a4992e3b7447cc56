from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils import timezone

from campaigns.retention import trim_event_log


class Command(BaseCommand):
    # No --days override on purpose: a resync by time (``since``) trusts that nothing newer than the
    # setting's cutoff was ever trimmed (campaigns.retention.resync_needs_reset).
    help = (
        "Delete live events older than EVENT_LOG_RETENTION_DAYS (each campaign keeps its newest one). "
        "Run it daily, e.g. from cron."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        deleted = trim_event_log(timezone.now())
        self.stdout.write(f"Deleted {deleted} live events older than {settings.EVENT_LOG_RETENTION_DAYS} days.")
