"""The campaign socket against the real ASGI application: auth, origin, per-role filtering, seq, resync.

Transactional tests: the consumer reads the database from another thread, and events leave only after
commit, as in production.
"""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import transaction
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import issue_token
from campaigns import services
from campaigns.consumers import CLOSE_INVALID_TOKEN, CLOSE_NOT_FOUND
from campaigns.models import CampaignEventLog, Recipients, SceneAccess, Voice
from tests.personas import Table
from tintero.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = (b"origin", b"http://testserver")
ROLES = ("gm", "player", "player2", "reader", "outsider", "anonymous")
# How long to wait for a frame that should come. Generous: only a failing test waits it out, and CI
# shares a loaded 2-core machine where a connect once took over Channels' default 1 s.
SOCKET_TIMEOUT = 15


def session_cookie(user: User) -> tuple[bytes, bytes]:
    client = Client()
    client.force_login(user)
    return (b"cookie", f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode())


class Socket:
    """A connected communicator and what it has received."""

    def __init__(self, communicator: WebsocketCommunicator, hello: dict[str, Any]) -> None:
        self.communicator = communicator
        self.hello = hello

    async def event(self, timeout: float = SOCKET_TIMEOUT) -> dict[str, Any]:
        return await self.communicator.receive_json_from(timeout=timeout)

    async def events_until(self, marker_seq: int) -> list[dict[str, Any]]:
        """Every frame up to and including the event ``marker_seq`` (frames keep their order)."""
        frames = []
        while True:
            frame = await self.event()
            frames.append(frame)
            if frame.get("seq") == marker_seq:
                return frames

    async def nothing(self) -> bool:
        return await self.communicator.receive_nothing(timeout=0.2)

    async def close(self) -> None:
        await self.communicator.disconnect(timeout=SOCKET_TIMEOUT)


async def open_socket(
    campaign_id: int,
    headers: list[tuple[bytes, bytes]] | None = None,
    path_suffix: str = "",
    subprotocols: list[str] | None = None,
) -> tuple[WebsocketCommunicator, bool, Any]:
    communicator = WebsocketCommunicator(
        application,
        f"/ws/campaigns/{campaign_id}/{path_suffix}",
        headers=headers if headers is not None else [ORIGIN],
        subprotocols=subprotocols,
    )
    connected, subprotocol = await communicator.connect(timeout=SOCKET_TIMEOUT)
    return communicator, connected, subprotocol


async def connect_as(user: User | None, campaign_id: int) -> Socket:
    headers = [ORIGIN]
    if user is not None:
        headers.append(await database_sync_to_async(session_cookie)(user))
    communicator, connected, _subprotocol = await open_socket(campaign_id, headers)
    assert connected
    hello = await communicator.receive_json_from(timeout=SOCKET_TIMEOUT)
    assert hello["type"] == "hello", hello
    return Socket(communicator, hello)


async def closed_with(communicator: WebsocketCommunicator) -> int:
    output = await communicator.receive_output(timeout=SOCKET_TIMEOUT)
    assert output["type"] == "websocket.close", output
    return output["code"]


def run(func: Any, /, **kwargs: Any) -> Any:
    return database_sync_to_async(func)(**kwargs)


async def write_post(table: Table, author: Any, body: str, voice: str, **fields: Any) -> Any:
    """A post in the table's scene, written by the service in the database thread."""
    return await run(services.create_post, author=author, scene=table.scene, body=body, voice=voice, **fields)


async def marker(table: Table) -> int:
    """A post everyone who reads the scene sees; its seq ends each socket's stream in a test."""
    await run(services.create_post, author=table.gm, scene=table.offtopic, body="MARCA", voice=Voice.OOC)
    return await run(lambda: CampaignEventLog.objects.filter(campaign=table.campaign).latest("seq").seq)


# --- Authentication and the origin check ------------------------------------------------------------


async def test_session_user_gets_hello_then_events_in_seq_order(table: Table) -> None:
    socket = await connect_as(table.player, table.campaign.pk)
    start = socket.hello["seq"]
    assert start > 0  # the table's setup already published events
    post = await write_post(table, table.player, "Hola", Voice.OOC)
    frame = await socket.event()
    assert frame == {"seq": start + 1, "type": "post.created", "data": {"scene_id": table.scene.pk, "post_id": post.pk}}
    await run(services.edit_post, actor=table.player, post=post, body="Hola de nuevo")
    await run(services.delete_post, actor=table.player, post=post)
    assert [(f["seq"], f["type"]) for f in [await socket.event(), await socket.event()]] == [
        (start + 2, "post.edited"),
        (start + 3, "post.deleted"),
    ]
    assert "audience" not in frame
    await socket.close()


async def test_token_in_subprotocol_or_query(private_table: Table) -> None:
    token = await run(lambda: issue_token(user=private_table.player).key)
    campaign_id = private_table.campaign.pk
    communicator, connected, subprotocol = await open_socket(
        campaign_id, subprotocols=["tintero.v1", f"tintero.token.{token}"]
    )
    assert connected and subprotocol == "tintero.v1"  # never echo the token back
    assert (await communicator.receive_json_from(timeout=SOCKET_TIMEOUT))["type"] == "hello"
    await communicator.disconnect(timeout=SOCKET_TIMEOUT)

    communicator, connected, _ = await open_socket(campaign_id, path_suffix=f"?token={token}")
    assert connected
    assert (await communicator.receive_json_from(timeout=SOCKET_TIMEOUT))["type"] == "hello"
    await communicator.disconnect(timeout=SOCKET_TIMEOUT)

    communicator, connected, _ = await open_socket(campaign_id, path_suffix="?token=not-a-token")
    assert await closed_with(communicator) == CLOSE_INVALID_TOKEN


async def test_private_campaign_does_not_exist_for_outsiders(private_table: Table, table: Table) -> None:
    for user in (None, private_table.outsider):
        headers = [ORIGIN] + ([await run(session_cookie, user=user)] if user else [])
        communicator, connected, _ = await open_socket(private_table.campaign.pk, headers)
        assert connected
        assert await closed_with(communicator) == CLOSE_NOT_FOUND
    communicator, _connected, _ = await open_socket(999_999)
    assert await closed_with(communicator) == CLOSE_NOT_FOUND
    # A public campaign is open to anonymous readers.
    socket = await connect_as(None, table.campaign.pk)
    await socket.close()


async def test_foreign_or_missing_origin_is_refused(table: Table) -> None:
    for headers in ([(b"origin", b"http://evil.example")], []):
        _communicator, connected, _ = await open_socket(table.campaign.pk, headers)
        assert not connected


async def test_bad_commands_get_an_error_frame(table: Table) -> None:
    socket = await connect_as(table.player, table.campaign.pk)
    await socket.communicator.send_to(text_data="{not json")
    assert (await socket.event())["type"] == "error"
    await socket.communicator.send_json_to({"type": "launch-missiles"})
    error = await socket.event()
    assert error["type"] == "error" and error["message"]
    await socket.communicator.send_json_to({"type": "ping"})
    assert await socket.event() == {"type": "pong"}
    await socket.close()


# --- Filtering per role ----------------------------------------------------------------------------


async def _sockets(table: Table) -> dict[str, Socket]:
    return {role: await connect_as(table.user(role), table.campaign.pk) for role in ROLES}


async def _received(sockets: dict[str, Socket], marker_seq: int) -> dict[str, list[tuple[str, Any]]]:
    received = {}
    for role, socket in sockets.items():
        frames = (await socket.events_until(marker_seq))[:-1]
        received[role] = [(f["type"], f["data"].get("post_id") or f["data"].get("aspect_id")) for f in frames]
        await socket.close()
    return received


async def test_posts_reach_exactly_those_who_may_see_them(table: Table) -> None:
    sockets = await _sockets(table)
    to_all = await write_post(table, table.player, "a", Voice.OOC)
    to_gms = await write_post(table, table.player2, "b", Voice.OOC, recipients=Recipients.GMS)
    whisper = await write_post(
        table, table.gm, "c", Voice.NARRATOR, recipients=Recipients.WHISPER, whisper_to=[table.player.pk]
    )
    listed = await run(services.create_post, author=table.player, scene=table.listed_scene, body="d", voice=Voice.OOC)
    await run(services.edit_post, actor=table.gm, post=whisper, body="c2")
    await run(services.delete_post, actor=table.gm, post=to_gms)
    received = await _received(sockets, await marker(table))
    created = ("post.created",)
    everyone = [(created[0], to_all.pk)]
    assert received["gm"] == [
        ("post.created", to_all.pk),
        ("post.created", to_gms.pk),
        ("post.created", whisper.pk),
        ("post.created", listed.pk),
        ("post.edited", whisper.pk),
        ("post.deleted", to_gms.pk),
    ]
    assert received["player"] == [
        ("post.created", to_all.pk),
        ("post.created", whisper.pk),
        ("post.created", listed.pk),
        ("post.edited", whisper.pk),
    ]
    assert received["player2"] == [*everyone, ("post.created", to_gms.pk), ("post.deleted", to_gms.pk)]
    for role in ("reader", "outsider", "anonymous"):
        assert received[role] == everyone, role


async def test_hidden_aspects_reach_only_gms(table: Table) -> None:
    sockets = await _sockets(table)
    hidden = await run(services.add_scene_aspect, actor=table.gm, scene=table.scene, text="Trampa", hidden=True)
    shown = await run(services.add_scene_aspect, actor=table.gm, scene=table.scene, text="Niebla")
    await run(services.update_scene_aspect, actor=table.gm, aspect=hidden, free_invocations=1)  # still hidden
    await run(services.update_scene_aspect, actor=table.gm, aspect=shown, hidden=True)  # players saw it go
    await run(services.delete_scene_aspect, actor=table.gm, aspect=shown)  # hidden by then: GMs only
    received = await _received(sockets, await marker(table))
    assert received["gm"] == [
        ("aspect.changed", hidden.pk),
        ("aspect.changed", shown.pk),
        ("aspect.changed", hidden.pk),
        ("aspect.changed", shown.pk),
        ("aspect.changed", shown.pk),
    ]
    for role in ("player", "player2", "reader", "outsider", "anonymous"):
        assert received[role] == [("aspect.changed", shown.pk), ("aspect.changed", shown.pk)], role


async def test_a_filtered_gap_is_announced_as_skipped(table: Table) -> None:
    socket = await connect_as(table.player2, table.campaign.pk)
    whisper = await write_post(
        table, table.gm, "solo para Ana", Voice.NARRATOR, recipients=Recipients.WHISPER, whisper_to=[table.player.pk]
    )
    await write_post(table, table.gm, "para todos", Voice.NARRATOR)
    frame = await socket.event()
    assert frame["seq"] == socket.hello["seq"] + 2
    assert frame["skipped"] == [socket.hello["seq"] + 1]
    assert "whisper" not in str(frame) and str(whisper.pk) not in str(frame["data"])
    assert await socket.nothing()
    await socket.close()


async def test_scene_access_and_membership_changes_reach_open_sockets(table: Table) -> None:
    player2 = await connect_as(table.player2, table.campaign.pk)
    reader = await connect_as(table.reader, table.campaign.pk)
    # player2 is added to the listed scene: its socket re-reads the readable scenes and gets its posts.
    await run(
        services.update_scene,
        actor=table.gm,
        scene=table.listed_scene,
        access=SceneAccess.LISTED,
        reader_ids=[table.player.pk, table.player2.pk],
    )
    assert (await player2.event())["type"] == "scene.changed"
    post = await run(services.create_post, author=table.player, scene=table.listed_scene, body="x", voice=Voice.OOC)
    assert (await player2.event())["data"]["post_id"] == post.pk
    # The reader only hears of the other's membership change. Removed from this public campaign, their
    # socket stays open as the non-member reader they now are (a private one closes: test_live_access).
    await run(services.change_role, actor=table.gm, campaign=table.campaign, user=table.player2, role="reader")
    assert (await reader.event())["data"] == {"user_id": table.player2.pk, "role": "reader"}
    assert (await player2.event())["type"] == "membership.changed"
    await run(services.remove_member, actor=table.gm, campaign=table.campaign, user=table.reader)
    assert (await reader.event())["data"] == {"user_id": table.reader.pk, "role": None}
    await player2.close()
    await reader.close()


# --- Commit, sequence and resync -------------------------------------------------------------------


async def test_rolled_back_changes_send_nothing(table: Table) -> None:
    socket = await connect_as(table.gm, table.campaign.pk)

    def failing_write() -> None:
        with transaction.atomic():
            services.create_post(author=table.gm, scene=table.scene, body="nunca", voice=Voice.NARRATOR)
            raise RuntimeError("rolled back")

    with pytest.raises(RuntimeError):
        await run(failing_write)
    assert await socket.nothing()
    after = await run(lambda: CampaignEventLog.objects.filter(campaign=table.campaign).order_by("seq").last().seq)
    assert after == socket.hello["seq"]  # neither the log row nor the seq survived
    await socket.close()


async def test_resync_returns_exactly_the_missed_visible_events(table: Table) -> None:
    socket = await connect_as(table.player2, table.campaign.pk)
    seen = socket.hello["seq"]
    await socket.close()  # the client drops off...
    missed_visible = await write_post(table, table.gm, "1", Voice.NARRATOR)
    await write_post(table, table.gm, "2", Voice.NARRATOR, recipients=Recipients.WHISPER, whisper_to=[table.player.pk])
    await run(services.create_post, author=table.player, scene=table.listed_scene, body="3", voice=Voice.OOC)
    # ...comes back: the hello says how far the campaign went, and the endpoint fills the gap.
    socket = await connect_as(table.player2, table.campaign.pk)
    assert socket.hello["seq"] == seen + 3
    await socket.close()

    def resync(user: User, after: int) -> dict[str, Any]:
        client = APIClient()
        client.force_authenticate(user)
        response = client.get(f"/api/campaigns/{table.campaign.pk}/events/", {"after": after})
        assert response.status_code == 200, response.content
        return response.json()

    body = await run(resync, user=table.player2, after=seen)
    assert body["events"] == [
        {"seq": seen + 1, "type": "post.created", "data": {"scene_id": table.scene.pk, "post_id": missed_visible.pk}}
    ]
    assert (body["seq"], body["last_seq"], body["more"]) == (seen + 3, seen + 3, False)
    assert [e["seq"] for e in (await run(resync, user=table.player, after=seen))["events"]] == [
        seen + 1,
        seen + 2,
        seen + 3,
    ]


async def test_events_lost_while_the_layer_is_down_are_recovered_without_a_later_event(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 11, item 5: the layer drops events (Redis down); the heartbeat tells the client the campaign's
    last seq, and the client's resync (as static/js/live.js does it) returns what it missed."""
    from campaigns import events
    from campaigns.consumers import heartbeats

    socket = await connect_as(table.reader, table.campaign.pk)
    last = socket.hello["seq"]
    monkeypatch.setattr(events, "_send", lambda campaign_id, message: None)  # the layer is down
    posts = []
    for body in ("perdido uno", "perdido dos"):
        post = await run(services.create_post, author=table.player, scene=table.scene, body=body)
        posts.append(post.pk)
    assert await socket.nothing()  # nothing arrives, and no later event will
    await heartbeats().beat()
    beat = await socket.event()
    assert beat["type"] == "heartbeat" and beat["seq"] == last + 2
    # The client: a heartbeat ahead of its last seq, with no "skipped" to explain it, means a loss.
    assert not set(range(last + 1, beat["seq"] + 1)) <= set(beat.get("skipped", []))
    client = APIClient()
    client.force_authenticate(table.reader)
    response = await run(client.get, path=f"/api/campaigns/{table.campaign.pk}/events/?after={last}")
    recovered = [e["data"]["post_id"] for e in response.json()["events"] if e["type"] == "post.created"]
    assert recovered == posts
    await socket.close()


async def test_a_heartbeat_explains_filtered_seqs(table: Table) -> None:
    """A reader does not receive a GM-only post's event: the heartbeat says that seq was filtered, so the
    client does not resync for it."""
    from campaigns.consumers import heartbeats

    socket = await connect_as(table.reader, table.campaign.pk)
    last = socket.hello["seq"]
    await write_post(table, table.gm, "solo másters", Voice.NARRATOR, recipients=Recipients.GMS)
    assert await socket.nothing()
    await heartbeats().beat()
    assert await socket.event() == {"type": "heartbeat", "seq": last + 1, "skipped": [last + 1]}
    await socket.close()
