"""Limits on the writes a person can repeat (issue 23): past each one a page answers 429 with a clear message
and the API a JSON 429 ``throttled`` with ``Retry-After``; once the window is over the write is allowed again.
Also the mentions a post may carry and the site-wide requests per address."""

from __future__ import annotations

import types
from typing import Any

import pytest
from django.test import Client, override_settings
from rest_framework.test import APIClient

from accounts import throttle
from accounts.models import User
from accounts.write_limits import POST_LIMIT, WriteLimit, WriteLimited
from campaigns import services as campaign_services
from campaigns.models import Invitation, JoinRequest, Post
from tests.api.conftest import assert_error
from tests.personas import Table, make_user

pytestmark = pytest.mark.django_db

START = 1_800_000_000.0  # the start of a 60 s window and of a 3600 s one


class Clock:
    """The counter's clock (accounts.throttle reads ``time.time()``), moved by hand."""

    def __init__(self) -> None:
        self.now = START

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(throttle, "time", types.SimpleNamespace(time=fake.time))
    return fake


def _client(user: User | None, address: str = "10.0.0.1") -> Client:
    client = Client(REMOTE_ADDR=address)
    if user is not None:
        client.force_login(user)
    return client


def _api(user: User | None, address: str = "10.0.0.1") -> APIClient:
    client = APIClient(REMOTE_ADDR=address)
    if user is not None:
        client.force_authenticate(user)
    return client


def _composed(body: str) -> dict[str, object]:
    return {"voice": "ooc", "body": body, "notes": "", "recipients": "all", "page": 1}


def _assert_page_429(response: Any, *, window: int) -> str:
    assert response.status_code == 429, response.content
    assert 0 < int(response["Retry-After"]) <= window + 1  # whole seconds, rounded up
    text: str = response.content.decode()
    assert "Demasiadas peticiones seguidas" in text
    return text


def _assert_api_429(response: Any, *, window: int) -> None:
    error = assert_error(response, 429)
    assert error["code"] == "throttled"
    assert "Demasiadas peticiones seguidas" in error["message"]
    assert 0 < int(response["Retry-After"]) <= window + 1  # whole seconds, rounded up


# --- The counter under every limit ------------------------------------------------------------------------


@override_settings(LIMIT_POSTS=2, LIMIT_POSTS_WINDOW=60)
def test_a_limit_refuses_past_its_count_and_allows_again_in_the_next_window() -> None:
    POST_LIMIT.count(7, now=START)
    POST_LIMIT.count(7, now=START + 10)
    with pytest.raises(WriteLimited) as refused:
        POST_LIMIT.count(7, now=START + 30)
    assert refused.value.retry_after == 31  # the window ends at START + 60
    POST_LIMIT.count(8, now=START + 30)  # another person's count is their own
    POST_LIMIT.count(7, now=START + 60)  # a new window starts at zero


@override_settings(LIMIT_POSTS=0)
def test_a_limit_of_zero_is_off() -> None:
    for second in range(5):
        POST_LIMIT.count(7, now=START + second)


def test_the_wait_is_said_in_seconds_minutes_or_hours() -> None:
    assert "30 segundos" in str(WriteLimited(30))
    assert "5 minutos" in str(WriteLimited(300))
    assert "24 horas" in str(WriteLimited(86_400))


def test_every_named_limit_reads_its_settings() -> None:
    from accounts import write_limits

    named = [value for value in vars(write_limits).values() if isinstance(value, WriteLimit)]
    assert len(named) == 8
    for limit in named:
        assert limit.rate().limit > 0 and limit.rate().window > 0


# --- Posts -----------------------------------------------------------------------------------------------


@override_settings(LIMIT_POSTS=2, LIMIT_POSTS_WINDOW=60)
def test_the_composer_answers_429_past_the_post_limit_and_keeps_the_text(table: Table, clock: Clock) -> None:
    client = _client(table.player)
    url = f"/scenes/{table.scene.pk}/posts/"
    for index in range(2):
        assert client.post(url, _composed(f"mensaje {index}")).status_code == 302
    before = Post.objects.count()
    text = _assert_page_429(client.post(url, _composed("el tercero")), window=60)
    assert "el tercero" in text  # the composer comes back with what was written
    assert Post.objects.count() == before
    clock.now += 60
    assert client.post(url, _composed("el tercero")).status_code == 302


@override_settings(LIMIT_POSTS=2, LIMIT_POSTS_WINDOW=60)
def test_the_api_answers_429_past_the_post_limit(table: Table, clock: Clock) -> None:
    client = _api(table.player)
    url = f"/api/scenes/{table.scene.pk}/posts/"
    for index in range(2):
        assert client.post(url, {"voice": "ooc", "body": f"api {index}"}, format="json").status_code == 201
    _assert_api_429(client.post(url, {"voice": "ooc", "body": "de más"}, format="json"), window=60)
    assert not Post.objects.filter(body_source="de más").exists()
    clock.now += 60
    assert client.post(url, {"voice": "ooc", "body": "de más"}, format="json").status_code == 201


@override_settings(LIMIT_POSTS=1, LIMIT_POSTS_WINDOW=60)
def test_the_htmx_composer_comes_back_with_the_refusal_and_the_text(table: Table, clock: Clock) -> None:
    client = _client(table.player)
    url = f"/scenes/{table.scene.pk}/posts/"
    assert client.post(url, _composed("uno"), HTTP_HX_REQUEST="true").status_code == 200
    response = client.post(url, _composed("dos, de más"), HTTP_HX_REQUEST="true")
    text = _assert_page_429(response, window=60)
    assert response["HX-Retarget"] == "#composer" and "dos, de más" in text


@override_settings(LIMIT_POSTS=1, LIMIT_POSTS_WINDOW=60)
def test_the_refusal_speaks_the_clients_language(table: Table, clock: Clock) -> None:
    clock.now += 0.5  # 59.5 s of the window left: said as 60, rounded up
    client = _api(table.player)
    url = f"/api/scenes/{table.scene.pk}/posts/"
    assert client.post(url, {"voice": "ooc", "body": "uno"}, format="json").status_code == 201
    response = client.post(url, {"voice": "ooc", "body": "dos"}, format="json", HTTP_ACCEPT_LANGUAGE="en")
    error = assert_error(response, 429)
    assert error["message"] == "Too many requests in a row. Try again in 60 seconds."


# --- API writes ------------------------------------------------------------------------------------------


@override_settings(LIMIT_API_WRITES=2, LIMIT_API_WRITES_WINDOW=60)
def test_api_writes_are_limited_per_account_not_reads(table: Table, clock: Clock) -> None:
    client = _api(table.player)
    url = f"/api/scenes/{table.scene.pk}/posts/"
    for index in range(2):
        assert client.post(url, {"voice": "ooc", "body": f"api {index}"}, format="json").status_code == 201
    _assert_api_429(client.post(url, {"voice": "ooc", "body": "de más"}, format="json"), window=60)
    assert client.get(url).status_code == 200  # reads are not API writes
    # Another account from the same address writes: the count is per account.
    assert _api(table.player2).post(url, {"voice": "ooc", "body": "yo sí"}, format="json").status_code == 201
    clock.now += 60
    assert client.post(url, {"voice": "ooc", "body": "de más"}, format="json").status_code == 201


def test_the_openapi_document_lists_429_throttled_on_writes() -> None:
    document = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    invitations = document["paths"]["/api/campaigns/{campaign_id}/invitations/"]
    assert "429" in invitations["post"]["responses"]
    assert "`throttled`" in invitations["post"]["responses"]["429"]["description"]
    assert "429" in invitations["get"]["responses"]  # the requests per address
    assert "429" in document["paths"]["/api/scenes/{scene_id}/posts/"]["post"]["responses"]


# --- Invitations, join requests, nudges ---------------------------------------------------------------------


@override_settings(LIMIT_INVITATIONS=1, LIMIT_INVITATIONS_WINDOW=3600)
def test_invitations_are_limited_on_the_page_and_the_api(table: Table, clock: Clock) -> None:
    first, second, third = make_user("uno"), make_user("dos"), make_user("tres")
    page = _client(table.gm)
    url = f"/campaigns/{table.campaign.pk}/invite/"
    assert page.post(url, {"username": first.username, "role": "player"}).status_code == 302
    _assert_page_429(page.post(url, {"username": second.username, "role": "player"}), window=3600)
    api_url = f"/api/campaigns/{table.campaign.pk}/invitations/"
    gm_api = _api(table.gm)
    _assert_api_429(gm_api.post(api_url, {"user": second.pk, "role": "player"}, format="json"), window=3600)
    assert not Invitation.objects.filter(user__in=[second, third]).exists()
    clock.now += 3600
    assert gm_api.post(api_url, {"user": second.pk, "role": "player"}, format="json").status_code == 201


@override_settings(LIMIT_JOIN_REQUESTS=1, LIMIT_JOIN_REQUESTS_WINDOW=3600)
def test_join_requests_are_limited_on_the_page_and_the_api(table: Table, clock: Clock) -> None:
    outsider = table.outsider
    page = _client(outsider)
    url = f"/campaigns/{table.campaign.pk}/join/"
    assert page.post(url, {"role": "reader", "message": ""}).status_code == 302
    pending = JoinRequest.objects.get(user=outsider)
    campaign_services.withdraw_join_request(user=outsider, join_request=pending)
    _assert_page_429(page.post(url, {"role": "reader", "message": ""}), window=3600)
    api_url = f"/api/campaigns/{table.campaign.pk}/join-requests/"
    client = _api(outsider)
    _assert_api_429(client.post(api_url, {"role": "reader"}, format="json"), window=3600)
    assert JoinRequest.objects.filter(user=outsider).count() == 1
    clock.now += 3600
    assert client.post(api_url, {"role": "reader"}, format="json").status_code == 201


@override_settings(LIMIT_NUDGES=1, LIMIT_NUDGES_WINDOW=3600)
def test_nudges_are_limited_on_the_page_and_the_api(table: Table, clock: Clock) -> None:
    campaign_services.create_post(author=table.player2, scene=table.scene, body="os toca")
    page = _client(table.gm)
    assert page.post(f"/scenes/{table.scene.pk}/nudge/").status_code == 302
    _assert_page_429(page.post(f"/scenes/{table.scene.pk}/nudge/"), window=3600)
    client = _api(table.gm)
    _assert_api_429(client.post(f"/api/scenes/{table.scene.pk}/nudge/", {}, format="json"), window=3600)
    clock.now += 3600
    assert client.post(f"/api/scenes/{table.scene.pk}/nudge/", {}, format="json").status_code == 200


# --- Sign-ups per address ---------------------------------------------------------------------------------


def _signup(address: str, username: str) -> Any:
    data = {
        "username": username,
        "display_name": username,
        "password1": "una-clave-larga-9",
        "password2": "una-clave-larga-9",
    }
    return Client(REMOTE_ADDR=address).post("/accounts/signup/", data)


@override_settings(LIMIT_SIGNUPS_PER_ADDRESS=2, LIMIT_SIGNUPS_PER_ADDRESS_WINDOW=3600, SIGNUPS="open")
def test_signups_are_limited_per_address(clock: Clock) -> None:
    assert _signup("10.0.0.5", "primera").status_code == 302
    assert _signup("10.0.0.5", "segunda").status_code == 302
    _assert_page_429(_signup("10.0.0.5", "tercera"), window=3600)
    assert not User.objects.filter(username="tercera").exists()
    assert _signup("10.0.0.6", "otra").status_code == 302  # another address
    clock.now += 3600
    assert _signup("10.0.0.5", "tercera").status_code == 302


# --- Mentions per post -------------------------------------------------------------------------------------


@override_settings(LIMIT_MENTIONS_PER_POST=2)
def test_a_post_naming_too_many_people_is_refused_on_the_page_and_the_api(table: Table) -> None:
    body = "@player2 @reader @gm ¿estáis?"
    response = _client(table.player).post(f"/scenes/{table.scene.pk}/posts/", _composed(body))
    assert response.status_code == 400
    assert "como mucho a 2 personas" in response.content.decode()
    error = assert_error(
        _api(table.player).post(f"/api/scenes/{table.scene.pk}/posts/", {"voice": "ooc", "body": body}, format="json"),
        400,
        "body",
    )
    assert "menciona a 3" in error["message"]
    assert not Post.objects.filter(body_source=body).exists()
    # Names that are nobody here, and the same person twice, are not people mentioned.
    fine = "@player2 @PLAYER2 @reader @nadie"
    assert (
        _api(table.player)
        .post(f"/api/scenes/{table.scene.pk}/posts/", {"voice": "ooc", "body": fine}, format="json")
        .status_code
        == 201
    )


# --- Requests per address, site-wide ---------------------------------------------------------------------


@override_settings(
    LIMIT_REQUESTS_IN_DATABASE=True, LIMIT_REQUESTS_BURST=3, LIMIT_REQUESTS_BURST_WINDOW=10, LIMIT_REQUESTS_PER_MINUTE=5
)
def test_an_address_is_limited_site_wide_and_static_files_are_not_counted(table: Table, clock: Clock) -> None:
    client = Client(REMOTE_ADDR="10.0.0.7")
    for _ in range(3):
        assert client.get("/").status_code == 200
    response = client.get("/")
    assert response.status_code == 429 and 0 < int(response["Retry-After"]) <= 11
    assert "Demasiadas peticiones seguidas" in response.content.decode()
    _assert_api_429(APIClient(REMOTE_ADDR="10.0.0.7").get("/api/campaigns/"), window=10)
    assert client.get("/static/css/tintero.css").status_code != 429
    assert client.get("/healthz").status_code != 429
    assert Client(REMOTE_ADDR="10.0.0.8").get("/").status_code == 200  # another address
    clock.now += 10  # the burst window is over, the minute's is not: its 5 are spent (refusals count too)
    response = client.get("/")
    assert response.status_code == 429 and 10 < int(response["Retry-After"]) <= 61
    clock.now += 60
    assert client.get("/").status_code == 200


def test_without_redis_requests_are_not_counted_by_default(table: Table) -> None:
    client = Client(REMOTE_ADDR="10.0.0.9")
    with override_settings(LIMIT_REQUESTS_BURST=1):
        assert [client.get("/").status_code for _ in range(3)] == [200, 200, 200]
