"""Mail of notifications: a delivery's message, its signed unsubscribe link, and the idempotent send (of
mail, and of Web Push messages through ``notifications.push``).

Sending is claimed before and marked after (``Delivery.status``): a retried task, a replayed one, or two
workers racing never send a delivery twice while its claim is live; a failure is retried with a growing
delay. A claim left ``sending`` past ``NOTIFICATION_SENDING_TIMEOUT`` (its worker was killed) is sent again:
at least once, and every send of a delivery carries the same Message-ID, so a resend is recognizable.
"""

from __future__ import annotations

import logging
import unicodedata
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMessage
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from campaigns import policy
from campaigns.models import Campaign, Invitation, RequestStatus
from notifications import catalogue
from notifications.models import Channel, Delivery, DeliveryStatus, Kind, Notification

logger = logging.getLogger(__name__)

UNSUBSCRIBE_SALT = "notifications.unsubscribe"


def absolute(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def unsubscribe_token(user_id: int, campaign_id: int) -> str:
    return signing.dumps({"u": user_id, "c": campaign_id}, salt=UNSUBSCRIBE_SALT)


class UnsubscribeLinkExpired(Exception):
    """A genuine unsubscribe link older than ``NOTIFICATION_UNSUBSCRIBE_DAYS``."""


def read_unsubscribe_token(token: str) -> tuple[int, int] | None:
    """The (user, campaign) a link was signed for; None when it was tampered with; UnsubscribeLinkExpired
    when it is genuine but old (a mail forwarded or leaked long ago no longer changes anyone's choices)."""
    try:
        data = signing.loads(
            token, salt=UNSUBSCRIBE_SALT, max_age=timedelta(days=settings.NOTIFICATION_UNSUBSCRIBE_DAYS)
        )
    except signing.SignatureExpired:
        raise UnsubscribeLinkExpired from None
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int) or not isinstance(data.get("c"), int):
        return None
    return data["u"], data["c"]


def unsubscribe_url(user_id: int, campaign_id: int) -> str:
    return absolute(reverse("notifications:unsubscribe", args=[unsubscribe_token(user_id, campaign_id)]))


def _lines(notes: list[Notification]) -> list[str]:
    lines = []
    for n in notes:
        lines.append(f"- {catalogue.sentence(n)}")
        quote = catalogue.excerpt(n)
        if quote:
            lines.append(f"  «{quote}»")
        lines.append(f"  {absolute(catalogue.link(n))}")
    return lines


def header_text(value: str, max_length: int = 200) -> str:
    """Text made safe for a mail header: every run of whitespace (line breaks included) becomes one space,
    other control characters go, so a title saved before titles were refused one (or any name) can never
    raise BadHeaderError or inject a header."""
    printable = "".join(
        (" " if char.isspace() else "") if unicodedata.category(char) in {"Cc", "Zl", "Zp"} else char for char in value
    )
    return " ".join(printable.split())[:max_length]


def message(delivery: Delivery, notes: list[Notification]) -> EmailMessage:
    """The mail of a delivery, in the campaign's language. ``notes``: what its recipient may still read."""
    campaign: Campaign = delivery.campaign
    with translation.override(campaign.language):
        if delivery.key.startswith("digest:"):
            subject = _("[Tintero] %(campaign)s: resumen del día") % {"campaign": campaign.title}
        else:
            subject = f"[Tintero] {campaign.title}: {catalogue.sentence(notes[0])}"
        unsubscribe = unsubscribe_url(delivery.user_id, campaign.pk)
        body = "\n".join(
            [
                *_lines(notes),
                "",
                _("Tus avisos: %(url)s") % {"url": absolute(reverse("notifications:inbox"))},
                _("No recibir más correos de esta partida: %(url)s") % {"url": unsubscribe},
            ]
        )
    return EmailMessage(
        subject=header_text(subject),
        body=body,
        to=[delivery.user.email],
        headers={
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Message-ID": message_id(delivery),
        },
    )


def message_id(delivery: Delivery) -> str:
    """The same for every send of one delivery: a mail resent after a worker died mid-send is recognizably
    the same message (mail clients and servers drop the duplicate)."""
    domain = urlsplit(settings.SITE_URL).hostname or "localhost"
    return f"<delivery.{delivery.pk}@{domain}>"


def _still_told(delivery: Delivery) -> list[Notification]:
    viewer = policy.viewer_for(delivery.user, delivery.campaign)
    notes = delivery.notifications.all()
    if not policy.may_view_campaign(viewer):
        # Only a still pending invitation speaks to someone outside a private campaign.
        invited = Invitation.objects.filter(
            campaign_id=delivery.campaign_id, user_id=delivery.user_id, status=RequestStatus.PENDING
        ).exists()
        if not policy.still_told(viewer, invited=invited):
            return []
        notes = notes.filter(kind=Kind.INVITATION)
    readable = policy.notification_still_readable_q(delivery.user_id)
    return list(notes.filter(readable).select_related("campaign").order_by("id"))


def stuck_q(now: datetime) -> Q:
    """Deliveries left ``sending`` longer than ``NOTIFICATION_SENDING_TIMEOUT`` (their worker was killed
    mid-send) with attempts left: they are sent again."""
    stale_before = now - timedelta(seconds=settings.NOTIFICATION_SENDING_TIMEOUT)
    return Q(
        status=DeliveryStatus.SENDING,
        claimed_at__lt=stale_before,
        attempts__lt=settings.NOTIFICATION_MAIL_ATTEMPTS,
    )


def _claim(delivery_id: int) -> bool:
    """Mark before: only one runner moves a delivery to ``sending`` (one conditional UPDATE); everyone else
    leaves it alone. A mail held by quiet hours is not claimed before they end. A claim older than
    ``NOTIFICATION_SENDING_TIMEOUT`` is taken over: at least once, and a resend carries the same Message-ID."""
    now = timezone.now()
    claimable = Q(status__in=[DeliveryStatus.PENDING, DeliveryStatus.FAILED]) | stuck_q(now)
    return bool(
        Delivery.objects.filter(claimable, pk=delivery_id)
        .exclude(not_before__gt=now)
        .update(status=DeliveryStatus.SENDING, attempts=F("attempts") + 1, claimed_at=now)
    )


def send_delivery(delivery_id: int) -> str:
    """Send one delivery at most once. Returns what happened (for the task's result)."""
    if not _claim(delivery_id):
        return "skipped"
    delivery = Delivery.objects.select_related("user", "campaign", "push_subscription").get(pk=delivery_id)
    notes = _still_told(delivery)
    # Checked again at sending: the address may have been removed since the delivery was scheduled.
    if not notes or (delivery.channel == Channel.EMAIL and not delivery.user.email_verified):
        return _abandon(delivery_id, "nothing to tell")
    try:
        if delivery.channel == Channel.PUSH:
            from notifications import push

            if delivery.push_subscription is None:
                return _abandon(delivery_id, "the browser was forgotten")
            try:
                push.send(delivery.push_subscription, notes)
            except (push.EndpointRefused, push.PushGone) as refused:  # retrying would not change the answer
                return _abandon(delivery_id, str(refused))
        else:
            message(delivery, notes).send()
    except Exception as exc:  # any transport failure: retry later, never lose or duplicate the mail
        logger.warning("delivery %s failed (attempt %s): %s", delivery_id, delivery.attempts, exc)
        retry = delivery.attempts < settings.NOTIFICATION_MAIL_ATTEMPTS
        Delivery.objects.filter(pk=delivery_id).update(
            status=DeliveryStatus.FAILED if retry else DeliveryStatus.ABANDONED, last_error=str(exc)[:300]
        )
        if retry:
            _retry(delivery_id, delivery.attempts)
        return "failed"
    Delivery.objects.filter(pk=delivery_id).update(status=DeliveryStatus.SENT, sent_at=timezone.now())
    return "sent"


def _abandon(delivery_id: int, reason: str) -> str:
    Delivery.objects.filter(pk=delivery_id).update(status=DeliveryStatus.ABANDONED, last_error=reason[:300])
    return "abandoned"


def _retry(delivery_id: int, attempts: int) -> None:
    from notifications import tasks

    task = tasks.send_delivery
    if task.get_backend().supports_defer:
        task = task.using(run_after=timezone.now() + timedelta(seconds=30 * 2**attempts))
    task.enqueue(delivery_id)
