"""Leaving the site: a person downloads their own data, and deletes their account.

This is the one accounts module that reaches into the features above accounts (campaigns, characters,
notifications, the roll chain): what a person leaves behind is spread over them. It is a service: the
erasure runs in one transaction and its live events are published after commit.

Deletion erases what is personal and keeps the story readable. The row stays (posts, rolls and revisions
point at it) under a neutral handle and the name "antiguo miembro"; email, avatar, password, tokens, push
subscriptions, the feed secret, notifications, choices, read marks and sessions go; their characters pass to
their campaigns' GMs as NPCs; the roll chain keeps their rolls' commitments but no longer opens them (a link's
content names its roller). A GM who is the last GM of a campaign still running must hand it over (invite
another GM) or end it first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.sessions.models import Session
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import FORMER_MEMBER, ApiToken, User
from campaigns.events import Audience, Event, EventType, publish
from campaigns.markdown import RENDERER_VERSION, render_markdown
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Invitation,
    JoinRequest,
    Membership,
    Post,
    PostKind,
    PostRevision,
    RequestStatus,
    Role,
    Scene,
    SceneReadMark,
)
from characters import portraits
from characters.models import Character
from notifications.models import (
    CampaignPreference,
    Delivery,
    FeedToken,
    Notification,
    PushSubscription,
    QuietHours,
)
from record.models import RollLink
from record.post_index import index_post

EXPORT_FORMAT = "tintero-account"
EXPORT_VERSION = 1


# --- Download -----------------------------------------------------------------------------------


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def export_account(user: User) -> dict[str, Any]:
    """Everything the person gave the site, as JSON-ready data: profile, memberships, their posts (as written,
    Markdown), their characters (sheets included), notification settings and API tokens (never their keys)."""
    memberships = Membership.objects.filter(user=user).select_related("campaign").order_by("campaign_id")
    posts = (
        Post.objects.filter(author=user, kind=PostKind.STORY, deleted_at__isnull=True)
        .select_related("scene__campaign", "character")
        .order_by("id")
    )
    characters = Character.objects.filter(owner=user).select_related("campaign").order_by("id")
    quiet = QuietHours.objects.filter(user=user).first()
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": timezone.now().isoformat(),
        "profile": {
            "id": user.pk,
            "username": user.username,
            "display_name": user.display_name,
            "email": user.email,
            "email_verified": user.email_verified,
            "pending_email": user.pending_email,
            "avatar": user.avatar.url if user.avatar else None,
            "date_joined": _iso(user.date_joined),
            "last_login": _iso(user.last_login),
        },
        "memberships": [
            {"campaign": m.campaign_id, "campaign_title": m.campaign.title, "role": m.role} for m in memberships
        ],
        "posts": [
            {
                "id": post.pk,
                "campaign": post.scene.campaign_id,
                "campaign_title": post.scene.campaign.title,
                "scene": post.scene_id,
                "scene_title": post.scene.title,
                "position": post.position,
                "voice": post.voice,
                "character": post.character.name if post.character else None,
                "npc_name": post.npc_name,
                "recipients": post.recipients,
                "body": post.body_source,
                "notes": post.notes_source,
                "created_at": _iso(post.created_at),
                "edited_at": _iso(post.edited_at),
            }
            for post in posts
        ],
        "characters": [
            {
                "id": c.pk,
                "campaign": c.campaign_id,
                "campaign_title": c.campaign.title,
                "name": c.name,
                "status": c.status,
                "description": c.description,
                "history": c.history,
                "sheet": c.sheet,
                "equipment": c.equipment,
                "notes": c.notes,
                "portrait": c.portrait.url if c.portrait else None,
                "created_at": _iso(c.created_at),
            }
            for c in characters
        ],
        "notification_settings": {
            "campaigns": [
                {"campaign": p.campaign_id, "email": p.email}
                for p in CampaignPreference.objects.filter(user=user).order_by("campaign_id")
            ],
            "default_email": settings.NOTIFICATION_EMAIL_DEFAULT,
            "quiet_hours": {"start": quiet.start, "end": quiet.end} if quiet else None,
            "push_browsers": PushSubscription.objects.filter(user=user).count(),
            "private_feed": FeedToken.objects.filter(user=user).exists(),
        },
        "api_tokens": [
            {"name": t.name, "prefix": t.prefix, "created_at": _iso(t.created_at), "expires_at": _iso(t.expires_at)}
            for t in ApiToken.objects.filter(user=user)
        ],
    }


# --- Deletion -----------------------------------------------------------------------------------


def campaigns_only_they_run(user: User) -> list[Campaign]:
    """The campaigns not finished where the user is the only GM: they must hand them over or end them."""
    run = Membership.objects.filter(user=user, role=Role.GM).values("campaign_id")
    other_gms = Membership.objects.filter(campaign_id=OuterRef("pk"), role=Role.GM).exclude(user=user)
    return list(
        Campaign.objects.filter(pk__in=run)
        .exclude(status=CampaignStatus.FINISHED)
        .exclude(Exists(other_gms))
        .order_by("title", "id")
    )


@dataclass(frozen=True)
class Erased:
    campaigns_left: int
    characters_passed: int


def _erase_mentions(old: str, new: str, campaign_ids: list[int]) -> None:
    """Others' posts that mention the account by its handle name it by the neutral one now. The handle is the
    site's way to point at an account, not the writer's prose: the text is otherwise untouched."""
    if not campaign_ids:
        return
    pattern = re.compile(rf"(?<![\w@])@{re.escape(old)}(?![\w.+-])", re.IGNORECASE)
    posts = Post.objects.filter(scene__campaign_id__in=campaign_ids, kind=PostKind.STORY).filter(
        Q(body_source__icontains=f"@{old}") | Q(notes_source__icontains=f"@{old}")
    )
    for post in posts.select_related("scene__campaign"):
        post.body_source = pattern.sub(f"@{new}", post.body_source)
        post.notes_source = pattern.sub(f"@{new}", post.notes_source)
        post.body_html = render_markdown(post.body_source)
        post.notes_html = render_markdown(post.notes_source) if post.notes_source else ""
        post.renderer_version = RENDERER_VERSION
        post.save(update_fields=["body_source", "notes_source", "body_html", "notes_html", "renderer_version"])
        index_post(post)
    revisions = PostRevision.objects.filter(post__scene__campaign_id__in=campaign_ids).filter(
        Q(body_source__icontains=f"@{old}") | Q(notes_source__icontains=f"@{old}")
    )
    for revision in revisions:
        revision.body_source = pattern.sub(f"@{new}", revision.body_source)
        revision.notes_source = pattern.sub(f"@{new}", revision.notes_source)
        revision.save(update_fields=["body_source", "notes_source"])


def _erase_from_inboxes(names: set[str], campaign_ids: list[int]) -> None:
    """Other people's notifications keep their words' parameters (names, titles): hers become the neutral name."""
    neutral = str(FORMER_MEMBER)
    for note in Notification.objects.filter(campaign_id__in=campaign_ids).only("id", "params"):
        params = note.params if isinstance(note.params, dict) else {}
        if any(value in names for value in params.values() if isinstance(value, str)):
            note.params = {k: neutral if isinstance(v, str) and v in names else v for k, v in params.items()}
            note.save(update_fields=["params"])


def _end_sessions(user_id: int) -> None:
    # Sessions are stored signed, not indexed by user: read the live ones once. Rare (one deletion), and the
    # password made unusable already ends them at their next request.
    ids = [
        s.pk
        for s in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if s.get_decoded().get("_auth_user_id") == str(user_id)
    ]
    Session.objects.filter(pk__in=ids).delete()


def delete_account(*, user: User) -> Erased:
    """Erase the account (see the module's docstring). A clear ValidationError when the user still runs a
    campaign alone, naming them."""
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user.pk)
        if user.deleted_at is not None:
            raise ValidationError(_("Esta cuenta ya está borrada."), code="deleted")
        blocking = campaigns_only_they_run(user)
        if blocking:
            titles = ", ".join(f"«{c.title}»" for c in blocking)
            raise ValidationError(
                _(
                    "Aún diriges partidas sin otro máster: %(campaigns)s. Invita a otro máster o termina esas "
                    "partidas antes de borrar tu cuenta."
                )
                % {"campaigns": titles},
                code="runs_campaigns",
            )
        left = list(Membership.objects.filter(user=user).values_list("campaign_id", flat=True))
        characters = list(Character.objects.filter(owner=user).values_list("pk", "campaign_id", "status"))
        # Their characters stay in the story, played from now on by the campaign's GMs.
        Character.objects.filter(owner=user).update(owner=None, is_npc=True, updated_at=timezone.now())
        Membership.objects.filter(user=user).delete()
        JoinRequest.objects.filter(user=user).delete()
        Invitation.objects.filter(Q(user=user) | Q(invited_by=user), status=RequestStatus.PENDING).delete()
        Scene.readers.through.objects.filter(user=user).delete()
        Scene.writers.through.objects.filter(user=user).delete()
        SceneReadMark.objects.filter(user=user).delete()
        Notification.objects.filter(user=user).delete()
        Delivery.objects.filter(user=user).delete()
        CampaignPreference.objects.filter(user=user).delete()
        QuietHours.objects.filter(user=user).delete()
        PushSubscription.objects.filter(user=user).delete()
        FeedToken.objects.filter(user=user).delete()
        ApiToken.objects.filter(user=user).delete()
        # A chained roll's content names its roller: the link keeps its commitment (the chain still verifies)
        # and no longer opens. Erasure is the one change a link ever takes.
        RollLink.objects.filter(roll__roller=user).update(content=None, salt="")
        previous_avatar = (user.avatar.name or "") if user.avatar else ""
        old_names = {user.username, user.display_name} - {""}
        _erase_mentions(user.username, f"antiguo-miembro-{user.pk}", left)
        _erase_from_inboxes(old_names, left)
        user.username = f"antiguo-miembro-{user.pk}"
        user.display_name = str(FORMER_MEMBER)
        user.first_name = user.last_name = ""
        user.email = user.pending_email = ""
        user.email_verified_at = None
        user.avatar = None
        user.is_active = user.is_staff = user.is_superuser = False
        user.last_login = None
        user.deleted_at = timezone.now()
        user.set_unusable_password()
        user.save()  # raises the profiles' version: kept thread pages show the new name
        portraits.delete_after_commit(user.avatar.storage, previous_avatar)
        _end_sessions(user.pk)
        for campaign_id in left:
            publish(
                Event(EventType.MEMBERSHIP_CHANGED, campaign_id, {"user_id": user.pk, "role": None}),
                Audience(public=True),
            )
        for character_id, campaign_id, status in characters:
            publish(
                Event(
                    EventType.CHARACTER_CHANGED,
                    campaign_id,
                    {"character_id": character_id, "status": status, "action": "edited"},
                ),
                Audience(gms_only=True),
            )
    return Erased(len(left), len(characters))
