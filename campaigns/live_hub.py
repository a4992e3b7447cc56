"""One channel-layer subscription per campaign and process, fanned out to that process's sockets.

Without the hub every campaign socket joins the campaign's group with its own channel, so an event costs
one layer message per socket: the in-memory layer deep-copies it per channel, RedisChannelLayer pushes it
to one list per socket, the pub/sub layer decodes it once per socket, and each one wakes its consumer.
With it (``LIVE_HUB``), the first socket of a campaign in a process subscribes one channel to the group;
one task reads that channel and hands each message to the process's sockets of the campaign in turn, each
applying its own viewer's filter and writing the frame serialized at publish time. The last socket to
leave drops the subscription.

Order: one task reads a campaign's messages and hands each to every socket before taking the next, so
each socket gets its events in the order the layer delivered them (as its own channel would). The price:
a send that waits waits for all. daphne's never do (Twisted buffers); uvicorn's wait once a client that
stopped reading has filled its TCP and write buffers (thousands of events of ~100 bytes). Such a send is
given up after ``SEND_SECONDS``: that socket leaves the feed and is closed (its client, if it is still
there, reconnects and resyncs), and the others go on. A feed that falls behind loses what overflows its channel (100
messages in the in-memory layer and RedisChannelLayer; pub/sub queues are unbounded) for all this process's
sockets of the campaign at once, where a socket's own channel lost them for it alone; the heartbeat tells
them, and they resync from the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from typing import Any, Protocol

from channels.layers import get_channel_layer

from campaigns.events import campaign_group

logger = logging.getLogger(__name__)

# The layers drop a group member a day after it joined (channels' group_expiry): a campaign with a socket
# open in the process all along keeps its one subscription for longer, so it joins again now and then.
RENEW_SECONDS = 3600.0
# Seconds between attempts to read again after the layer failed (Redis away), doubling up to the maximum.
RETRY_SECONDS, RETRY_MAX_SECONDS = 1.0, 30.0
# A send still waiting after this long is a client that stopped reading: it is dropped, not waited for.
SEND_SECONDS = 5.0
CLOSE_TOO_SLOW = 4408


class LiveSocket(Protocol):
    """What the hub needs of a campaign socket (``campaigns.consumers.CampaignConsumer``)."""

    campaign_id: int
    # Messages that arrived while the socket was connecting (None once it forwards them itself).
    pending: list[dict[str, Any]] | None

    async def forward(self, message: dict[str, Any]) -> None: ...

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None: ...


class CampaignFeed:
    """One campaign's subscription in this process, and its sockets here."""

    def __init__(self, campaign_id: int) -> None:
        self.campaign_id = campaign_id
        self.sockets: set[LiveSocket] = set()
        self.channel_name: str | None = None
        self.reader: asyncio.Task[None] | None = None
        self.renewed_at = 0.0
        self.subscribed = asyncio.get_running_loop().create_task(self._subscribe())

    async def _subscribe(self) -> None:
        layer = get_channel_layer()
        assert layer is not None, "the live hub needs a channel layer"
        self.channel_name = await layer.new_channel()
        await layer.group_add(campaign_group(self.campaign_id), self.channel_name)
        self.renewed_at = asyncio.get_running_loop().time()
        self.reader = asyncio.get_running_loop().create_task(self._read(layer, self.channel_name))

    async def _read(self, layer: Any, channel_name: str) -> None:
        retry = RETRY_SECONDS
        while True:
            try:
                message = await layer.receive(channel_name)
            except asyncio.CancelledError:
                raise
            except Exception:  # the layer is away (Redis down): the sockets stay open, the heartbeat
                # tells their clients what they miss meanwhile, and the feed comes back with the layer.
                logger.warning("live hub of campaign %s could not read its channel", self.campaign_id, exc_info=True)
                await asyncio.sleep(retry)
                retry = min(retry * 2, RETRY_MAX_SECONDS)
                with contextlib.suppress(Exception):  # still away: the next receive fails and waits again
                    await self.renew()  # a restarted Redis forgot the group's members
                continue
            retry = RETRY_SECONDS
            if message.get("type") == "campaign.event":
                await self.fan_out(message)

    async def fan_out(self, message: dict[str, Any]) -> None:
        """Hand one event to each socket, one after the other (so each gets the events in order)."""
        sockets = self.sockets
        for socket in list(sockets):  # a copy: sockets come and go while a send waits
            if socket not in sockets:
                continue  # it left while an earlier socket's send waited
            pending = socket.pending
            if pending is not None:
                pending.append(message)  # still connecting: it forwards these itself after its hello
                continue
            try:
                async with asyncio.timeout(SEND_SECONDS):
                    await socket.forward(message)
            except TimeoutError:
                logger.warning("live socket of campaign %s stopped reading: closed", self.campaign_id)
                sockets.discard(socket)  # no more waiting on it
                asyncio.get_running_loop().create_task(self._drop(socket))
            except OSError:  # the client went away; its disconnect takes it out of the feed
                logger.debug("live socket of campaign %s gone mid-send", self.campaign_id)
            except Exception:  # one socket's failure is its own: the others still get the event
                logger.exception("live socket of campaign %s failed an event", self.campaign_id)

    async def _drop(self, socket: LiveSocket) -> None:
        """Close a socket that stopped reading (in its own task: closing may wait too), and the feed with
        it if it was the last."""
        socket.pending = None
        await live_hub().close_if_empty(self)
        with contextlib.suppress(Exception):
            await socket.close(code=CLOSE_TOO_SLOW)

    async def renew(self) -> None:
        if self.channel_name is None or self.reader is None:
            return
        layer = get_channel_layer()
        assert layer is not None
        await layer.group_add(campaign_group(self.campaign_id), self.channel_name)
        self.renewed_at = asyncio.get_running_loop().time()

    async def close(self) -> None:
        self.subscribed.cancel()
        if self.reader is not None:
            self.reader.cancel()
        if self.channel_name is not None:
            layer = get_channel_layer()
            assert layer is not None
            try:
                await layer.group_discard(campaign_group(self.campaign_id), self.channel_name)
            except Exception:  # the layer is away: RedisChannelLayer's membership expires on its own
                logger.warning("live hub could not leave the group of campaign %s", self.campaign_id)


class LiveHub:
    """One per event loop (a process serves its sockets from one loop): each campaign's feed."""

    def __init__(self) -> None:
        self.feeds: dict[int, CampaignFeed] = {}

    async def join(self, socket: LiveSocket) -> CampaignFeed:
        """Add the socket to its campaign's feed; returns once the feed is subscribed to the group, so
        every event sent from then on reaches the socket (it holds them in ``pending`` until its hello)."""
        feed = self.feeds.get(socket.campaign_id)
        if feed is None:
            feed = self.feeds[socket.campaign_id] = CampaignFeed(socket.campaign_id)
        socket.pending = []
        feed.sockets.add(socket)
        try:
            # Shielded: a socket that gives up connecting must not cancel the others' subscription.
            await asyncio.shield(feed.subscribed)
        except BaseException:
            await self.leave(socket, feed)
            raise
        return feed

    async def leave(self, socket: LiveSocket, feed: CampaignFeed) -> None:
        """Take the socket out of the feed; the last one out drops the subscription."""
        socket.pending = None
        if socket not in feed.sockets:
            return
        feed.sockets.discard(socket)
        await self.close_if_empty(feed)

    async def close_if_empty(self, feed: CampaignFeed) -> None:
        """Drop the feed's subscription once it has no socket left."""
        if feed.sockets:
            return
        if self.feeds.get(feed.campaign_id) is feed:
            del self.feeds[feed.campaign_id]  # first, so a socket joining meanwhile starts a new feed
        await feed.close()

    async def renew(self) -> None:
        """Join again the groups of feeds that joined over ``RENEW_SECONDS`` ago (see RENEW_SECONDS)."""
        now = asyncio.get_running_loop().time()
        for feed in list(self.feeds.values()):
            if now - feed.renewed_at > RENEW_SECONDS:
                try:
                    await feed.renew()
                except Exception:  # the layer is away: the next beat tries again
                    logger.warning("live hub could not renew the group of campaign %s", feed.campaign_id)


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LiveHub] = weakref.WeakKeyDictionary()


def live_hub() -> LiveHub:
    """This event loop's hub."""
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None:
        hub = _hubs[loop] = LiveHub()
    return hub


__all__ = ["CampaignFeed", "LiveHub", "LiveSocket", "live_hub"]
