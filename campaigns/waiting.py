"""What waits for a player, across their campaigns: the player's half of the dashboard.

- procedures waiting for them (an invocation to answer, a compel offered, a roll to make);
- whispers to them they have not read;
- scenes where it is their turn: an open scene they may write whose newest post is someone else's;
- rolls a GM asked of their characters, still open;
- invitations to campaigns, still to answer.

Reads only, each a constant number of queries whatever the number of campaigns and scenes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import F, Max, OuterRef, Q, Subquery

from accounts.models import User
from campaigns import policy
from campaigns.models import (
    Invitation,
    Membership,
    Post,
    Recipients,
    RequestStatus,
    Role,
    Scene,
    SceneReadMark,
    SceneStatus,
)
from campaigns.policy import Viewer
from notifications.models import RollRequest, RollRequestStatus
from rolls.models import Flow, FlowStatus
from rolls.selectors import FlowView, flow_views
from rulesets.kit.procedures import waiting_entries

# A player's campaigns (where they play, not the ones they run or only read).
PLAYING_ROLES = (Role.PLAYER,)
WHISPERS_SHOWN = 20
# Whose turn it is is read from the posts the whole scene sees (a whisper does not pass the turn).
PUBLIC_POSTS = Q(posts__deleted_at__isnull=True, posts__recipients=Recipients.EVERYONE)


@dataclass(frozen=True)
class TurnScene:
    scene: Scene
    last_post: Post


@dataclass(frozen=True)
class PlayerWaiting:
    flows: list[FlowView]
    whispers: list[Post]
    turns: list[TurnScene]
    roll_requests: list[RollRequest] = field(default_factory=list)
    invitations: list[Invitation] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.flows) + len(self.whispers) + len(self.turns) + len(self.roll_requests) + len(self.invitations)


def _memberships(user: User) -> list[Membership]:
    return list(Membership.objects.filter(user=user, role__in=PLAYING_ROLES).select_related("campaign"))


def _viewer(user: User, membership: Membership) -> Viewer:
    return policy.viewer_with_role(user.pk, membership.campaign, membership.role)


def waiting_flows(user: User, memberships: list[Membership], language: str) -> list[FlowView]:
    """Open procedures whose awaited steps name this user."""
    by_campaign = {m.campaign_id: m for m in memberships}
    flows = [
        flow
        for flow in Flow.objects.filter(campaign_id__in=by_campaign, status=FlowStatus.OPEN)
        .select_related("scene__campaign", "opened_by")
        .order_by("id")
        if user.pk in _awaited_users(flow.waiting_for)
    ]
    return flow_views(lambda f: _viewer(user, by_campaign[f.campaign_id]), flows, language)


def _awaited_users(waiting_for: object) -> set[int]:
    if not isinstance(waiting_for, dict):
        return set()
    return {user_id for entry in waiting_entries(waiting_for) for user_id in entry.users}


def unread_whispers(user: User, memberships: list[Membership]) -> list[Post]:
    """Whispers to this user, newer than their read mark in that scene, newest first."""
    last_read = SceneReadMark.objects.filter(scene=OuterRef("scene"), user=user).values("last_read_post_id")[:1]
    return list(
        Post.objects.filter(
            scene__campaign_id__in=[m.campaign_id for m in memberships],
            recipients=Recipients.WHISPER,
            whisper_to=user,
            deleted_at__isnull=True,
        )
        .annotate(last_read=Subquery(last_read))
        .filter(Q(last_read__isnull=True) | Q(pk__gt=F("last_read")))
        .select_related("scene__campaign", "author", "character")
        .order_by("-id")[:WHISPERS_SHOWN]
    )


def turn_scenes(user: User, memberships: list[Membership]) -> list[TurnScene]:
    """Open scenes the player may write whose newest visible post is someone else's, oldest wait first."""
    by_campaign = {m.campaign_id: m for m in memberships}
    scenes = list(
        Scene.objects.filter(campaign_id__in=by_campaign, status=SceneStatus.OPEN, is_offtopic=False)
        .annotate(
            newest=Max("posts__id", filter=Q(posts__deleted_at__isnull=True, posts__recipients=Recipients.EVERYONE))
        )
        .exclude(newest__isnull=True)
        .select_related("campaign")
        .prefetch_related("writers")
    )
    newest = {
        p.pk: p for p in Post.objects.filter(pk__in=[s.newest for s in scenes]).select_related("author", "character")
    }
    turns = []
    for scene in scenes:
        viewer = _viewer(user, by_campaign[scene.campaign_id])
        writer_ids = [w.pk for w in scene.writers.all()]
        if not policy.may_write_scene(viewer, scene, (), writer_ids):
            continue
        last = newest[scene.newest]
        if last.author_id != user.pk:
            turns.append(TurnScene(scene, last))
    turns.sort(key=lambda t: t.last_post.pk)
    return turns


def open_roll_requests(user: User, memberships: list[Membership]) -> list[RollRequest]:
    """Rolls a GM asked of this player's characters and nobody answered or withdrew, oldest first."""
    return list(
        RollRequest.objects.filter(
            campaign_id__in=[m.campaign_id for m in memberships],
            character__owner=user,
            status=RollRequestStatus.OPEN,
        )
        .select_related("scene__campaign", "character", "requested_by")
        .order_by("id")
    )


def pending_invitations(user: User) -> list[Invitation]:
    """Invitations to this user still to answer (they are not yet members: any campaign counts)."""
    return list(
        Invitation.objects.filter(user=user, status=RequestStatus.PENDING)
        .select_related("campaign", "invited_by")
        .order_by("created_at", "id")
    )


def player_waiting(user: User, language: str = "es") -> PlayerWaiting:
    invitations = pending_invitations(user)
    memberships = _memberships(user)
    if not memberships:
        return PlayerWaiting([], [], [], [], invitations)
    return PlayerWaiting(
        waiting_flows(user, memberships, language),
        unread_whispers(user, memberships),
        turn_scenes(user, memberships),
        open_roll_requests(user, memberships),
        invitations,
    )
