"""The campaign socket under abuse and for bots: deeply nested JSON gets an error frame (not a 1011 close);
a client without Origin is accepted only when it authenticates by token, never by its cookies."""

from __future__ import annotations

import pytest
from django.test import override_settings

from accounts.services import issue_token
from tests.campaigns.test_live_consumer import (
    ORIGIN,
    SOCKET_TIMEOUT,
    connect_as,
    open_socket,
    run,
    session_cookie,
)
from tests.personas import Table
from tintero.ws_auth import origin_allowed

pytestmark = pytest.mark.django_db(transaction=True)


async def test_deeply_nested_json_gets_an_error_frame_and_the_socket_stays(table: Table) -> None:
    socket = await connect_as(table.player, table.campaign.pk)
    await socket.communicator.send_to(text_data="[" * 100_000)
    error = await socket.event()
    assert error["type"] == "error" and error["message"]
    await socket.communicator.send_json_to({"type": "ping"})
    assert await socket.event() == {"type": "pong"}
    await socket.close()


async def test_a_token_client_without_origin_is_accepted(private_table: Table) -> None:
    token = await run(lambda: issue_token(user=private_table.player).key)
    for subprotocols, suffix in (([f"tintero.token.{token}"], ""), (None, f"?token={token}")):
        communicator, connected, _ = await open_socket(
            private_table.campaign.pk, headers=[], subprotocols=subprotocols, path_suffix=suffix
        )
        assert connected
        assert (await communicator.receive_json_from(timeout=SOCKET_TIMEOUT))["type"] == "hello"
        await communicator.disconnect(timeout=SOCKET_TIMEOUT)


async def test_without_origin_cookies_alone_are_refused(private_table: Table) -> None:
    cookie = await run(session_cookie, user=private_table.player)
    _communicator, connected, _ = await open_socket(private_table.campaign.pk, headers=[cookie])
    assert not connected


async def test_without_origin_a_bad_token_is_closed_with_4401_even_with_a_cookie(private_table: Table) -> None:
    cookie = await run(session_cookie, user=private_table.player)
    communicator, connected, _ = await open_socket(
        private_table.campaign.pk, headers=[cookie], subprotocols=["tintero.token.nope"]
    )
    assert connected
    closed = await communicator.receive_output(timeout=SOCKET_TIMEOUT)
    assert closed == {"type": "websocket.close", "code": 4401}


async def test_a_foreign_origin_is_refused_even_with_a_token(private_table: Table) -> None:
    token = await run(lambda: issue_token(user=private_table.player).key)
    _communicator, connected, _ = await open_socket(
        private_table.campaign.pk,
        headers=[(b"origin", b"http://evil.example")],
        subprotocols=[f"tintero.token.{token}"],
    )
    assert not connected
    _communicator, connected, _ = await open_socket(private_table.campaign.pk, headers=[ORIGIN])
    assert connected


@pytest.mark.parametrize(
    "origin, host, allowed",
    [
        ("http://testserver", "testserver", True),
        ("http://127.0.0.1:8000", "127.0.0.1:8000", True),
        ("https://localhost", "localhost:443", True),
        ("http://127.0.0.1:8001", "127.0.0.1:8000", False),  # another port of the same host: another app
        ("http://127.0.0.1", "127.0.0.1:8000", False),
        ("https://127.0.0.1:8000", "127.0.0.1", False),
        ("http://evil.example", "evil.example", False),  # not one of our hosts
        ("http://localhost:8000", "127.0.0.1:8000", False),  # another host
        ("null", "testserver", False),
        ("http://testserver:99999", "testserver", False),
        ("http://testserver", None, True),  # in-process clients send no Host: default ports only
        ("http://testserver:8001", None, False),
    ],
)
def test_the_origin_must_be_this_very_host_and_port(origin: str, host: str | None, allowed: bool) -> None:
    assert origin_allowed(origin, host) is allowed


@override_settings(CSRF_TRUSTED_ORIGINS=["https://app.example:8443"])
def test_a_trusted_origin_is_allowed_as_it_is_written() -> None:
    assert origin_allowed("https://app.example:8443", "tintero.internal:8000")
    assert not origin_allowed("https://app.example:9443", "tintero.internal:8000")


async def test_a_socket_from_another_port_of_the_same_host_is_refused(private_table: Table) -> None:
    cookie = await run(session_cookie, user=private_table.player)
    other_port = [(b"origin", b"http://127.0.0.1:8001"), (b"host", b"127.0.0.1:8000"), cookie]
    _communicator, connected, _ = await open_socket(private_table.campaign.pk, headers=other_port)
    assert not connected
    same = [(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1:8000"), cookie]
    communicator, connected, _ = await open_socket(private_table.campaign.pk, headers=same)
    assert connected
    await communicator.disconnect(timeout=SOCKET_TIMEOUT)
