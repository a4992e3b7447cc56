"""How long sent mail and read notifications are kept (``DELIVERY_RETENTION_DAYS``,
``NOTIFICATION_RETENTION_DAYS``), and what is kept whatever its age.

A delivery row is the proof that its mail went out (its key is unique), and a notification row is the
proof that its user was told (unique per user and key). Trimming one must never make the site send or tell
again, so only rows nothing can recreate go: sent deliveries (their notifications are never scheduled
again), and read notifications except those a pending, failing or stuck delivery still shows, and a
reminder whose silence is not over (``send_reminders`` would write it again, keyed by the scene's last post).
Unread notifications and unsent deliveries stay, however old.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import CharField, Exists, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Cast, Coalesce, Concat

from campaigns.models import Post
from notifications.models import Delivery, DeliveryStatus, Kind, Notification
from notifications.selectors import caught_up_q

# Rows deleted per statement: short transactions, so the notification writers never wait long.
TRIM_BATCH = 5_000


def _delete_in_batches(expired: QuerySet[Delivery] | QuerySet[Notification]) -> int:
    deleted = 0
    while True:
        with transaction.atomic():
            batch = list(expired.order_by("pk").values_list("pk", flat=True)[:TRIM_BATCH])
            if not batch:
                return deleted
            # Counts the deleted rows of this model only (not the links that cascade with them).
            deleted += expired.model.objects.filter(pk__in=batch).delete()[1].get(expired.model._meta.label, 0)


def trim_sent_deliveries(before: datetime) -> int:
    """Delete the deliveries sent before ``before``. Returns how many went."""
    return _delete_in_batches(Delivery.objects.filter(status=DeliveryStatus.SENT, sent_at__lt=before))


def _current_reminder_key() -> Concat:
    """The key ``send_reminders`` gives a reminder about the notification's scene now."""
    last_post = Post.objects.filter(scene_id=OuterRef("scene_id"), deleted_at__isnull=True).order_by("-id")
    return Concat(
        Value("reminder:"),
        Cast("scene_id", CharField()),
        Value(":"),
        Cast(Coalesce(Subquery(last_post.values("id")[:1]), 0), CharField()),
        output_field=CharField(),
    )


def trim_read_notifications(before: datetime) -> int:
    """Delete the notifications read before ``before`` (a batch of new posts counts as read once its
    scene was read past it: its last change is then the moment), except what the module keeps. Returns how
    many went."""
    read_long_ago = Q(read_at__lt=before) | (Q(read_at__isnull=True) & caught_up_q() & Q(updated_at__lt=before))
    in_unsent_mail = Exists(
        Delivery.notifications.through.objects.filter(notification_id=OuterRef("pk")).exclude(
            delivery__status=DeliveryStatus.SENT
        )
    )
    expired = (
        Notification.objects.filter(read_long_ago)
        .exclude(in_unsent_mail)
        .exclude(Q(kind=Kind.REMINDER) & Q(key=_current_reminder_key()))
    )
    return _delete_in_batches(expired)


__all__ = ["TRIM_BATCH", "trim_read_notifications", "trim_sent_deliveries"]
