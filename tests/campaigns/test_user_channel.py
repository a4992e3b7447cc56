"""A signed-in user's own live channel (/ws/me/): the header's notices, the home page and the dashboard
follow what happens to them outside a campaign's page (issue 28), without a 30-60 s poll."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client

from campaigns import services
from campaigns.models import Role
from tests.campaigns.test_live_consumer import ORIGIN, SOCKET_TIMEOUT, run, session_cookie
from tests.personas import Table
from tintero.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


async def _connect(user: object) -> WebsocketCommunicator:
    headers = [ORIGIN]
    if user is not None:
        headers.append(await run(session_cookie, user=user))
    return WebsocketCommunicator(application, "/ws/me/", headers=headers)


async def test_an_invitation_reaches_the_invited_users_channel_at_once(table: Table) -> None:
    socket = await _connect(table.outsider)
    connected, _ = await socket.connect(timeout=SOCKET_TIMEOUT)
    assert connected
    other = await _connect(table.player2)
    assert (await other.connect(timeout=SOCKET_TIMEOUT))[0]
    await run(services.invite, actor=table.gm, campaign=table.campaign, user=table.outsider, role=Role.PLAYER)
    assert await socket.receive_json_from(timeout=SOCKET_TIMEOUT) == {"type": "notices.changed"}
    assert await other.receive_nothing(timeout=0.3)  # someone else's news
    await socket.disconnect()
    await other.disconnect()


async def test_an_anonymous_socket_is_refused(table: Table) -> None:
    socket = await _connect(None)
    connected, code = await socket.connect(timeout=SOCKET_TIMEOUT)
    assert not connected and code == 4401


def test_pages_of_a_signed_in_user_follow_their_channel(table: Table) -> None:
    client = Client()
    client.force_login(table.player)
    home = client.get("/").content.decode()
    assert "js/me.js" in home and "data-live-user" in home
    assert 'id="home-invitations" data-live-user-on="notices.changed"' in home
    assert "tintero:notices-changed from:body" in home  # the header's badge
    dashboard = client.get("/dashboard/").content.decode()
    assert 'id="dash-mine" data-live-user-on="notices.changed"' in dashboard
    assert "js/me.js" not in Client().get("/").content.decode()  # nobody to follow
