"""The background work of notifications, through Django's tasks interface (``django_tasks``).

Every task is safe to run twice: notifications are unique per ``(user, key)``, and a delivery is claimed
(``pending``/``failed`` to ``sending``) by one conditional UPDATE before its mail leaves, then marked
``sent``. A worker that dies between the two leaves it ``sending``: once that claim is older than
``NOTIFICATION_SENDING_TIMEOUT`` it is sent again (at least once; the resend has the same Message-ID).
"""

from __future__ import annotations

from django_tasks import task

from notifications import mail, services


@task()
def notify_event(log_id: int) -> int:
    """Write the notifications of one logged campaign event."""
    return services.notify_event(log_id)


@task()
def send_delivery(delivery_id: int) -> str:
    """Send one delivery's mail, retried on failure (up to ``NOTIFICATION_MAIL_ATTEMPTS``)."""
    return mail.send_delivery(delivery_id)


@task()
def send_digests() -> int:
    """Queue today's digests (daily mode)."""
    return len(services.schedule_digests())


@task()
def send_reminders() -> int:
    """The campaigns' automatic reminders after days of silence."""
    return services.send_reminders()


@task()
def send_held_deliveries() -> int:
    """Mail held by quiet hours, once they are over."""
    return services.send_held_deliveries()


@task()
def retry_stuck_deliveries() -> int:
    """Mail whose worker died mid-send, once its claim is stale."""
    return services.retry_stuck_deliveries()
