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
from notifications import push
from notifications.models import Channel, Delivery, DeliveryStatus, PushSubscription
from tests.personas import PASSWORD, Table

pytestmark = pytest.mark.django_db

VAPID = {"VAPID_PUBLIC_KEY": "BPublicKey", "VAPID_PRIVATE_KEY": "private-key", "VAPID_SUBJECT": "mailto:a@b.c"}
FCM = "https://fcm.googleapis.com/fcm/send/abc"
SUBSCRIPTION = {"endpoint": FCM, "keys": {"p256dh": "KEY", "auth": "AUTH"}}
# The stubbed resolver: what each name resolves to in these tests (unknown names resolve to nothing).
DNS = {
    "fcm.googleapis.com": ["142.250.184.10"],
    "updates.push.services.mozilla.com": ["34.107.221.82", "2600:1901:0:7b8::"],
    "web.push.apple.com": ["17.188.1.1"],
    "db5p.notify.windows.com": ["20.42.65.92"],
    "127.0.0.1": ["127.0.0.1"],
    "internal.fcm.googleapis.com": ["10.0.0.1"],
    "metadata.fcm.googleapis.com": ["169.254.169.254"],
    "loop.fcm.googleapis.com": ["::1"],
    "mapped.fcm.googleapis.com": ["::ffff:192.168.1.1"],
    "half.fcm.googleapis.com": ["142.250.184.11", "192.168.1.1"],
    "tintero.example": ["93.184.215.80"],
    "self.fcm.googleapis.com": ["93.184.215.80"],
}


@pytest.fixture(autouse=True)
def stub_resolver(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    dns = dict(DNS)
    monkeypatch.setattr(push, "resolve_host", lambda host: list(dns.get(host, [])))
    return dns


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
    assert info["endpoint"] == FCM
    assert data["body"] == "Directora te susurra en «Llegada»" and "PUSH-SUSURRO" not in json.dumps(data)
    delivery = Delivery.objects.get(channel=Channel.PUSH)
    assert delivery.user_id == mail_table.player.pk and delivery.status == DeliveryStatus.SENT


@override_settings(**VAPID)
def test_a_gone_browser_is_forgotten_and_a_failing_one_retried(mail_table: Table, run_tasks: Any) -> None:
    from pywebpush import WebPushException  # type: ignore[import-untyped]

    PushSubscription.objects.create(
        user=mail_table.player, endpoint="https://fcm.googleapis.com/fcm/send/gone", p256dh="k", auth="a"
    )
    gone = WebPushException("gone", response=mock.Mock(status_code=410))
    with mock.patch("pywebpush.webpush", side_effect=gone):
        _whisper(mail_table, run_tasks)
    assert not PushSubscription.objects.exists()
    PushSubscription.objects.create(
        user=mail_table.player, endpoint="https://fcm.googleapis.com/fcm/send/busy", p256dh="k", auth="a"
    )
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


# --- Endpoints are strangers' URLs (issue 21) -------------------------------------------------------


REFUSED_ENDPOINTS = [
    "http://fcm.googleapis.com/fcm/send/abc",  # not https
    "https://169.254.169.254/latest/meta-data/",  # an address, no push service
    "https://10.0.0.1/x",
    "https://127.0.0.1:6379/",
    "https://localhost/x",
    "https://127.0.0.1:8000/api/me/",  # the site itself
    "https://push.example/abc",  # not a known push service
    "https://fcm.googleapis.com.evil.example/x",  # a known name as a prefix
    "https://evilfcm.googleapis.com.example/x",
    "https://fcm.googleapis.com:6379/x",  # another port
    "https://user:pw@fcm.googleapis.com/x",
    "https://internal.fcm.googleapis.com/x",  # known shape, private address
    "https://metadata.fcm.googleapis.com/x",  # link-local
    "https://loop.fcm.googleapis.com/x",  # IPv6 loopback
    "https://mapped.fcm.googleapis.com/x",  # IPv4-mapped private
    "https://half.fcm.googleapis.com/x",  # one public address, one private
    "https://nowhere.fcm.googleapis.com/x",  # resolves to nothing
    "https://self.fcm.googleapis.com/x",  # the site's own address
]


@pytest.mark.parametrize("endpoint", REFUSED_ENDPOINTS)
@override_settings(**VAPID, SITE_URL="https://tintero.example")
def test_an_endpoint_off_the_public_push_services_is_refused_with_a_clear_400(mail_table: Table, endpoint: str) -> None:
    from rest_framework.test import APIClient

    from tests.api.conftest import assert_error

    page = client_for(mail_table.player).post(
        "/avisos/navegador/", json.dumps({**SUBSCRIPTION, "endpoint": endpoint}), content_type="application/json"
    )
    assert page.status_code == 400
    assert page.json()["error"]["message"].startswith("Suscripción no válida")
    api = APIClient()
    api.force_authenticate(mail_table.player)
    assert_error(api.post("/api/notifications/push/", {**SUBSCRIPTION, "endpoint": endpoint}, format="json"), 400)
    assert not PushSubscription.objects.exists()


@pytest.mark.parametrize(
    "endpoint",
    [
        FCM,
        "https://updates.push.services.mozilla.com/wpush/v2/gAAAA",
        "https://web.push.apple.com/QGx3",
        "https://db5p.notify.windows.com/w/?token=BQYAAA",
    ],
)
def test_the_known_push_services_are_accepted(endpoint: str) -> None:
    push.check_endpoint(endpoint)


@override_settings(**VAPID, PUSH_SERVICE_HOSTS=["push.example"])
def test_the_push_services_come_from_the_settings(stub_resolver: dict[str, list[str]]) -> None:
    stub_resolver["push.example"] = ["93.184.215.14"]
    push.check_endpoint("https://push.example/abc")
    with pytest.raises(push.EndpointRefused):
        push.check_endpoint(FCM)


@override_settings(**VAPID)
def test_an_endpoint_that_resolves_privately_at_send_time_gets_nothing(
    mail_table: Table, run_tasks: Any, stub_resolver: dict[str, list[str]]
) -> None:
    """DNS can change after registration: the endpoint is checked again before each send."""
    stub_resolver["rebind.fcm.googleapis.com"] = ["142.250.184.12"]
    push.subscribe(user_id=mail_table.player.pk, endpoint="https://rebind.fcm.googleapis.com/x", p256dh="k", auth="a")
    stub_resolver["rebind.fcm.googleapis.com"] = ["127.0.0.1"]
    with mock.patch("pywebpush.webpush") as webpush:
        _whisper(mail_table, run_tasks)
    assert webpush.call_count == 0
    delivery = Delivery.objects.get(channel=Channel.PUSH)
    assert delivery.status == DeliveryStatus.ABANDONED and "privada" in delivery.last_error


@override_settings(**VAPID)
def test_another_account_cannot_take_over_a_registered_endpoint(mail_table: Table) -> None:
    from rest_framework.test import APIClient

    from tests.api.conftest import assert_error

    owner = client_for(mail_table.player)
    assert (
        owner.post("/avisos/navegador/", json.dumps(SUBSCRIPTION), content_type="application/json").status_code == 201
    )
    stranger_keys = {"endpoint": FCM, "keys": {"p256dh": "STRANGER", "auth": "STRANGER"}}
    page = client_for(mail_table.player2).post(
        "/avisos/navegador/", json.dumps(stranger_keys), content_type="application/json"
    )
    assert page.status_code == 409 and page.json()["error"]["code"] == "push_endpoint_taken"
    api = APIClient()
    api.force_authenticate(mail_table.player2)
    assert assert_error(api.post("/api/notifications/push/", stranger_keys, format="json"), 409)["code"] == (
        "push_endpoint_taken"
    )
    subscription = PushSubscription.objects.get()
    assert (subscription.user_id, subscription.p256dh) == (mail_table.player.pk, "KEY")
    # The owner refreshing their own keys is fine; once they remove it, the browser can be someone else's.
    refreshed = {"endpoint": FCM, "keys": {"p256dh": "NEW", "auth": "NEW"}}
    assert owner.post("/avisos/navegador/", json.dumps(refreshed), content_type="application/json").status_code == 201
    assert PushSubscription.objects.get().p256dh == "NEW"
    push.unsubscribe(user_id=mail_table.player.pk, endpoint=FCM)
    assert api.post("/api/notifications/push/", stranger_keys, format="json").status_code == 201
    assert PushSubscription.objects.get().user_id == mail_table.player2.pk


@override_settings(**VAPID)
def test_each_browser_is_delivered_and_retried_on_its_own(mail_table: Table, run_tasks: Any) -> None:
    """One failing push service never fails, repeats or blocks the other browsers of the user."""
    from pywebpush import WebPushException

    endpoints = [
        "https://fcm.googleapis.com/fcm/send/first",
        "https://updates.push.services.mozilla.com/wpush/v2/failing",
        "https://web.push.apple.com/last",
    ]
    for endpoint in endpoints:
        push.subscribe(user_id=mail_table.player.pk, endpoint=endpoint, p256dh="k", auth="a")
    calls: list[str] = []
    failures = {"left": 2}

    def service(info: dict[str, Any], **kwargs: Any) -> str:
        calls.append(info["endpoint"])
        if "failing" in info["endpoint"] and failures["left"]:
            failures["left"] -= 1
            raise WebPushException("busy", response=mock.Mock(status_code=503))
        return "ok"

    with mock.patch("pywebpush.webpush", side_effect=service):
        _whisper(mail_table, run_tasks)
    assert sorted(calls) == sorted([*endpoints, endpoints[1], endpoints[1]])  # only the failing one again
    deliveries = Delivery.objects.filter(channel=Channel.PUSH).select_related("push_subscription")
    assert {d.push_subscription.endpoint: (d.status, d.attempts) for d in deliveries if d.push_subscription} == {
        endpoints[0]: (DeliveryStatus.SENT, 1),
        endpoints[1]: (DeliveryStatus.SENT, 3),
        endpoints[2]: (DeliveryStatus.SENT, 1),
    }


def test_the_send_session_refuses_a_private_peer_it_reaches_and_plain_http() -> None:
    """Between the check and the connection the name may resolve elsewhere (DNS rebinding): the address
    actually reached is checked before anything is sent. Here a listener on 127.0.0.1 gets no request."""
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    try:
        session = push.public_peer_session()
        with pytest.raises(push.EndpointRefused):
            session.post(f"https://127.0.0.1:{port}/push", data=b"x", timeout=5)
        with pytest.raises(push.EndpointRefused):
            session.post("http://169.254.169.254/latest/meta-data/", timeout=5)
    finally:
        listener.close()


@override_settings(**VAPID)
def test_the_send_goes_through_the_public_peer_session(mail_table: Table, run_tasks: Any) -> None:
    push.subscribe(user_id=mail_table.player.pk, endpoint=FCM, p256dh="k", auth="a")
    with mock.patch("pywebpush.webpush") as webpush:
        _whisper(mail_table, run_tasks)
    session = webpush.call_args.kwargs["requests_session"]
    assert isinstance(session.get_adapter("https://fcm.googleapis.com/"), push._PublicPeerAdapter)
