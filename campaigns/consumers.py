"""The live socket of a campaign page: forwards the campaign's events that this viewer may see.

Protocol (JSON text frames; the event catalogue is in ``campaigns.events``):

- on connect the server sends ``{"type": "hello", "seq": <the campaign's last seq>}``; then each visible
  event as ``{"seq", "type", "data"}``. A client that sees a gap in ``seq``, or reconnects, asks
  ``GET /api/campaigns/<id>/events/?after=<seq>`` for what it missed.
- a forwarded event may carry ``"skipped": [seq, ...]``: the seqs since the previous frame that were not
  for this viewer, so the client knows that gap is not a loss.
- every ``LIVE_HEARTBEAT_SECONDS`` the server sends ``{"type": "heartbeat", "seq": <the campaign's last
  seq>}`` (with ``"skipped"`` as on events, for the filtered seqs not yet reported): a client whose last
  seq is lower, and not explained by ``skipped``, has lost the tail of the stream (events sent while the
  channel layer was down never arrive, and no later event may come to reveal the gap) and resyncs.
  One task per process and campaign reads the seqs, one query for all the process's campaigns.
- the client may send ``{"type": "ping"}`` (answered with ``{"type": "pong"}``); anything else gets
  ``{"type": "error", "message": ...}``.
- close codes: 4401 invalid API token; 4403 the viewer may no longer see the campaign (it turned
  private, or their membership of a private campaign ended), sent after an error frame with
  ``"code": "no_access"``; 4404 the campaign does not exist for this viewer. Do not retry any of them.
  4408: the client stopped reading (a send to it waited ``campaigns.live_hub.SEND_SECONDS``): reconnect
  and resync.
  A member removed from a public campaign keeps the socket, as the non-member reader they now are.

Cost per event and recipient is one set lookup and a send of the frame serialized once at publish time:
no query, no JSON encoding, no thread hop (an async consumer; the database is only touched on connect
and when a scene, the campaign's settings or this viewer's membership change). With ``LIVE_HUB`` (the
default) not even a channel-layer message per socket: ``campaigns.live_hub`` receives one per process and
campaign and hands it to each socket's ``forward``.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils.translation import gettext as _

from campaigns import policy
from campaigns.events import (
    REFRESH_TYPES,
    campaign_group,
    last_seq,
    message_audience,
    number_stranded_events,
    user_group,
)
from campaigns.live_hub import CampaignFeed, live_hub
from campaigns.models import Campaign, CampaignSequence
from campaigns.policy import Viewer
from tintero.ws_auth import SUBPROTOCOL

CLOSE_INVALID_TOKEN = 4401
CLOSE_NO_ACCESS = 4403
CLOSE_NOT_FOUND = 4404
NO_ACCESS = "no_access"
# Past this many filtered events in a row the list is dropped; the client then resyncs (cheap, and rare).
MAX_SKIPPED = 200


def _load_viewer(user: Any, campaign_id: int) -> tuple[Viewer, frozenset[int], int] | None:
    """The viewer, their readable scenes and the campaign's last seq; None when the campaign is hidden."""
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return None
    viewer = policy.viewer_for(user, campaign)
    if not policy.may_view_campaign(viewer):
        return None
    return viewer, policy.readable_scene_ids(viewer), last_seq(campaign_id)


def _last_seqs(campaign_ids: list[int]) -> dict[int, int]:
    rows = CampaignSequence.objects.filter(campaign_id__in=campaign_ids).values_list("campaign_id", "last")
    return dict(rows)


class Heartbeats:
    """One per event loop (a process serves its sockets from one loop): the open sockets of each campaign,
    and one task that tells them their campaign's last seq every ``LIVE_HEARTBEAT_SECONDS``."""

    def __init__(self) -> None:
        self.sockets: dict[int, set[CampaignConsumer]] = {}
        self.task: asyncio.Task[None] | None = None

    def add(self, consumer: CampaignConsumer) -> None:
        self.sockets.setdefault(consumer.campaign_id, set()).add(consumer)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    def discard(self, consumer: CampaignConsumer) -> None:
        sockets = self.sockets.get(consumer.campaign_id)
        if sockets is not None:
            sockets.discard(consumer)
            if not sockets:
                del self.sockets[consumer.campaign_id]

    async def _run(self) -> None:
        while self.sockets:
            await asyncio.sleep(float(settings.LIVE_HEARTBEAT_SECONDS))
            await self.beat()
            await live_hub().renew()
        self.task = None

    async def beat(self) -> None:
        """Send every socket its campaign's last seq now (one query for all campaigns)."""
        if not self.sockets:
            return
        try:
            # Events stranded by a crash between a commit and its numbering get their number first.
            await database_sync_to_async(number_stranded_events)()
            seqs = await database_sync_to_async(_last_seqs)(list(self.sockets))
        except Exception:  # the database is away: the next beat tries again
            return
        for campaign_id, sockets in list(self.sockets.items()):
            for consumer in list(sockets):
                await consumer.heartbeat(seqs.get(campaign_id, 0))


_heartbeats: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Heartbeats] = weakref.WeakKeyDictionary()


def heartbeats() -> Heartbeats:
    """This event loop's heartbeats."""
    loop = asyncio.get_running_loop()
    hub = _heartbeats.get(loop)
    if hub is None:
        hub = _heartbeats[loop] = Heartbeats()
    return hub


class CampaignConsumer(AsyncWebsocketConsumer):
    campaign_id: int
    viewer: Viewer | None = None
    scene_ids: frozenset[int] = frozenset()
    hello_seq = 0
    joined = False
    # With LIVE_HUB: the process's feed of this campaign, and the events it handed over while connecting.
    feed: CampaignFeed | None = None
    pending: list[dict[str, Any]] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.skipped: list[int] = []

    async def connect(self) -> None:
        self.campaign_id = int(self.scope["url_route"]["kwargs"]["campaign_id"])
        subprotocol = SUBPROTOCOL if SUBPROTOCOL in (self.scope.get("subprotocols") or ()) else None
        if self.scope.get("token_invalid"):
            await self.accept(subprotocol)
            await self.close(code=CLOSE_INVALID_TOKEN)
            return
        # Join before reading the last seq: every event committed after that read reaches this socket,
        # and anything older is covered by the hello's seq (the client resyncs from there if it must).
        # Events that arrive meanwhile wait: in this consumer's channel, or with the hub in ``pending``.
        if settings.LIVE_HUB:
            self.feed = await live_hub().join(self)
        else:
            await self.channel_layer.group_add(campaign_group(self.campaign_id), self.channel_name)
            self.joined = True
        loaded = await database_sync_to_async(_load_viewer)(self.scope.get("user"), self.campaign_id)
        await self.accept(subprotocol)
        if loaded is None:
            await self._leave_feed()
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.viewer, self.scene_ids, self.hello_seq = loaded
        await self.send(text_data=json.dumps({"type": "hello", "seq": self.hello_seq}))
        heartbeats().add(self)
        await self._forward_pending()

    async def _forward_pending(self) -> None:
        """Forward what the hub held while this socket connected; then the hub forwards to it directly.
        Events arriving while these are sent join the list, so the order holds."""
        pending = self.pending
        while pending:
            await self.forward(pending.pop(0))
        self.pending = None

    async def _leave_feed(self) -> None:
        feed, self.feed = self.feed, None
        if feed is not None:
            await live_hub().leave(self, feed)

    async def heartbeat(self, seq: int) -> None:
        """Tell the client the campaign's last seq, with the filtered seqs it has not been told of yet."""
        if self.viewer is None:
            return
        frame: dict[str, Any] = {"type": "heartbeat", "seq": seq}
        if self.skipped:
            frame["skipped"], self.skipped = self.skipped, []
        await self.send(text_data=json.dumps(frame))

    async def disconnect(self, code: int) -> None:
        heartbeats().discard(self)
        await self._leave_feed()
        if self.joined:
            await self.channel_layer.group_discard(campaign_group(self.campaign_id), self.channel_name)
            self.joined = False

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            command = json.loads(text_data or "")
        except (ValueError, RecursionError):  # deeply nested JSON overflows the decoder: an error frame too
            await self._error(_("El mensaje no es JSON válido."))
            return
        if isinstance(command, dict) and command.get("type") == "ping":
            await self.send(text_data='{"type":"pong"}')
        else:
            await self._error(_("Orden desconocida."))

    async def _error(self, message: str) -> None:
        await self.send(text_data=json.dumps({"type": "error", "message": message}))

    async def campaign_event(self, message: dict[str, Any]) -> None:
        """A ``campaign.event`` from the group, in this socket's own channel (without the hub)."""
        await self.forward(message)

    async def forward(self, message: dict[str, Any]) -> None:
        """Send a ``campaign.event`` (see ``campaigns.events.publish``) if this viewer may see it."""
        viewer = self.viewer
        seq = message["seq"]
        if viewer is None or seq <= self.hello_seq:
            return  # not (yet) connected, or already counted in the hello
        if message["event_type"] in REFRESH_TYPES and not await self._refresh(message):
            return
        viewer = self.viewer  # _refresh may have replaced it (a role change)
        assert viewer is not None
        if not policy.event_visible_to(viewer, message_audience(self.campaign_id, message), self.scene_ids):
            if len(self.skipped) < MAX_SKIPPED:
                self.skipped.append(seq)
            return
        text = message["frame"]
        if self.skipped:
            # Tell the client which missing seqs were filtered out on purpose, so their gap does not send
            # every socket of the campaign to the resync endpoint at once. It says no more than the gap.
            text = f'{text[:-1]},"skipped":{json.dumps(self.skipped)}}}'
            self.skipped = []
        await self.send(text_data=text)

    async def _refresh(self, message: dict[str, Any]) -> bool:
        """Re-read what a scene, membership or campaign change may have changed. False when the socket closed."""
        data = json.loads(message["frame"])["data"]
        viewer = self.viewer
        assert viewer is not None
        if not policy.event_changes_access(viewer, message["event_type"], data):
            return True  # nothing this socket may read depends on it
        loaded = await database_sync_to_async(_load_viewer)(self.scope.get("user"), self.campaign_id)
        if loaded is None:
            await self._close_no_access()
            return False
        self.viewer, self.scene_ids, _seq = loaded
        return True

    async def _close_no_access(self) -> None:
        # The viewer saw the campaign a moment ago and may not now: say why before closing, so a client
        # stops reconnecting instead of knocking on a door that stays shut. Nothing later reaches it.
        self.viewer = None
        await self.send(
            text_data=json.dumps(
                {"type": "error", "code": NO_ACCESS, "message": _("Ya no tienes acceso a esta partida.")}
            )
        )
        await self.close(code=CLOSE_NO_ACCESS)


__all__ = ["CLOSE_INVALID_TOKEN", "CLOSE_NOT_FOUND", "CLOSE_NO_ACCESS", "NO_ACCESS", "CampaignConsumer"]


class UserConsumer(AsyncWebsocketConsumer):
    """A signed-in user's own live channel (``/ws/me/``): frames such as ``{"type": "notices.changed"}``
    with nothing in them but the news that something of theirs changed; the page re-reads its regions
    (the header's notices, the home page's invitations, the dashboard) through the policy."""

    group: str | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_INVALID_TOKEN)
            return
        self.group = user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return  # nothing to ask: the channel only tells

    async def user_event(self, message: dict[str, Any]) -> None:
        await self.send(text_data=message["frame"])
