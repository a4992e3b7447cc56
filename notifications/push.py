"""Web Push: the payload a browser receives for a notification, whether push is configured, and sending.

Push needs VAPID keys from the environment (``VAPID_PUBLIC_KEY``, ``VAPID_PRIVATE_KEY``,
``VAPID_SUBJECT``); without them it is disabled and :func:`status` says why. The payload carries the same
sentence as the inbox (never more), so it is covered by the audience tests like every other surface.
Sending goes through a :class:`~notifications.models.Delivery` (channel ``push``) like mail: claimed before,
marked after, retried, held by quiet hours.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext as _

from notifications import catalogue
from notifications.models import Notification, PushSubscription

logger = logging.getLogger(__name__)

# The push service says the subscription is gone: forget it.
GONE = frozenset({404, 410})


@dataclass(frozen=True)
class PushStatus:
    enabled: bool
    reason: str
    public_key: str = ""


def status() -> PushStatus:
    if not (settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY):
        return PushStatus(False, _("Las notificaciones del navegador están desactivadas: faltan las claves VAPID."))
    return PushStatus(True, "", settings.VAPID_PUBLIC_KEY)


def payload(n: Notification, site_url: str = "") -> str:
    """The JSON a service worker shows: title (the campaign), body (the sentence), url."""
    return json.dumps(
        {"title": n.campaign.title, "body": catalogue.sentence(n), "url": site_url + catalogue.link(n)},
        ensure_ascii=False,
    )


def send(user_id: int, notes: list[Notification]) -> int:
    """Push each notification to every browser of the user. Returns how many messages went out; raises
    when every browser failed (so the delivery is retried); forgets browsers the push service says are gone."""
    from pywebpush import WebPushException, webpush  # type: ignore[import-untyped]

    subscriptions = list(PushSubscription.objects.filter(user_id=user_id))
    sent, failures = 0, 0
    for subscription in subscriptions:
        info = {"endpoint": subscription.endpoint, "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth}}
        try:
            for n in notes:
                webpush(
                    info,
                    data=payload(n, settings.SITE_URL.rstrip("/")),
                    vapid_private_key=settings.VAPID_PRIVATE_KEY,
                    vapid_claims={"sub": settings.VAPID_SUBJECT},
                    ttl=24 * 3600,
                )
                sent += 1
        except WebPushException as exc:
            code = getattr(exc.response, "status_code", None)
            if code in GONE:
                subscription.delete()
                continue
            logger.warning("push to subscription %s failed: %s", subscription.pk, exc)
            failures += 1
    if failures and failures == len(subscriptions):
        raise ConnectionError("every push service refused the message")
    return sent


def subscribe(*, user_id: int, endpoint: str, p256dh: str, auth: str) -> PushSubscription:
    subscription, _created = PushSubscription.objects.update_or_create(
        endpoint=endpoint, defaults={"user_id": user_id, "p256dh": p256dh, "auth": auth}
    )
    return subscription


def unsubscribe(*, user_id: int, endpoint: str) -> int:
    deleted, _rows = PushSubscription.objects.filter(user_id=user_id, endpoint=endpoint).delete()
    return deleted
