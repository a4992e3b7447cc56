"""Web Push: the payload a browser would receive for a notification, and whether push is configured.

Push needs VAPID keys from the environment (``VAPID_PUBLIC_KEY``, ``VAPID_PRIVATE_KEY``,
``VAPID_SUBJECT``); without them it is disabled and :func:`status` says why. The payload carries the same
sentence as the inbox (never more), so it is covered by the audience tests like every other surface.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext as _

from notifications import catalogue
from notifications.models import Notification


@dataclass(frozen=True)
class PushStatus:
    enabled: bool
    reason: str


def status() -> PushStatus:
    if not (settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY):
        return PushStatus(False, _("Las notificaciones del navegador están desactivadas: faltan las claves VAPID."))
    return PushStatus(True, "")


def payload(n: Notification, site_url: str = "") -> str:
    """The JSON a service worker shows: title (the campaign), body (the sentence), url."""
    return json.dumps(
        {"title": n.campaign.title, "body": catalogue.sentence(n), "url": site_url + catalogue.link(n)},
        ensure_ascii=False,
    )
