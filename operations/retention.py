"""What the site trims, after how long: one pass over every table that only grows.

- finished tasks: ``TASK_RETENTION_DAYS`` after they finished (ready and running ones stay);
- sent mail and push deliveries: ``DELIVERY_RETENTION_DAYS`` after they were sent (pending, failing,
  stuck and abandoned ones stay);
- read notifications: ``NOTIFICATION_RETENTION_DAYS`` after they were read (unread ones stay, and what
  ``notifications.retention`` keeps);
- live events: ``EVENT_LOG_RETENTION_DAYS`` (each campaign's newest stays: ``campaigns.retention``).

The task worker runs it every hour (``trim_expired_rows``); without a worker, ``manage.py trim_expired``
from cron does the same.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from django.conf import settings

from campaigns.retention import trim_event_log
from notifications.retention import trim_read_notifications, trim_sent_deliveries
from taskqueue.backend import trim_finished


@dataclass(frozen=True)
class Trimmed:
    """How many rows of each kind one pass deleted."""

    tasks: int
    deliveries: int
    notifications: int
    events: int

    def as_json(self) -> dict[str, int]:
        return asdict(self)


def trim_expired(now: datetime) -> Trimmed:
    """Delete every row past its retention (the settings in the module's table)."""

    def cutoff(days: int) -> datetime:
        return now - timedelta(days=days)

    return Trimmed(
        tasks=trim_finished(cutoff(settings.TASK_RETENTION_DAYS)),
        deliveries=trim_sent_deliveries(cutoff(settings.DELIVERY_RETENTION_DAYS)),
        notifications=trim_read_notifications(cutoff(settings.NOTIFICATION_RETENTION_DAYS)),
        events=trim_event_log(now),
    )


__all__ = ["Trimmed", "trim_expired"]
