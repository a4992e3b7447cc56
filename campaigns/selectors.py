"""Every read of the forum core, with its query shape. Lists use a constant number of queries.

Selectors filter with the policy's Q objects, so a list never fetches what its viewer may not see.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db.models import (
    CharField,
    Count,
    F,
    IntegerField,
    Min,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    prefetch_related_objects,
)
from django.db.models.functions import Coalesce
from django.http import Http404
from django.utils import timezone

from accounts.models import User
from campaigns import policy, scene_annotations
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Invitation,
    JoinRequest,
    Membership,
    Post,
    PostRevision,
    Recipients,
    RequestStatus,
    Role,
    Scene,
    SceneAspect,
    SceneReadMark,
    Visibility,
)
from campaigns.policy import AnyUser, Viewer
from characters.models import Character


def visible_campaigns(user: AnyUser | None) -> QuerySet[Campaign]:
    """Campaign list: each with its GMs prefetched and member count annotated (3 queries in all)."""
    gms = Membership.objects.filter(role=Role.GM).select_related("user")
    return (
        Campaign.objects.filter(policy.visible_campaigns_q(user))
        .annotate(member_count=Count("memberships", distinct=True))
        .prefetch_related(Prefetch("memberships", queryset=gms, to_attr="gm_memberships"))
        .order_by("-updated_at", "-id")
    )


def campaigns_of(user: User) -> QuerySet[Campaign]:
    """The campaigns the user belongs to, with their role annotated as ``my_role``."""
    role = Membership.objects.filter(campaign=OuterRef("pk"), user=user).values("role")[:1]
    return (
        Campaign.objects.filter(memberships__user=user)
        .annotate(my_role=Subquery(role))
        .order_by("-updated_at", "-id")
        .distinct()
    )


def campaign_for(user: AnyUser | None, campaign_id: int) -> tuple[Campaign, Viewer]:
    """The campaign and the viewer's place in it; 404 when it does not exist *for this user*."""
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        raise Http404
    viewer = policy.viewer_for(user, campaign)
    if not policy.may_view_campaign(viewer):
        raise Http404  # a private campaign does not exist for an outsider
    return campaign, viewer


def members(campaign: Campaign) -> QuerySet[Membership]:
    return campaign.memberships.select_related("user").order_by("role", "joined_at", "id")


# Row ids are signed 64-bit in both databases; a larger number from a URL is no member (SQLite's driver
# raises OverflowError on it in a foreign-key lookup, which Django does not guard as it does primary keys).
ROW_ID_MAX = 2**63 - 1


def member(campaign: Campaign, user_id: int) -> Membership | None:
    """The membership of ``user_id`` in the campaign (with its user), or None."""
    if not 0 < user_id <= ROW_ID_MAX:
        return None
    return members(campaign).filter(user_id=user_id).first()


def pending_join_requests(campaign: Campaign) -> QuerySet[JoinRequest]:
    return campaign.join_requests.filter(status=RequestStatus.PENDING).select_related("user")


def pending_invitations(campaign: Campaign) -> QuerySet[Invitation]:
    return campaign.invitations.filter(status=RequestStatus.PENDING).select_related("user", "invited_by")


def invitations_for(user: User) -> QuerySet[Invitation]:
    return user.invitations.filter(status=RequestStatus.PENDING).select_related("campaign", "invited_by")


def invitation_to(user: AnyUser | None, campaign_id: int) -> Invitation | None:
    """The user's pending invitation to a campaign (what its page offers to accept or decline), if any."""
    if user is None or not user.is_authenticated:
        return None
    return (
        Invitation.objects.filter(campaign_id=campaign_id, user_id=user.pk, status=RequestStatus.PENDING)
        .select_related("campaign", "invited_by")
        .first()
    )


def characters_of(campaign: Campaign) -> QuerySet[Character]:
    return campaign.characters.select_related("owner").order_by("is_npc", "name", "id")


def load_campaign_characters(campaign: Campaign) -> list[Character]:
    """The campaign's characters, read once for a page and kept as ``campaign.characters.all()``, so every
    template and form of that page (composer, roll builder, procedure openings) uses the same list."""
    prefetch_related_objects(
        [campaign],
        Prefetch("characters", queryset=Character.objects.select_related("owner").order_by("is_npc", "name", "id")),
    )
    return list(campaign.characters.all())


def _visible_posts(viewer: Viewer) -> QuerySet[Post]:
    return Post.objects.filter(policy.visible_posts_q(viewer))


def readable_scenes(viewer: Viewer) -> QuerySet[Scene]:
    """The viewer's readable scenes, each with ``post_count`` and ``unread_count`` of visible posts."""
    visible = _visible_posts(viewer).filter(scene=OuterRef("pk"))
    count = visible.order_by().values("scene").annotate(n=Count("pk")).values("n")
    scenes = Scene.objects.filter(policy.readable_scenes_q(viewer)).annotate(
        post_count=Coalesce(Subquery(count, output_field=IntegerField()), Value(0))
    )
    if viewer.user_id is None:
        return scenes.annotate(unread_count=Value(0, output_field=IntegerField())).order_by("position", "id")
    last_read = SceneReadMark.objects.filter(scene=OuterRef("scene"), user_id=viewer.user_id).values(
        "last_read_post_id"
    )[:1]
    unread = (
        visible.annotate(last_read=Coalesce(Subquery(last_read), Value(0)))
        .filter(pk__gt=F("last_read"))
        .order_by()
        .values("scene")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return scenes.annotate(unread_count=Coalesce(Subquery(unread, output_field=IntegerField()), Value(0))).order_by(
        "position", "id"
    )


def scene_for(
    user: AnyUser | None, scene_id: int, *, for_thread: bool = False, for_api: bool = False
) -> tuple[Scene, Viewer, list[int], list[int]]:
    """The scene, the viewer, and the viewer's place on its reader/writer lists; 404 when the viewer may not
    read it.

    One query for the scene, its campaign, the viewer's role and whether they run any campaign (the header's
    link; not ``for_api``, which has no header); one more only for a scene with listed access.
    The lists returned hold the viewer's id where the viewer is on them (all the policy asks); a page
    that shows the whole lists reads them with :func:`scene_lists`. ``for_thread``: also whether the scene
    has open procedures (``scene.has_open_flows``), so a thread without any does not ask for them, the
    viewer's read marker (``scene.viewer_last_read``) and what a kept page is keyed on
    (``campaigns.scene_annotations.thread_annotations``).
    """
    user_id = user.pk if user is not None and user.is_authenticated else None
    scenes = Scene.objects.select_related("campaign").filter(pk=scene_id)
    if for_thread:
        # The campaign's rules state (pools) comes with the scene: the procedures' start forms read it. So
        # do whether the scene has open procedures or roll requests, and what a kept page is keyed on, read
        # in this statement, before anything the page shows (campaigns.thread_cache).
        scenes = scenes.select_related("campaign__rules_state").annotate(**scene_annotations.thread_annotations())
    if user_id is not None:
        scenes = scenes.annotate(
            **scene_annotations.viewer_annotations(user_id, for_thread=for_thread, for_header=not for_api)
        )
    scene = scenes.first()
    if scene is None:
        raise Http404
    if user_id is None:
        scene.viewer_last_read = 0  # type: ignore[attr-defined]
        viewer = policy.viewer_for(None, scene.campaign)
    else:
        viewer = policy.viewer_with_role(user_id, scene.campaign, scene.viewer_role)  # type: ignore[attr-defined]
        if not for_api:
            remember_runs_campaigns(user, scene.viewer_runs_campaigns)  # type: ignore[attr-defined]
    reader_ids: list[int] = []
    writer_ids: list[int] = []
    if user_id is not None and policy.scene_lists_decide(viewer, scene):
        reader_ids, writer_ids = _listed_ids(scene, user_id)
    if not policy.may_read_scene(viewer, scene, reader_ids, writer_ids):
        raise Http404
    return scene, viewer, reader_ids, writer_ids


def _listed_ids(scene: Scene, user_id: int) -> tuple[list[int], list[int]]:
    """Whether ``user_id`` is on the scene's reader and writer lists, in one query."""
    readers = Scene.readers.through.objects.filter(scene_id=scene.pk, user_id=user_id).values_list(
        "user_id", Value(0, output_field=IntegerField())
    )
    writers = Scene.writers.through.objects.filter(scene_id=scene.pk, user_id=user_id).values_list(
        "user_id", Value(1, output_field=IntegerField())
    )
    rows = list(readers.union(writers, all=True))
    return [uid for uid, kind in rows if kind == 0], [uid for uid, kind in rows if kind == 1]


def scene_lists(scene: Scene) -> tuple[list[int], list[int]]:
    """The scene's whole reader and writer lists (for the GM's scene form)."""
    return (
        list(scene.readers.values_list("id", flat=True)),
        list(scene.writers.values_list("id", flat=True)),
    )


def remember_runs_campaigns(user: AnyUser | None, runs: bool) -> None:
    """Hand the header's "runs a campaign" answer, read with the scene, to ``campaigns.dashboard``."""
    if user is not None and user.is_authenticated:
        user._tintero_runs_campaigns = runs  # type: ignore[union-attr,attr-defined,unused-ignore]


def scene_aspects(viewer: Viewer, scene: Scene) -> QuerySet[SceneAspect]:
    aspects = scene.aspects.all()
    return aspects if policy.may_see_hidden_aspect(viewer) else aspects.filter(hidden=False)


def thread_posts(viewer: Viewer, scene: Scene) -> QuerySet[Post]:
    """The scene's posts the viewer may see, shaped for the thread: no aggregate, no per-post query.

    Whisper recipients are not prefetched here: :func:`attach_whisper_recipients` reads them for the
    whispers of a page only.
    """
    return (
        _visible_posts(viewer)
        .filter(scene=scene)
        .select_related("author", "character", "deleted_by")
        .order_by("position", "id")
    )


def attach_whisper_recipients(posts: list[Post], known_users: Mapping[int, User] | None = None) -> None:
    """Fill ``post.whisper_to.all()`` for a page from the posts' ``whisper_ids``: no query when
    ``known_users`` (the campaign's members, read for the composer) names them all, one otherwise."""
    known: dict[int, User] = dict(known_users or {})
    missing = {uid for post in posts if post.recipients == Recipients.WHISPER for uid in post.whisper_ids} - set(known)
    if missing:
        named = User.objects.filter(pk__in=missing).only("id", "username", "display_name", "deleted_at")
        known.update((u.pk, u) for u in named)
    for post in posts:
        ids = post.whisper_ids if post.recipients == Recipients.WHISPER else []
        users = sorted((known[uid] for uid in ids if uid in known), key=lambda u: u.pk)
        post._prefetched_objects_cache = {"whisper_to": users}  # type: ignore[attr-defined]


@dataclass(frozen=True)
class ThreadPage:
    posts: list[Post]
    number: int
    num_pages: int
    # Posts to everyone in the thread (the numbering pages follow): the same number for every viewer.
    total: int

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages


def page_count(scene: Scene, per_page: int | None = None) -> int:
    per_page = per_page or settings.POSTS_PER_PAGE
    return max(1, -(-scene.last_post_position // per_page))


def thread_page_posts(viewer: Viewer, scene: Scene, number: int, per_page: int) -> QuerySet[Post]:
    """Page ``number``'s posts by stored position (an index range, never an OFFSET over what comes before)."""
    posts = thread_posts(viewer, scene)
    if number > 1:
        posts = posts.filter(position__gt=(number - 1) * per_page)
    if number < page_count(scene, per_page):
        # The last page is open-ended: a post written after the scene was read still shows there.
        posts = posts.filter(position__lte=number * per_page)
    return posts


def thread_page(
    viewer: Viewer,
    scene: Scene,
    page: int,
    per_page: int | None = None,
    known_users: Mapping[int, User] | None = None,
) -> ThreadPage:
    """One page of the thread: one query for its posts (and one for its whispers' recipients when
    ``known_users`` does not name them)."""
    per_page = per_page or settings.POSTS_PER_PAGE
    num_pages = page_count(scene, per_page)
    number = min(max(1, page), num_pages)
    posts = list(thread_page_posts(viewer, scene, number, per_page))
    attach_whisper_recipients(posts, known_users)
    return ThreadPage(posts, number, num_pages, scene.last_post_position)


def page_of_post(viewer: Viewer, post: Post, per_page: int | None = None) -> int:
    """Which page of its thread a post is on (the same for every viewer): permalinks stay stable as posts
    arrive, and finding the page costs no query."""
    per_page = per_page or settings.POSTS_PER_PAGE
    return max(1, -(-post.position // per_page))


def post_for(user: AnyUser | None, post_id: int) -> tuple[Post, Scene, Viewer]:
    """A single post the user may see (404 otherwise), with its scene and the viewer."""
    post = Post.objects.select_related("scene__campaign", "author", "character").filter(pk=post_id).first()
    if post is None:
        raise Http404
    scene, viewer, _readers, _writers = scene_for(user, post.scene_id)
    whisper_ids = list(post.whisper_to.values_list("id", flat=True))
    if not policy.may_see_post(viewer, post, whisper_ids):
        raise Http404
    return post, scene, viewer


def post_revisions(post: Post) -> QuerySet[PostRevision]:
    return post.revisions.select_related("edited_by").order_by("id")


def first_unread_post_id(viewer: Viewer, scene: Scene) -> int | None:
    if viewer.user_id is None:
        return None
    mark = SceneReadMark.objects.filter(scene=scene, user_id=viewer.user_id).values_list("last_read_post_id", flat=True)
    last_read = mark.first() or 0
    return (
        _visible_posts(viewer).filter(scene=scene, pk__gt=last_read).order_by("id").values_list("id", flat=True).first()
    )


@dataclass(frozen=True)
class UnreadScene:
    scene: Scene
    unread_count: int
    first_unread_id: int


def unread_scenes(user: User) -> list[UnreadScene]:
    """'Novedades': every scene with posts I have not read, across all my campaigns.

    One query per role group (GM campaigns see everything; the rest go through the post policy), not per
    campaign: the viewer of each campaign differs only by role.
    """
    memberships = list(
        Membership.objects.filter(user=user).select_related("campaign").only("role", "campaign__visibility")
    )
    results: list[UnreadScene] = []
    by_role: dict[str, list[Membership]] = {}
    for membership in memberships:
        by_role.setdefault(membership.role, []).append(membership)
    last_read = SceneReadMark.objects.filter(scene=OuterRef("scene"), user=user).values("last_read_post_id")[:1]
    for role, group in by_role.items():
        # The post and scene rules depend on the role and the user, not on which campaign: one query a role.
        viewer = Viewer(user.pk, group[0].campaign_id, True, role)
        rows = (
            Post.objects.filter(
                Q(scene__campaign_id__in=[m.campaign_id for m in group])
                & policy.scene_read_rule_q(role, user.pk, scene_path="scene__")
                & policy.visible_posts_q(viewer)
            )
            .annotate(last_read=Coalesce(Subquery(last_read), Value(0)))
            .filter(pk__gt=F("last_read"))
            .values("scene_id")
            .annotate(n=Count("pk"), first=Min("pk"))
            .order_by()
        )
        counts = {row["scene_id"]: (row["n"], row["first"]) for row in rows}
        if not counts:
            continue
        for scene in Scene.objects.filter(pk__in=counts).select_related("campaign"):
            n, first = counts[scene.pk]
            results.append(UnreadScene(scene, n, first))
    results.sort(key=lambda item: -item.first_unread_id)
    return results


def campaign_list(user: AnyUser | None, *, mine: bool = False) -> QuerySet[Campaign]:
    """``visible_campaigns`` with the user's role annotated as ``my_role`` (None for non-members).

    ``mine``: only the campaigns the user belongs to. Same query count as ``visible_campaigns``.
    """
    campaigns = visible_campaigns(user)
    if user is None or not user.is_authenticated:
        campaigns = campaigns.annotate(my_role=Value(None, output_field=CharField()))
        return campaigns.none() if mine else campaigns
    role = Membership.objects.filter(campaign=OuterRef("pk"), user_id=user.pk).values("role")[:1]
    campaigns = campaigns.annotate(my_role=Subquery(role, output_field=CharField()))
    if mine:
        campaigns = campaigns.filter(my_role__isnull=False)
    return campaigns


def join_request_for(user: AnyUser | None, join_request_id: int) -> JoinRequest:
    """A join request seen by its author or by a GM of its campaign; 404 for everyone else."""
    join_request = JoinRequest.objects.select_related("campaign", "user").filter(pk=join_request_id).first()
    if join_request is None or user is None or not user.is_authenticated:
        raise Http404
    if join_request.user_id != user.pk and not policy.may_manage_campaign(
        policy.viewer_for(user, join_request.campaign)
    ):
        raise Http404
    return join_request


def invitation_for(user: AnyUser | None, invitation_id: int) -> Invitation:
    """An invitation seen by a GM of its campaign or by the invited user (``policy.may_read_invitation``);
    404 for everyone else."""
    invitation = Invitation.objects.select_related("campaign", "user", "invited_by").filter(pk=invitation_id).first()
    if invitation is None or user is None or not user.is_authenticated:
        raise Http404
    viewer = policy.viewer_for(user, invitation.campaign)
    if not policy.may_read_invitation(
        viewer, addressed_to_viewer=invitation.user_id == user.pk, pending=invitation.status == RequestStatus.PENDING
    ):
        raise Http404
    return invitation


# --- The directory --------------------------------------------------------------------------------


@dataclass(frozen=True)
class DirectoryFilters:
    """What a visitor narrows the public directory by (every field optional)."""

    ruleset: str = ""
    language: str = ""
    recruiting: bool = False
    active_days: int | None = None


def directory(user: AnyUser | None, filters: DirectoryFilters) -> QuerySet[Campaign]:
    """Public campaigns (not the user's own: those are listed apart), with their GMs, player seats taken and
    last activity (the newest post), newest activity first. Three queries a page, whatever the filters."""
    latest_post = Post.objects.filter(scene__campaign=OuterRef("pk")).order_by("-id").values("created_at")[:1]
    gms = Membership.objects.filter(role=Role.GM).select_related("user")
    campaigns = Campaign.objects.filter(visibility=Visibility.PUBLIC)
    if user is not None and user.is_authenticated:
        campaigns = campaigns.exclude(memberships__user_id=user.pk)
    if filters.ruleset:
        campaigns = campaigns.filter(ruleset=filters.ruleset)
    if filters.language:
        campaigns = campaigns.filter(language=filters.language)
    if filters.recruiting:
        campaigns = campaigns.filter(status=CampaignStatus.RECRUITING)
    campaigns = campaigns.annotate(
        player_count=Count("memberships", filter=Q(memberships__role=Role.PLAYER), distinct=True),
        last_activity=Subquery(latest_post),
    )
    if filters.active_days is not None:
        since = timezone.now() - timedelta(days=filters.active_days)
        campaigns = campaigns.filter(last_activity__gte=since)
    return campaigns.prefetch_related(Prefetch("memberships", queryset=gms, to_attr="gm_memberships")).order_by(
        F("last_activity").desc(nulls_last=True), "-id"
    )


def player_count(campaign: Campaign) -> int:
    return campaign.memberships.filter(role=Role.PLAYER).count()
