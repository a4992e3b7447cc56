"""Reads of the notifications app: a user's inbox (only campaigns they may still see), counts, feeds."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q, QuerySet

from accounts.models import User
from campaigns import policy
from campaigns.mentions import mention_handle
from campaigns.models import Campaign, Membership, Post, Scene, SceneReadMark, Visibility
from characters.models import Character, CharacterStatus
from notifications.models import (
    CampaignPreference,
    CampaignReminder,
    FeedToken,
    Kind,
    Notification,
    RollRequest,
    RollRequestStatus,
)


def caught_up_q() -> Q:
    """A batch of new posts its user has since read in the scene (the scene's read marker passed its last
    post): it counts as read without a click."""
    return Q(kind=Kind.NEW_POSTS) & Q(
        Exists(
            SceneReadMark.objects.filter(
                user_id=OuterRef("user_id"), scene_id=OuterRef("scene_id"), last_read_post_id__gte=OuterRef("post_id")
            )
        )
    )


def unread_q() -> Q:
    return Q(read_at__isnull=True) & ~caught_up_q()


def inbox(user: User) -> QuerySet[Notification]:
    """The user's notifications, newest activity first, in campaigns, scenes and posts they may still read
    (one query)."""
    return (
        Notification.objects.filter(user=user)
        # An invitation reaches a user who is not yet a member (policy.may_answer_invitation).
        .filter(Q(campaign__in=Campaign.objects.filter(policy.visible_campaigns_q(user))) | Q(kind=Kind.INVITATION))
        .filter(policy.notification_still_readable_q(user.pk))
        .annotate(caught_up=ExpressionWrapper(caught_up_q(), output_field=BooleanField()))
        .select_related("campaign")
        .order_by("-updated_at", "-id")
    )


def unread_count(user: User) -> int:
    return inbox(user).filter(unread_q()).count()


def user_for_feed(token: str) -> User | None:
    """Whose private feed a secret URL opens (None: unknown or rotated)."""
    row = FeedToken.objects.select_related("user").filter(token=token).first()
    if row is None or not row.user.is_active:
        return None
    return row.user


def public_feed_posts(campaign: Campaign, limit: int = 50) -> list[Post]:
    """The newest posts an anonymous reader sees in a public campaign (nothing for a private one)."""
    viewer = policy.viewer_for(None, campaign)
    if not policy.has_public_feed(campaign) or not policy.may_view_campaign(viewer):
        return []
    scenes = Scene.objects.filter(policy.readable_scenes_q(viewer))
    return list(
        Post.objects.filter(scene__in=scenes)
        .filter(policy.visible_posts_q(viewer))
        .select_related("scene", "author", "character")
        .order_by("-id")[:limit]
    )


def email_choices(user: User) -> list[tuple[Campaign, str | None]]:
    """The user's campaigns with their mail choice (None: the default)."""
    return [(line.campaign, line.email) for line in campaign_settings(user)]


@dataclass(frozen=True)
class CampaignSettings:
    """One of the user's campaigns as the inbox's settings show it: their mail choice (None: the default)
    and, where they may set it (``policy.may_nudge``), the campaign's automatic reminder (0: none)."""

    campaign: Campaign
    email: str | None
    may_set_reminder: bool
    reminder_days: int


def campaign_settings(user: User) -> list[CampaignSettings]:
    """Three queries whatever the number of campaigns."""
    memberships = list(Membership.objects.filter(user=user).select_related("campaign").order_by("id"))
    chosen = dict(CampaignPreference.objects.filter(user=user).values_list("campaign_id", "email"))
    days = dict(
        CampaignReminder.objects.filter(campaign_id__in=[m.campaign_id for m in memberships]).values_list(
            "campaign_id", "days"
        )
    )
    lines = []
    for m in memberships:
        viewer = policy.viewer_with_role(user.pk, m.campaign, m.role)
        lines.append(
            CampaignSettings(
                m.campaign, chosen.get(m.campaign_id), policy.may_nudge(viewer), days.get(m.campaign_id, 0)
            )
        )
    return lines


def mention_names(scene: Scene, reader_ids: list[int], writer_ids: list[int]) -> list[dict[str, str]]:
    """Whom a post in ``scene`` may mention: the members who may read it (``@username``) and their approved
    characters (``@NameWithoutSpaces``, which names the player). Two queries."""

    campaign = scene.campaign
    public = campaign.visibility == Visibility.PUBLIC
    names = []
    readers: set[int] = set()
    for m in Membership.objects.filter(campaign=campaign).select_related("user").order_by("user__username"):
        viewer = policy.Viewer(m.user_id, campaign.pk, public, m.role)
        if policy.may_read_scene(viewer, scene, reader_ids, writer_ids):
            readers.add(m.user_id)
            names.append({"username": m.user.username, "name": m.user.public_name})
    for character in Character.objects.filter(
        campaign=campaign, is_npc=False, status=CharacterStatus.APPROVED, owner_id__in=readers
    ).order_by("name"):
        names.append({"username": mention_handle(character.name), "name": character.name})
    return names


def scene_roll_requests(viewer: policy.Viewer, scene: Scene) -> list[RollRequest]:
    """The open roll requests of a scene the viewer may see: all of them for a GM, their own characters'
    for a player. One query, kept on the scene for the rest of the page (the composer and the scene's
    requests panel both ask)."""
    if getattr(scene, "has_open_roll_requests", True) is False:  # known from the thread's scene query
        return []
    kept: dict[int | None, list[RollRequest]] = scene.__dict__.setdefault("_open_roll_requests", {})
    if viewer.user_id not in kept:
        kept[viewer.user_id] = _open_roll_requests(viewer, scene)
    return kept[viewer.user_id]


def _open_roll_requests(viewer: policy.Viewer, scene: Scene) -> list[RollRequest]:
    open_requests = RollRequest.objects.filter(scene=scene, status=RollRequestStatus.OPEN).select_related("character")
    if policy.may_request_roll(viewer):
        return list(open_requests)
    if viewer.user_id is None:
        return []
    return list(open_requests.filter(character__owner_id=viewer.user_id))


def composer_initial(viewer: policy.Viewer, scene: Scene) -> tuple[RollRequest | None, dict[str, object]]:
    """The viewer's oldest open roll request in the scene, and the composer's initial data answering it."""
    if policy.may_request_roll(viewer):
        return None, {}
    mine = scene_roll_requests(viewer, scene)
    if not mine:
        return None, {}
    request = mine[0]
    return request, {
        "voice": "character",
        "character": request.character_id,
        "roll_expression": request.expression,
        "roll_label": request.label,
    }
