"""Sent mail and read notifications are trimmed after their retention; what may still be needed is not."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns import services as campaign_services
from campaigns.models import Post, Scene, SceneReadMark, Voice
from notifications import services
from notifications.models import Delivery, DeliveryStatus, Kind, Notification
from notifications.retention import trim_read_notifications, trim_sent_deliveries
from tests.personas import Table

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def note(table: Table, key: str, **fields: Any) -> Notification:
    updated_at = fields.pop("updated_at", None)
    row = Notification.objects.create(user=table.player, campaign=table.campaign, key=key, **fields)
    if updated_at is not None:  # auto_now: only an update() sets it in the past
        Notification.objects.filter(pk=row.pk).update(updated_at=updated_at)
    return row


def delivery(table: Table, key: str, status: str, sent_at: Any = None, notes: Any = ()) -> Delivery:
    row = Delivery.objects.create(key=key, user=table.player, campaign=table.campaign, status=status, sent_at=sent_at)
    row.notifications.set(notes)
    return row


def keys(model: type[Notification] | type[Delivery]) -> set[str]:
    return set(model.objects.values_list("key", flat=True))


def test_sent_deliveries_go_after_their_age_unsent_ones_never(table: Table) -> None:
    now = timezone.now()
    cutoff = now - 30 * DAY
    delivery(table, "sent-long-ago", DeliveryStatus.SENT, sent_at=cutoff - DAY)
    delivery(table, "sent-lately", DeliveryStatus.SENT, sent_at=cutoff + DAY)
    for status in (DeliveryStatus.PENDING, DeliveryStatus.SENDING, DeliveryStatus.FAILED, DeliveryStatus.ABANDONED):
        old = delivery(table, f"{status}-old", status)
        Delivery.objects.filter(pk=old.pk).update(created_at=now - 400 * DAY)
    assert trim_sent_deliveries(cutoff) == 1
    assert keys(Delivery) == {"sent-lately", "pending-old", "sending-old", "failed-old", "abandoned-old"}


def test_read_notifications_go_after_their_age_unread_ones_never(table: Table) -> None:
    now = timezone.now()
    cutoff = now - 90 * DAY
    note(table, "read-long-ago", kind=Kind.MENTION, read_at=cutoff - DAY)
    note(table, "read-lately", kind=Kind.MENTION, read_at=cutoff + DAY, updated_at=now - 300 * DAY)
    note(table, "unread-old", kind=Kind.MENTION, updated_at=now - 300 * DAY)
    Notification.objects.update(created_at=now - 300 * DAY)
    assert trim_read_notifications(cutoff) == 1
    assert keys(Notification) == {"read-lately", "unread-old"}


def test_a_batch_read_in_its_scene_counts_as_read_from_its_last_change(table: Table) -> None:
    now = timezone.now()
    cutoff = now - 90 * DAY
    post = Post.objects.filter(scene=table.scene).order_by("-id").first()
    assert post is not None
    fields = {"kind": Kind.NEW_POSTS, "scene": table.scene, "post": post}
    note(table, "caught-up-long-ago", updated_at=cutoff - DAY, **fields)
    note(table, "caught-up-lately", updated_at=cutoff + DAY, **fields)
    other = Scene.objects.exclude(pk=table.scene.pk).filter(campaign=table.campaign).first()
    note(table, "never-read", kind=Kind.NEW_POSTS, scene=other, post=post, updated_at=cutoff - DAY)
    SceneReadMark.objects.filter(user=table.player, scene=other).delete()
    SceneReadMark.objects.update_or_create(
        user=table.player, scene=table.scene, defaults={"last_read_post_id": post.pk}
    )
    assert trim_read_notifications(cutoff) == 1
    assert keys(Notification) == {"caught-up-lately", "never-read"}


def test_a_read_notification_in_unsent_mail_stays_until_the_mail_is_sent(table: Table) -> None:
    cutoff = timezone.now() - 90 * DAY
    waiting = note(table, "in-pending-mail", kind=Kind.MENTION, read_at=cutoff - DAY)
    done = note(table, "in-sent-mail", kind=Kind.MENTION, read_at=cutoff - DAY)
    delivery(table, "digest-pending", DeliveryStatus.PENDING, notes=(waiting,))
    delivery(table, "digest-sent", DeliveryStatus.SENT, sent_at=timezone.now(), notes=(done,))
    assert trim_read_notifications(cutoff) == 1
    assert keys(Notification) == {"in-pending-mail"}
    assert Delivery.objects.get(key="digest-pending").notifications.get() == waiting


def test_a_trimmed_reminder_is_not_sent_again_for_the_same_silence(table: Table) -> None:
    services.set_reminder(actor=table.gm, campaign=table.campaign, days=3)
    campaign_services.create_post(author=table.player, scene=table.scene, body="Mi turno", voice=Voice.OOC)
    long_ago = timezone.now() - 200 * DAY
    Post.objects.filter(scene=table.scene).update(created_at=long_ago)
    Scene.objects.filter(pk=table.scene.pk).update(created_at=long_ago)
    assert services.send_reminders() >= 1
    reminded = Notification.objects.filter(kind=Kind.REMINDER, scene=table.scene)
    told = reminded.count()
    reminded.update(read_at=long_ago)  # read long ago; the scene is still silent
    assert trim_read_notifications(timezone.now() - 90 * DAY) == 0
    assert services.send_reminders() == 0
    assert reminded.count() == told

    # The silence ends: the old reminder may go.
    campaign_services.create_post(author=table.player2, scene=table.scene, body="Y el mío", voice=Voice.OOC)
    assert trim_read_notifications(timezone.now() - 90 * DAY) == told
    assert not reminded.exists()


STATUSES = tuple(DeliveryStatus.values)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    deliveries=st.lists(st.tuples(st.sampled_from(STATUSES), st.integers(-3, 3)), max_size=6),
    notes=st.lists(st.tuples(st.booleans(), st.integers(-3, 3), st.booleans()), max_size=6),
)
def test_property_only_sent_mail_and_read_notifications_past_the_age_go(
    table: Table, deliveries: list[tuple[str, int]], notes: list[tuple[bool, int, bool]]
) -> None:
    """Whatever the mix: a delivery goes iff it was sent before the cutoff; a notification goes iff it was
    read before the cutoff and no unsent delivery shows it."""
    Delivery.objects.all().delete()
    Notification.objects.all().delete()
    cutoff = timezone.now() - 30 * DAY
    written = [
        note(table, f"n{i}", kind=Kind.MENTION, read_at=cutoff + days * DAY if read else None)
        for i, (read, days, _) in enumerate(notes)
    ]
    unsent = DeliveryStatus.PENDING
    for i, (_read, _days, in_unsent_mail) in enumerate(notes):
        if in_unsent_mail:
            delivery(table, f"holds-n{i}", unsent, notes=(written[i],))
    for i, (status, days) in enumerate(deliveries):
        sent_at = cutoff + days * DAY if status == DeliveryStatus.SENT else None
        delivery(table, f"d{i}", status, sent_at=sent_at, notes=written[:1])
    trim_read_notifications(cutoff)
    trim_sent_deliveries(cutoff)
    assert keys(Delivery) == {
        f"d{i}" for i, (status, days) in enumerate(deliveries) if not (status == DeliveryStatus.SENT and days < 0)
    } | {f"holds-n{i}" for i, (_r, _d, held) in enumerate(notes) if held}
    first_in_unsent = bool(notes) and any(status != DeliveryStatus.SENT for status, _days in deliveries)
    assert keys(Notification) == {
        f"n{i}"
        for i, (read, days, held) in enumerate(notes)
        if not (read and days < 0) or held or (i == 0 and first_in_unsent)
    }
