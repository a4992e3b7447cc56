"""The one typed catalogue of live events, and how services publish them.

Services (and only services) call :func:`publish` inside their transaction. The event is stored in the
campaign's event log with the next per-campaign sequence number (so a reconnecting client catches up
from the database), and sent to the campaign's channel group only after the transaction commits.

Each event carries its *audience*, worked out once at publish time by the service: everyone who may
read the scene, the GMs only, or a list of users. Consumers forward an event to their socket only when
``policy.event_visible_to`` says so: a set lookup per recipient, never a query. The audience itself never
leaves the server.

What a client receives (socket frame, and each item of ``GET /api/campaigns/<id>/events/?after=<seq>``)::

    {"seq": 42, "type": "post.created", "data": {"scene_id": 7, "post_id": 311}}

``seq`` grows by one per event of the campaign; a client that sees a gap (or reconnects) asks the resync
endpoint for what it missed. Events a viewer may not see leave gaps too, so the endpoint also returns the
``seq`` to continue from. Events are small on purpose: clients fetch fresh fragments or JSON, through the
same policy, for the details.

Catalogue (GMs of the campaign receive every event; "scene readers" means whoever may read the scene):

====================== ============================================== ================================================
type                   data                                           audience
====================== ============================================== ================================================
post.created           scene_id, post_id                              to all: scene readers; to GMs: the GMs and the
                                                                      author; whisper: its targets and the author
                                                                      (and only those who may read the scene)
post.edited            scene_id, post_id                              as post.created
post.deleted           scene_id, post_id                              as post.created (those who saw it remove it)
aspect.changed         scene_id, aspect_id, action (added, changed,   scene readers; a hidden aspect (hidden before
                       deleted)                                       and after the change): GMs only
scene.changed          scene_id, action (created, changed, status,    scene readers; ``reordered`` (no scene_id):
                       reordered), status                             everyone who may see the campaign
membership.changed     user_id, role (None: no longer a member)       everyone who may see the campaign
join_request.changed   join_request_id, status                        the GMs and the requester
invitation.changed     invitation_id, status                          the GMs and the invited user
roll_request.changed   scene_id, roll_request_id, status              the GMs and the asked character's player (while
                                                                      they may read the scene)
character.changed      character_id, status, action (created,         approved: everyone; else the owner and GMs
                       edited, status)
pool.changed           ledger_id, operation                           everyone, or GMs only when the ruleset hides
                                                                      its pools (Presagios' threat)
track.changed          ledger_id, operation, character_id             the members with open sheets (PCs); else the
                                                                      owner and GMs
roll.made              scene_id, post_id, roll_id                     as the post the roll is attached to; a secret
                                                                      roll: the GMs until revealed
roll.followed_up       scene_id, post_id, roll_id, follow_up_id       as roll.made
roll.settled           scene_id, post_id, roll_id                     as roll.made
flow.changed           scene_id, flow_id, state                       scene readers (secret parts stay in the flow's
                                                                      GM-only state, never in ``data``)
campaign.changed       fields (the settings that changed, sorted),    everyone who may see the campaign (after the
                       visibility (public, private)                   change: sockets that may no longer see it are
                                                                      closed with 4403 first); a change of the GM
                                                                      notes alone: GMs only, and ``fields`` never
                                                                      names them to anyone else
====================== ============================================== ================================================

Sockets also send frames of their own: ``{"type": "hello", "seq": <last seq>}`` on connect,
``{"type": "error", "message": ...}`` when the client sends something they do not understand, and
``{"type": "error", "code": "no_access", "message": ...}`` just before closing with 4403 when the viewer
may no longer see the campaign (it turned private, or their membership of a private campaign ended).

The log keeps ``EVENT_LOG_RETENTION_DAYS`` of events (``campaigns.retention``), and always each
campaign's newest one; a resync from before the oldest kept event answers ``"reset": true`` instead of
a partial list, and the client reloads what it shows.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from enum import StrEnum
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

logger = logging.getLogger(__name__)


class EventType(StrEnum):
    POST_CREATED = "post.created"
    POST_EDITED = "post.edited"
    POST_DELETED = "post.deleted"
    ASPECT_CHANGED = "aspect.changed"
    SCENE_CHANGED = "scene.changed"
    MEMBERSHIP_CHANGED = "membership.changed"
    JOIN_REQUEST_CHANGED = "join_request.changed"
    INVITATION_CHANGED = "invitation.changed"
    ROLL_REQUEST_CHANGED = "roll_request.changed"
    CHARACTER_CHANGED = "character.changed"
    POOL_CHANGED = "pool.changed"
    TRACK_CHANGED = "track.changed"
    ROLL_MADE = "roll.made"
    ROLL_FOLLOWED_UP = "roll.followed_up"
    ROLL_SETTLED = "roll.settled"
    FLOW_CHANGED = "flow.changed"
    CAMPAIGN_CHANGED = "campaign.changed"


# The data fields each type carries, as the table above says: publish refuses an event missing one.
EVENT_FIELDS: dict[EventType, frozenset[str]] = {
    EventType.POST_CREATED: frozenset({"scene_id", "post_id"}),
    EventType.POST_EDITED: frozenset({"scene_id", "post_id"}),
    EventType.POST_DELETED: frozenset({"scene_id", "post_id"}),
    EventType.ASPECT_CHANGED: frozenset({"scene_id", "aspect_id", "action"}),
    EventType.SCENE_CHANGED: frozenset({"scene_id", "action", "status"}),
    EventType.MEMBERSHIP_CHANGED: frozenset({"user_id", "role"}),
    EventType.JOIN_REQUEST_CHANGED: frozenset({"join_request_id", "status"}),
    EventType.INVITATION_CHANGED: frozenset({"invitation_id", "status"}),
    EventType.ROLL_REQUEST_CHANGED: frozenset({"scene_id", "roll_request_id", "status"}),
    EventType.CHARACTER_CHANGED: frozenset({"character_id", "status", "action"}),
    EventType.POOL_CHANGED: frozenset({"ledger_id", "operation"}),
    EventType.TRACK_CHANGED: frozenset({"ledger_id", "operation", "character_id"}),
    EventType.ROLL_MADE: frozenset({"scene_id", "post_id", "roll_id"}),
    EventType.ROLL_FOLLOWED_UP: frozenset({"scene_id", "post_id", "roll_id", "follow_up_id"}),
    EventType.ROLL_SETTLED: frozenset({"scene_id", "post_id", "roll_id"}),
    EventType.FLOW_CHANGED: frozenset({"scene_id", "flow_id", "state"}),
    EventType.CAMPAIGN_CHANGED: frozenset({"fields", "visibility"}),
}
# Events after which a socket re-reads who its viewer is and which scenes it may read.
REFRESH_TYPES = frozenset({EventType.SCENE_CHANGED, EventType.MEMBERSHIP_CHANGED, EventType.CAMPAIGN_CHANGED})


@dataclass(frozen=True)
class Audience:
    """Who may receive an event. GMs of the campaign always may.

    ``scene_id`` set: whoever may read that scene (and, with ``user_ids``, only those users among them);
    ``gms_only``: the GMs; ``user_ids``: exactly these users (plus GMs); ``public``: anyone who may see
    the campaign.
    """

    public: bool = False
    gms_only: bool = False
    scene_id: int | None = None
    user_ids: frozenset[int] = field(default_factory=frozenset)

    def as_json(self) -> dict[str, Any]:
        return {
            "public": self.public,
            "gms_only": self.gms_only,
            "scene_id": self.scene_id,
            "user_ids": sorted(self.user_ids),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Audience:
        return cls(
            public=bool(data.get("public")),
            gms_only=bool(data.get("gms_only")),
            scene_id=data.get("scene_id"),
            user_ids=frozenset(data.get("user_ids") or ()),
        )


@dataclass(frozen=True)
class Event:
    """A small event: what changed and where; clients fetch fresh fragments or JSON for the details."""

    type: EventType
    campaign_id: int
    data: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        payload = asdict(self)
        payload["type"] = str(self.type)
        return payload


def frame(seq: int, event_type: str, data: dict[str, Any]) -> str:
    """The JSON text a client receives for one event, the same on a socket and (as an item) in a resync."""
    return json.dumps({"seq": seq, "type": event_type, "data": data}, separators=(",", ":"))


def client_event(seq: int, event_type: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"seq": seq, "type": event_type, "data": data}


def campaign_group(campaign_id: int) -> str:
    return f"campaign.{campaign_id}"


def user_group(user_id: int) -> str:
    """A signed-in user's own live channel (``campaigns.consumers.UserConsumer``): what changes for them
    outside any one campaign's page (the header's notices, home, the dashboard)."""
    return f"user.{user_id}"


# What a user's channel says: only that something of theirs changed; pages re-read it through the policy.
USER_EVENT_TYPES = frozenset({"notices.changed"})


def tell_users(user_ids: Iterable[int], event_type: str) -> None:
    """Tell these users' open pages, after the transaction commits, that ``event_type`` happened to them."""
    if event_type not in USER_EVENT_TYPES:
        raise ValueError(f"unknown user event {event_type}")
    targets = sorted(set(user_ids))
    if not targets:
        return
    text = json.dumps({"type": event_type}, separators=(",", ":"))

    def send() -> None:
        for user_id in targets:
            _group_send(user_group(user_id), {"type": "user.event", "frame": text})

    transaction.on_commit(send)


def post_audience(scene_id: int, recipients: str, author_id: int, whisper_ids: Iterable[int] = ()) -> Audience:
    """Who may hear of a post (and of the rolls attached to it): the same people who may see it."""
    from campaigns.models import Recipients

    if recipients == Recipients.GMS:
        return Audience(scene_id=scene_id, gms_only=True, user_ids=frozenset({author_id}))
    if recipients == Recipients.WHISPER:
        return Audience(scene_id=scene_id, user_ids=frozenset({author_id, *whisper_ids}))
    return Audience(scene_id=scene_id)


def publish(event: Event, audience: Audience) -> None:
    """Log the event, and after commit number it and send it.

    Must be called inside the service's transaction, so the event exists if and only if the change does.
    The row is written without its sequence number: numbering it then would hold the campaign's sequence
    row locked until the change commits, and one campaign's writes would queue behind each other. After
    commit one short transaction hands this transaction's events their numbers (one UPDATE ... RETURNING on
    the sequence, one UPDATE of the rows), and only then are they sent. So a client never sees a seq whose
    event is not committed, seqs follow the order in which events are numbered, and the log has no holes.
    The client's frame is serialized once, after numbering, so a socket forwards a ready string.
    """
    from campaigns.models import CampaignEventLog

    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("publish() must run inside the transaction of the change it announces")
    missing = EVENT_FIELDS[event.type] - set(event.data)
    if missing:
        raise ValueError(f"{event.type} needs data fields {sorted(missing)}")
    audience_json = audience.as_json()
    row = CampaignEventLog.objects.create(
        campaign_id=event.campaign_id, seq=None, type=str(event.type), data=event.data, audience=audience_json
    )
    audience_text = json.dumps(audience_json, separators=(",", ":"))
    # One callback per event, registered in order: Django drops those of a rolled-back savepoint.
    transaction.on_commit(lambda: _number_and_send(row.pk, event, audience_text))


def _number_and_send(row_id: int, event: Event, audience: str) -> None:
    from campaigns.models import CampaignEventLog

    try:
        if transaction.get_connection().vendor == "postgresql":
            seq, numbered = _number_in_one_statement(row_id)
        else:
            with transaction.atomic():
                seq = _advance_sequence(event.campaign_id, 1)
                numbered = CampaignEventLog.objects.filter(pk=row_id, seq__isnull=True).update(seq=seq)
                if not numbered:  # numbered by the stranded sweep meanwhile: give the number back
                    transaction.set_rollback(True)
    except Exception:  # the change is committed; number_stranded_events numbers it later
        logger.exception("could not number live event %s of campaign %s", row_id, event.campaign_id)
        return
    if numbered:
        _send(event.campaign_id, _message(seq, event, audience))


# An event still unnumbered this long after it was logged lost its after-commit step (the process died
# between COMMIT and the numbering, or the numbering failed).
STRANDED_AFTER = timedelta(seconds=60)


def number_stranded_events(limit: int = 100) -> int:
    """Number (and send) the events whose after-commit step never ran, oldest first; returns how many.
    Run periodically (the sockets' heartbeat task does), so a crash loses no event for resyncing clients."""
    from campaigns.models import CampaignEventLog

    cutoff = timezone.now() - STRANDED_AFTER
    rows = list(
        CampaignEventLog.objects.filter(seq__isnull=True, created_at__lt=cutoff)
        .order_by("id")
        .values_list("id", "campaign_id", "type", "data", "audience")[:limit]
    )
    for row_id, campaign_id, event_type, data, audience in rows:
        event = Event(EventType(event_type), campaign_id, data)
        _number_and_send(row_id, event, json.dumps(audience, separators=(",", ":")))
    return len(rows)


def _number_in_one_statement(row_id: int) -> tuple[int, int]:
    """PostgreSQL: number one logged event in a single statement (one round trip, not a transaction's
    four); the sequence row is locked only for that statement. An event already numbered (the stranded
    sweep and this step raced) takes no number, so the sequence has no gap. Returns (seq, rows numbered)."""
    from campaigns.models import CampaignEventLog, CampaignSequence

    connection = transaction.get_connection()
    log = connection.ops.quote_name(CampaignEventLog._meta.db_table)
    sequence = connection.ops.quote_name(CampaignSequence._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH target AS (SELECT campaign_id FROM {log} WHERE id = %s AND seq IS NULL FOR UPDATE), "
            f"advanced AS (INSERT INTO {sequence} (campaign_id, last) SELECT campaign_id, 1 FROM target "
            f"ON CONFLICT (campaign_id) DO UPDATE SET last = {sequence}.last + 1 RETURNING last) "
            f"UPDATE {log} SET seq = advanced.last FROM advanced WHERE {log}.id = %s RETURNING {log}.seq",
            [row_id, row_id],
        )
        row = cursor.fetchone()
    return (int(row[0]), 1) if row else (0, 0)


def _advance_sequence(campaign_id: int, count: int) -> int:
    """Take ``count`` numbers from the campaign's sequence (creating it at the first event): the last one."""
    from campaigns.models import CampaignSequence

    connection = transaction.get_connection()
    table = connection.ops.quote_name(CampaignSequence._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (campaign_id, last) VALUES (%s, %s) "
            f"ON CONFLICT (campaign_id) DO UPDATE SET last = {table}.last + excluded.last RETURNING last",
            [campaign_id, count],
        )
        row = cursor.fetchone()
    return int(row[0])


def _message(seq: int, event: Event, audience: str) -> dict[str, Any]:
    return {
        "type": "campaign.event",
        "seq": seq,
        "event_type": str(event.type),
        "frame": frame(seq, str(event.type), event.data),
        # A string, not a dict: the in-memory layer deep-copies each message once per recipient.
        "audience": audience,
    }


_AUDIENCE_CACHE_SIZE = 256
_audience_cache: dict[tuple[int, int], Audience] = {}


def message_audience(campaign_id: int, message: dict[str, Any]) -> Audience:
    """The audience of a ``campaign.event`` message, parsed once per process and event (not per socket)."""
    key = (campaign_id, message["seq"])
    audience = _audience_cache.get(key)
    if audience is None:
        audience = Audience.from_json(json.loads(message["audience"]))
        if len(_audience_cache) >= _AUDIENCE_CACHE_SIZE:
            _audience_cache.clear()  # events are consumed at once: old entries are never asked for again
        _audience_cache[key] = audience
    return audience


def last_seq(campaign_id: int) -> int:
    """The campaign's last sequence number (0 before its first event)."""
    from campaigns.models import CampaignSequence

    return CampaignSequence.objects.filter(campaign_id=campaign_id).values_list("last", flat=True).first() or 0


# Strong references to sends scheduled on a running loop, so they are not collected before they run.
_pending_sends: set[asyncio.Task[None]] = set()


def _send(campaign_id: int, message: dict[str, Any]) -> None:
    _group_send(campaign_group(campaign_id), message)


def _group_send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            # Committed from code running on an event loop (an async caller's thread): async_to_sync
            # refuses to block that loop, so hand the send to it.
            task = loop.create_task(layer.group_send(group, message))
            _pending_sends.add(task)
            task.add_done_callback(_pending_sends.discard)
            return
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # a lost message loses nothing: clients resync from the log, pages re-read
        logger.exception("could not send live message %s to %s", message.get("seq"), group)


__all__ = [
    "EVENT_FIELDS",
    "REFRESH_TYPES",
    "Audience",
    "Event",
    "EventType",
    "campaign_group",
    "client_event",
    "frame",
    "last_seq",
    "message_audience",
    "number_stranded_events",
    "post_audience",
    "publish",
    "tell_users",
    "user_group",
]
