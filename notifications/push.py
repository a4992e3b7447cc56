"""Web Push: the payload a browser receives for a notification, whether push is configured, and sending.

Push needs VAPID keys from the environment (``VAPID_PUBLIC_KEY``, ``VAPID_PRIVATE_KEY``,
``VAPID_SUBJECT``); without them it is disabled and :func:`status` says why. The payload carries the same
sentence as the inbox (never more), so it is covered by the audience tests like every other surface.
Sending goes through a :class:`~notifications.models.Delivery` (channel ``push``) like mail: claimed before,
marked after, retried, held by quiet hours; one delivery per browser (endpoint), so a failing push service
is retried on its own and never repeats or blocks the others.

Endpoints are strangers' URLs the worker will POST to: only https URLs of known push services
(``PUSH_SERVICE_HOSTS``, by host suffix) that resolve to public addresses, not the site's own, are accepted,
when a browser subscribes and again before every send.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from requests.adapters import BaseAdapter, HTTPAdapter
from urllib3.connection import HTTPSConnection
from urllib3.connectionpool import HTTPSConnectionPool

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


class EndpointRefused(ValueError):
    """A push endpoint Tintero will not send to (the message says why, for the browser's owner)."""


def resolve_host(host: str) -> list[str]:
    """Every address ``host`` resolves to (the stubbed resolver of the tests replaces this)."""
    try:
        infos = socket.getaddrinfo(host, 443, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return []
    return sorted({str(info[4][0]) for info in infos})


def _is_push_service(host: str) -> bool:
    return any(host == suffix or host.endswith("." + suffix) for suffix in settings.PUSH_SERVICE_HOSTS)


def _site_addresses() -> set[str]:
    site_host = urlsplit(settings.SITE_URL).hostname or ""
    return set(resolve_host(site_host)) if site_host else set()


def refused_address(address: str) -> bool:
    """Whether an address is no public push service's: private, loopback, link-local, reserved, multicast,
    unspecified (IPv4 inside IPv6 judged as IPv4)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return True
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_multicast or ip.is_reserved or ip.is_loopback or ip.is_link_local


def check_endpoint(endpoint: str) -> None:
    """Refuse (EndpointRefused) an endpoint that is not an https URL of a known push service
    (``PUSH_SERVICE_HOSTS``) resolving only to public addresses other than the site's own. Checked when a
    browser subscribes and again before each send: what a name resolves to can change."""
    invalid = EndpointRefused(_("Suscripción no válida: la dirección no es de un servicio de notificaciones conocido."))
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError:
        raise invalid from None
    host = (parts.hostname or "").rstrip(".").lower()
    if parts.scheme != "https" or not host or parts.username or parts.password or port not in (None, 443):
        raise invalid
    if not _is_push_service(host):
        raise invalid
    addresses = resolve_host(host)
    if not addresses:
        raise EndpointRefused(_("Suscripción no válida: el servicio de notificaciones no se encuentra."))
    site = _site_addresses()
    if any(refused_address(address) or address in site for address in addresses):
        raise EndpointRefused(_("Suscripción no válida: el servicio de notificaciones apunta a una dirección privada."))


class _PublicPeerConnection(HTTPSConnection):
    """An HTTPS connection that refuses a peer that is not public once connected: a name checked moments
    before may resolve elsewhere when the request connects (DNS rebinding), so the address actually reached
    is checked before a byte is sent."""

    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()
        peer = str(sock.getpeername()[0])
        if refused_address(peer) or peer in _site_addresses():
            sock.close()
            raise EndpointRefused(
                _("Suscripción no válida: el servicio de notificaciones apunta a una dirección privada.")
            )
        return sock


class _PublicPeerPool(HTTPSConnectionPool):
    ConnectionCls = _PublicPeerConnection


class _PublicPeerAdapter(HTTPAdapter):
    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"https": _PublicPeerPool}


class _PlainHttpRefused(BaseAdapter):
    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
        raise EndpointRefused(_("Suscripción no válida: la dirección no es de un servicio de notificaciones conocido."))

    def close(self) -> None:
        pass


def public_peer_session() -> requests.Session:
    """A requests session that only talks https to public addresses (no proxies from the environment)."""
    session = requests.Session()
    session.trust_env = False
    session.mount("https://", _PublicPeerAdapter())
    session.mount("http://", _PlainHttpRefused())  # a redirect to plain http included
    return session


class PushGone(Exception):
    """The push service says this browser's subscription is gone (404/410): it was forgotten."""


def send(subscription: PushSubscription, notes: list[Notification]) -> int:
    """Push each notification to one browser. Returns how many messages went out; raises when the push
    service failed (so this endpoint's delivery, and only it, is retried), EndpointRefused when the endpoint
    no longer passes :func:`check_endpoint`, PushGone (after forgetting it) when the service says it is gone."""
    from pywebpush import WebPushException, webpush  # type: ignore[import-untyped]

    check_endpoint(subscription.endpoint)
    info = {"endpoint": subscription.endpoint, "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth}}
    sent = 0
    session = public_peer_session()
    for n in notes:
        try:
            webpush(
                info,
                data=payload(n, settings.SITE_URL.rstrip("/")),
                vapid_private_key=settings.VAPID_PRIVATE_KEY,
                vapid_claims={"sub": settings.VAPID_SUBJECT},
                ttl=24 * 3600,
                timeout=10,
                requests_session=session,
            )
        except WebPushException as exc:
            if getattr(exc.response, "status_code", None) in GONE:
                subscription.delete()
                raise PushGone(str(exc)) from None
            raise
        sent += 1
    return sent


class EndpointTaken(Exception):
    """Another account registered this browser's endpoint: it stays theirs until they remove it."""


def subscribe(*, user_id: int, endpoint: str, p256dh: str, auth: str) -> PushSubscription:
    """Register (or refresh the keys of) the user's browser. EndpointRefused for an endpoint that is not a
    public push service's; EndpointTaken when another account holds it (never moved to this one: the
    endpoint is not a secret, so posting it proves nothing)."""
    check_endpoint(endpoint)
    try:
        with transaction.atomic():
            subscription, created = PushSubscription.objects.select_for_update().get_or_create(
                endpoint=endpoint, defaults={"user_id": user_id, "p256dh": p256dh, "auth": auth}
            )
    except IntegrityError:  # registered by someone else between our read and our insert
        raise EndpointTaken(_("Este navegador ya recibe los avisos de otra cuenta.")) from None
    if subscription.user_id != user_id:
        raise EndpointTaken(_("Este navegador ya recibe los avisos de otra cuenta."))
    if not created and (subscription.p256dh, subscription.auth) != (p256dh, auth):
        PushSubscription.objects.filter(pk=subscription.pk, user_id=user_id).update(p256dh=p256dh, auth=auth)
    return subscription


def unsubscribe(*, user_id: int, endpoint: str) -> int:
    deleted, _rows = PushSubscription.objects.filter(user_id=user_id, endpoint=endpoint).delete()
    return deleted
