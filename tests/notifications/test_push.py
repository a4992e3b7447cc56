"""Web Push: disabled with a clear status without VAPID keys; with them, a browser subscribes and gets the
same words as the inbox, once, through a delivery like mail; gone browsers are forgotten."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from django.test import Client, override_settings

from campaigns import services as campaign_services
from campaigns.models import Recipients, Voice
from notifications.models import Channel, Delivery, DeliveryStatus, PushSubscription
from tests.personas import PASSWORD, Table

pytestmark = pytest.mark.django_db

VAPID = {"VAPID_PUBLIC_KEY": "BPublicKey", "VAPID_PRIVATE_KEY": "private-key", "VAPID_SUBJECT": "mailto:a@b.c"}
SUBSCRIPTION = {"endpoint": "https://push.example/abc", "keys": {"p256dh": "KEY", "auth": "AUTH"}}


def client_for(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def _whisper(table: Table, run_tasks: Any) -> None:
    with run_tasks(execute=True):
        campaign_services.create_post(
            author=table.gm, scene=table.scene, body="PUSH-SUSURRO", voice=Voice.NARRATOR,
            recipients=Recipients.WHISPER, whisper_to=[table.player.pk],
        )  # fmt: skip


def test_without_vapid_keys_push_is_disabled_and_says_so(mail_table: Table, run_tasks: Any) -> None:
    page = client_for(mail_table.player).get("/avisos/").content.decode()
    assert "faltan las claves VAPID" in page and "data-push-subscribe" not in page
    response = client_for(mail_table.player).post(
        "/avisos/navegador/", json.dumps(SUBSCRIPTION), content_type="application/json"
    )
    assert response.status_code == 409 and response.json()["error"]["code"] == "push_disabled"
    PushSubscription.objects.create(user=mail_table.player, endpoint="https://x.example/1", p256dh="k", auth="a")
    _whisper(mail_table, run_tasks)
    assert not Delivery.objects.filter(channel=Channel.PUSH).exists()


@override_settings(**VAPID)
def test_a_subscribed_browser_gets_the_inbox_words_once(mail_table: Table, run_tasks: Any) -> None:
    client = client_for(mail_table.player)
    assert 'data-push-subscribe="BPublicKey"' in client.get("/avisos/").content.decode()
    response = client.post("/avisos/navegador/", json.dumps(SUBSCRIPTION), content_type="application/json")
    assert response.status_code == 201
    bad = client.post("/avisos/navegador/", json.dumps({"endpoint": "http://x"}), content_type="application/json")
    assert bad.status_code == 400
    with mock.patch("pywebpush.webpush") as webpush:
        _whisper(mail_table, run_tasks)
    assert webpush.call_count == 1
    info, data = webpush.call_args.args[0], json.loads(webpush.call_args.kwargs["data"])
    assert info["endpoint"] == "https://push.example/abc"
    assert data["body"] == "Directora te susurra en «Llegada»" and "PUSH-SUSURRO" not in json.dumps(data)
    delivery = Delivery.objects.get(channel=Channel.PUSH)
    assert delivery.user_id == mail_table.player.pk and delivery.status == DeliveryStatus.SENT


@override_settings(**VAPID)
def test_a_gone_browser_is_forgotten_and_a_failing_one_retried(mail_table: Table, run_tasks: Any) -> None:
    from pywebpush import WebPushException  # type: ignore[import-untyped]

    PushSubscription.objects.create(user=mail_table.player, endpoint="https://push.example/gone", p256dh="k", auth="a")
    gone = WebPushException("gone", response=mock.Mock(status_code=410))
    with mock.patch("pywebpush.webpush", side_effect=gone):
        _whisper(mail_table, run_tasks)
    assert not PushSubscription.objects.exists()
    PushSubscription.objects.create(user=mail_table.player, endpoint="https://push.example/busy", p256dh="k", auth="a")
    busy = WebPushException("busy", response=mock.Mock(status_code=503))
    with mock.patch("pywebpush.webpush", side_effect=[busy, "ok"]) as webpush, run_tasks(execute=True):
        campaign_services.create_post(author=mail_table.player2, scene=mail_table.scene, body="@player hola")
    assert webpush.call_count == 2
    delivery = Delivery.objects.filter(channel=Channel.PUSH).latest("id")
    assert delivery.status == DeliveryStatus.SENT and delivery.attempts == 2


def test_the_api_says_push_is_off_and_refuses_to_subscribe(mail_table: Table) -> None:
    from rest_framework.test import APIClient

    from tests.api.conftest import assert_error

    client = APIClient()
    client.force_authenticate(mail_table.player)
    assert client.get("/api/notifications/push/").json()["enabled"] is False
    assert_error(client.post("/api/notifications/push/", SUBSCRIPTION, format="json"), 409)
    with override_settings(**VAPID):
        assert client.get("/api/notifications/push/").json()["public_key"] == "BPublicKey"
        assert client.post("/api/notifications/push/", SUBSCRIPTION, format="json").status_code == 201
        assert_error(client.post("/api/notifications/push/", {"endpoint": "x"}, format="json"), 400, "endpoint")
    assert PushSubscription.objects.get().user_id == mail_table.player.pk
