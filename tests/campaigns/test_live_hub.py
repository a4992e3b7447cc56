"""The per-process hub (``LIVE_HUB``): one layer subscription per campaign, fanned out to its sockets here.

Transactional, against the real ASGI application and the in-memory layer, as test_live_consumer.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from channels.layers import InMemoryChannelLayer, get_channel_layer

from campaigns import consumers, services
from campaigns import live_hub as live_hub_module
from campaigns.consumers import CampaignConsumer
from campaigns.events import campaign_group
from campaigns.live_hub import live_hub
from campaigns.models import Recipients, Voice
from tests.campaigns.test_live_consumer import SOCKET_TIMEOUT, Socket, connect_as, marker, write_post
from tests.personas import Table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def layer(settings: Any) -> InMemoryChannelLayer:
    """A fresh in-memory layer (also under ``make test-services``, whose layer is Redis), with the hub on."""
    settings.LIVE_HUB = True
    # Changing the setting makes channels build its layers anew: no members left by other tests' sockets.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    channel_layer = get_channel_layer()
    assert isinstance(channel_layer, InMemoryChannelLayer)
    return channel_layer


def members(layer: InMemoryChannelLayer, campaign_id: int) -> int:
    return len(layer.groups.get(campaign_group(campaign_id), {}))


def consumer_of(campaign_id: int, user_id: int) -> CampaignConsumer:
    feed = live_hub().feeds[campaign_id]
    [consumer] = [
        s for s in feed.sockets if isinstance(s, CampaignConsumer) and s.viewer and s.viewer.user_id == user_id
    ]
    return consumer


async def whisper_to_player(table: Table) -> Any:
    return await write_post(
        table, table.gm, "solo Ana", Voice.NARRATOR, recipients=Recipients.WHISPER, whisper_to=[table.player.pk]
    )


async def test_sockets_of_a_campaign_share_one_subscription_and_get_events_in_order(
    table: Table, layer: InMemoryChannelLayer
) -> None:
    sockets = [await connect_as(table.player, table.campaign.pk), await connect_as(table.reader, table.campaign.pk)]
    assert members(layer, table.campaign.pk) == 1
    assert len(live_hub().feeds[table.campaign.pk].sockets) == 2
    start = sockets[0].hello["seq"]
    for body in ("uno", "dos", "tres"):
        await write_post(table, table.gm, body, Voice.NARRATOR)
    for socket in sockets:
        assert [(await socket.event())["seq"] for _ in range(3)] == [start + 1, start + 2, start + 3]
        await socket.close()


async def test_a_whisper_reaches_only_its_target_and_the_others_hear_of_it_as_skipped(
    table: Table, layer: InMemoryChannelLayer
) -> None:
    ana = await connect_as(table.player, table.campaign.pk)
    bruno = await connect_as(table.player2, table.campaign.pk)
    gm = await connect_as(table.gm, table.campaign.pk)
    start = ana.hello["seq"]
    whisper = await whisper_to_player(table)
    gms_only = await write_post(table, table.gm, "solo másters", Voice.NARRATOR, recipients=Recipients.GMS)
    end = await marker(table)
    assert [(f["seq"], f["data"]["post_id"]) for f in await ana.events_until(end)][:1] == [(start + 1, whisper.pk)]
    assert [f["seq"] for f in await gm.events_until(end)] == [start + 1, start + 2, end]
    [frame] = await bruno.events_until(end)
    assert frame["skipped"] == [start + 1, start + 2]
    assert str(whisper.pk) not in str(frame["data"]) and str(gms_only.pk) not in str(frame["data"])
    for socket in (ana, bruno, gm):
        await socket.close()


async def test_the_last_socket_out_drops_the_subscription(table: Table, layer: InMemoryChannelLayer) -> None:
    first = await connect_as(table.player, table.campaign.pk)
    second = await connect_as(table.reader, table.campaign.pk)
    feed = live_hub().feeds[table.campaign.pk]
    await first.close()
    assert members(layer, table.campaign.pk) == 1 and feed.sockets
    await second.close()
    assert members(layer, table.campaign.pk) == 0
    assert table.campaign.pk not in live_hub().feeds
    assert feed.reader is not None and feed.reader.done()
    # A new socket subscribes again, and hears the next event.
    again = await connect_as(table.reader, table.campaign.pk)
    assert members(layer, table.campaign.pk) == 1
    end = await marker(table)
    assert (await again.event())["seq"] == end
    await again.close()


async def test_a_socket_failing_its_send_does_not_stop_the_others(
    table: Table, layer: InMemoryChannelLayer, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = await connect_as(table.player, table.campaign.pk)
    sound = [await connect_as(table.player2, table.campaign.pk), await connect_as(table.reader, table.campaign.pk)]

    async def fail(**kwargs: Any) -> None:
        raise RuntimeError("the socket's transport broke")

    monkeypatch.setattr(consumer_of(table.campaign.pk, table.player.pk), "send", fail)
    first = await marker(table)
    second = await marker(table)
    for socket in sound:
        assert [(await socket.event())["seq"], (await socket.event())["seq"]] == [first, second]
        await socket.close()
    assert await broken.nothing()
    await broken.close()


async def test_a_socket_that_stopped_reading_is_closed_and_the_others_go_on(
    table: Table, layer: InMemoryChannelLayer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    monkeypatch.setattr(live_hub_module, "SEND_SECONDS", 0.2)
    stuck = await connect_as(table.player, table.campaign.pk)
    sound = await connect_as(table.reader, table.campaign.pk)
    consumer = consumer_of(table.campaign.pk, table.player.pk)

    async def never_drains(**kwargs: Any) -> None:
        await asyncio.Event().wait()  # a client that stopped reading: the send waits for ever

    monkeypatch.setattr(consumer, "send", never_drains)
    first = await marker(table)
    assert (await sound.event())["seq"] == first
    closed = await stuck.communicator.receive_output(timeout=SOCKET_TIMEOUT)
    assert closed == {"type": "websocket.close", "code": live_hub_module.CLOSE_TOO_SLOW}
    assert consumer not in live_hub().feeds[table.campaign.pk].sockets
    # Were the stuck socket still in the feed, the next event would wait a minute for it.
    monkeypatch.setattr(live_hub_module, "SEND_SECONDS", 60)
    second = await marker(table)
    assert (await sound.event())["seq"] == second
    await sound.close()
    assert table.campaign.pk not in live_hub().feeds  # the last socket out still drops the subscription


async def test_an_event_sent_while_a_socket_connects_follows_its_hello(
    table: Table, layer: InMemoryChannelLayer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race connect() guards against: an event numbered after the hello's seq was read, delivered by the
    hub before the socket is ready, waits in ``pending`` and follows the hello."""
    load_viewer = consumers._load_viewer
    posted: list[int] = []

    def load_then_post(user: Any, campaign_id: int) -> Any:
        loaded = load_viewer(user, campaign_id)
        if not posted:
            post = services.create_post(author=table.gm, scene=table.scene, body="a destiempo", voice=Voice.NARRATOR)
            posted.append(post.pk)
        return loaded

    monkeypatch.setattr(consumers, "_load_viewer", load_then_post)
    socket = await connect_as(table.reader, table.campaign.pk)
    frame = await socket.event()
    assert (frame["seq"], frame["data"]["post_id"]) == (socket.hello["seq"] + 1, posted[0])
    await socket.close()


async def test_without_the_hub_each_socket_joins_the_group(
    table: Table, layer: InMemoryChannelLayer, settings: Any
) -> None:
    settings.LIVE_HUB = False
    sockets: list[Socket] = [await connect_as(table.player, table.campaign.pk) for _ in range(2)]
    assert members(layer, table.campaign.pk) == 2
    assert table.campaign.pk not in live_hub().feeds
    end = await marker(table)
    for socket in sockets:
        assert (await socket.event())["seq"] == end
        await socket.close()
    assert members(layer, table.campaign.pk) == 0


async def test_a_feed_whose_layer_failed_joins_again_and_reads_on(
    table: Table, layer: InMemoryChannelLayer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis went away and came back empty: the feed's read failed, and its group membership is gone."""
    monkeypatch.setattr(live_hub_module, "RETRY_SECONDS", 0.01)
    receive = layer.receive
    failures: list[str] = []

    async def failing_once(channel: str) -> Any:
        # Only the feed's channel is in the group (the sockets' own channels are not, with the hub).
        if not failures and channel in layer.groups.get(campaign_group(table.campaign.pk), {}):
            failures.append(channel)
            layer.groups.clear()
            raise ConnectionError("Redis restarted")
        return await receive(channel)

    monkeypatch.setattr(layer, "receive", failing_once)
    socket = await connect_as(table.reader, table.campaign.pk)
    end = await marker(table)
    assert failures and (await socket.event())["seq"] == end
    assert members(layer, table.campaign.pk) == 1
    await socket.close()
