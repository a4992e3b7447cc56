"""The GM dashboard's reads: every campaign a user runs, one selector per panel.

Each panel selector takes the list of campaigns (already known to be the viewer's as GM) and answers for
all of them at once, keyed by campaign id, with a constant number of queries whatever the number of
campaigns, scenes, posts, flows or characters. The page, its htmx fragments and ``GET /api/dashboard/``
all read through here, so they show the same thing.

Panels (``PANELS``): ``owed`` (who owes a post in each open scene), ``flows`` (open flows and Event answers
under veto), ``characters`` (awaiting approval), ``requests`` (join requests), ``pools``, ``npcs``,
``secret_rolls`` (not yet revealed) and ``aspects`` (of open scenes, with their free invocations).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Max, Prefetch, QuerySet
from django.utils import timezone

from accounts.models import User
from campaigns import policy
from campaigns.models import (
    Campaign,
    JoinRequest,
    Membership,
    Post,
    RequestStatus,
    Role,
    Scene,
    SceneAccess,
    SceneAspect,
    SceneStatus,
    Visibility,
)
from campaigns.policy import AnyUser, Viewer
from characters import selectors as character_selectors
from characters import services as character_services
from characters.models import CampaignRulesState, Character, CharacterStatus, EventAnswer
from rolls.models import Flow, FlowStatus, Roll, RollFollowUp
from rolls.selectors import FlowView, RollView, flow_views, view_roll

PANELS = ("owed", "flows", "characters", "requests", "pools", "npcs", "secret_rolls", "aspects")


# --- Campaigns ------------------------------------------------------------------------------------


def gm_campaigns_q(user: AnyUser | None) -> QuerySet[Campaign]:
    if user is None or not user.is_authenticated:
        return Campaign.objects.none()
    return Campaign.objects.filter(memberships__user_id=user.pk, memberships__role=Role.GM)


def gm_campaigns(user: AnyUser | None, campaign_id: int | None = None) -> list[Campaign]:
    """The campaigns the user runs (one query), most recently active first; ``campaign_id``: only that one
    (an empty list when the user is not its GM)."""
    campaigns = gm_campaigns_q(user).order_by("-updated_at", "-id")
    if campaign_id is not None:
        campaigns = campaigns.filter(pk=campaign_id)
    return list(campaigns)


def runs_campaigns(user: AnyUser | None) -> bool:
    """Whether the user is GM of at least one campaign (the header's link). Cached on the user object, so
    a page asks at most once."""
    if user is None or not user.is_authenticated:
        return False
    cached = getattr(user, "_tintero_runs_campaigns", None)
    if cached is None:
        cached = Membership.objects.filter(user_id=user.pk, role=Role.GM).exists()
        user._tintero_runs_campaigns = cached  # type: ignore[union-attr]
    return bool(cached)


def gm_viewer(user_id: int, campaign: Campaign) -> Viewer:
    """The viewer of a campaign the user runs, without a query (the caller knows the role)."""
    return policy.viewer_with_role(user_id, campaign, Role.GM)


def _ids(campaigns: Iterable[Campaign]) -> list[int]:
    return [c.pk for c in campaigns]


def _by_id(campaigns: Iterable[Campaign]) -> dict[int, Campaign]:
    return {c.pk: c for c in campaigns}


# --- Who owes a post ------------------------------------------------------------------------------


@dataclass(frozen=True)
class OwedPost:
    """A player who may write an open scene, and how long since their last post there (None: never)."""

    scene: Scene
    user: User
    last_post_at: datetime | None
    days: int | None

    @property
    def never(self) -> bool:
        return self.last_post_at is None


def _open_scenes(campaign_ids: Sequence[int]) -> list[Scene]:
    return list(
        Scene.objects.filter(campaign_id__in=campaign_ids, status=SceneStatus.OPEN, is_offtopic=False).order_by(
            "campaign_id", "position", "id"
        )
    )


def owed_posts(campaigns: Sequence[Campaign], now: datetime | None = None) -> dict[int, list[OwedPost]]:
    """For each open scene (off-topic aside), each player who may write it (``policy.may_write_scene``)
    with the days since their last post there, or never; longest wait first. Four queries.

    Every post the player has not deleted counts, whatever its voice or recipients."""
    now = now or timezone.now()
    ids = _ids(campaigns)
    by_id = _by_id(campaigns)
    result: dict[int, list[OwedPost]] = {cid: [] for cid in ids}
    scenes = _open_scenes(ids)
    if not scenes:
        return result
    listed = [s.pk for s in scenes if s.access == SceneAccess.LISTED]
    writers: dict[int, set[int]] = defaultdict(set)
    if listed:
        for scene_id, user_id in Scene.writers.through.objects.filter(scene_id__in=listed).values_list(
            "scene_id", "user_id"
        ):
            writers[scene_id].add(user_id)
    players: dict[int, list[User]] = defaultdict(list)
    for membership in (
        Membership.objects.filter(campaign_id__in=ids, role=Role.PLAYER).select_related("user").order_by("id")
    ):
        players[membership.campaign_id].append(membership.user)
    last: dict[tuple[int, int], datetime] = {
        (row["scene_id"], row["author_id"]): row["last"]
        for row in Post.objects.filter(scene_id__in=[s.pk for s in scenes], deleted_at__isnull=True)
        .values("scene_id", "author_id")
        .annotate(last=Max("created_at"))
        .order_by()
    }
    for scene in scenes:
        campaign = by_id[scene.campaign_id]
        scene.campaign = campaign  # no query when a template follows it
        for user in players[scene.campaign_id]:
            viewer = Viewer(user.pk, campaign.pk, campaign.visibility == Visibility.PUBLIC, Role.PLAYER)
            if not policy.may_write_scene(viewer, scene, (), writers[scene.pk]):
                continue
            at = last.get((scene.pk, user.pk))
            days = max(0, (now - at).days) if at is not None else None
            result[scene.campaign_id].append(OwedPost(scene, user, at, days))
    for lines in result.values():
        # Never first (oldest scene first among them), then the oldest last post.
        lines.sort(
            key=lambda o: (
                o.last_post_at is not None,
                o.last_post_at or o.scene.created_at,
                o.scene.position,
                o.user.pk,
            )
        )
    return result


# --- Pending flows --------------------------------------------------------------------------------


@dataclass(frozen=True)
class VetoAnswer:
    """An Event answer open to the table's veto (character creation or progress)."""

    answer: EventAnswer
    character: Character
    vetoes: int


def pending_flows(campaigns: Sequence[Campaign], user_id: int, language: str = "es") -> dict[int, list[FlowView]]:
    """The open flows of each campaign as its GM sees them (``rolls.views.FlowView``: what each waits for,
    from whom by name, the GM's secret state), oldest first. Six queries whatever the number of flows."""
    ids = _ids(campaigns)
    by_id = _by_id(campaigns)
    result: dict[int, list[FlowView]] = {cid: [] for cid in ids}
    flows = list(
        Flow.objects.filter(campaign_id__in=ids, status=FlowStatus.OPEN)
        .select_related("scene", "opened_by")
        .order_by("id")
    )
    if not flows:
        return result
    for flow in flows:
        flow.campaign = by_id[flow.campaign_id]
        flow.scene.campaign = flow.campaign
    for view in flow_views(lambda f: gm_viewer(user_id, f.campaign), flows, language):
        result[view.flow.campaign_id].append(view)
    return result


def veto_answers(campaigns: Sequence[Campaign]) -> dict[int, list[VetoAnswer]]:
    """Event answers still open to the table's veto, per campaign, oldest deadline first. One query."""
    from rulesets.event.creation import veto_count

    result: dict[int, list[VetoAnswer]] = {c.pk: [] for c in campaigns}
    answers = (
        EventAnswer.objects.filter(character__campaign_id__in=list(result), status=EventAnswer.Status.PENDING)
        .select_related("character", "author")
        .order_by("closes_at", "id")
    )
    for answer in answers:
        result[answer.character.campaign_id].append(VetoAnswer(answer, answer.character, veto_count(answer)))
    return result


# --- Characters and join requests -----------------------------------------------------------------


def pending_characters(campaigns: Sequence[Campaign]) -> dict[int, list[Character]]:
    """Characters waiting for a GM's approval, oldest submission first. One query."""
    result: dict[int, list[Character]] = {c.pk: [] for c in campaigns}
    for character in (
        Character.objects.filter(campaign_id__in=list(result), status=CharacterStatus.PENDING)
        .select_related("owner")
        .order_by("submitted_at", "id")
    ):
        result[character.campaign_id].append(character)
    return result


def join_requests(campaigns: Sequence[Campaign]) -> dict[int, list[JoinRequest]]:
    """Pending join requests, oldest first. One query."""
    result: dict[int, list[JoinRequest]] = {c.pk: [] for c in campaigns}
    for request in (
        JoinRequest.objects.filter(campaign_id__in=list(result), status=RequestStatus.PENDING)
        .select_related("user")
        .order_by("created_at", "id")
    ):
        result[request.campaign_id].append(request)
    return result


# --- Pools and NPCs -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pools:
    """A campaign's pools as its GM sees them (what ``characters.selectors.campaign_pools`` returns, read
    for every campaign in one query)."""

    public: bool
    state: dict[str, Any]
    pools: dict[str, int]


def pools(campaigns: Sequence[Campaign]) -> dict[int, Pools]:
    stored = dict(
        CampaignRulesState.objects.filter(campaign_id__in=_ids(campaigns)).values_list("campaign_id", "state")
    )
    result: dict[int, Pools] = {}
    for campaign in campaigns:
        binding = character_selectors.binding_of(campaign.ruleset)
        settings = character_services.campaign_settings(campaign)
        state = stored.get(campaign.pk)
        if state is None:
            state = binding.initial_campaign_state(settings)
        values = binding.pool_values(state, {})
        result[campaign.pk] = Pools(
            public=binding.pools_public(settings),
            state=state,
            pools={k: v for k, v in values.items() if k.startswith("campaign.")},
        )
    return result


def npcs(campaigns: Sequence[Campaign]) -> dict[int, list[Character]]:
    """Each campaign's NPCs that are not retired, by name, their campaign attached. One query."""
    by_id = _by_id(campaigns)
    result: dict[int, list[Character]] = {cid: [] for cid in by_id}
    for character in (
        Character.objects.filter(campaign_id__in=list(by_id), is_npc=True)
        .exclude(status=CharacterStatus.RETIRED)
        .order_by("name", "id")
    ):
        character.campaign = by_id[character.campaign_id]
        result[character.campaign_id].append(character)
    return result


# --- Secret rolls ---------------------------------------------------------------------------------


def secret_rolls(campaigns: Sequence[Campaign], user_id: int, language: str = "es") -> dict[int, list[RollView]]:
    """The GM-only rolls not yet revealed, newest first, as ``rolls.selectors.RollView``. Two queries."""
    by_id = _by_id(campaigns)
    result: dict[int, list[RollView]] = {cid: [] for cid in by_id}
    rolls = (
        Roll.objects.filter(campaign_id__in=list(by_id), gm_only=True, reveal__isnull=True)
        .select_related("reveal", "character", "roller", "scene", "post", "chain_link")
        .prefetch_related(
            Prefetch("follow_ups", queryset=RollFollowUp.objects.select_related("actor", "character").order_by("id"))
        )
        .order_by("-id")
    )
    for roll in rolls:
        campaign = by_id[roll.campaign_id]
        view = view_roll(gm_viewer(user_id, campaign), roll, language)
        if view is not None:
            result[roll.campaign_id].append(view)
    return result


# --- Aspects of open scenes -----------------------------------------------------------------------


@dataclass(frozen=True)
class SceneAspects:
    scene: Scene
    aspects: list[SceneAspect] = field(default_factory=list)


def open_scene_aspects(campaigns: Sequence[Campaign]) -> dict[int, list[SceneAspects]]:
    """Each open scene (off-topic aside) with its aspects, hidden ones included. Two queries."""
    by_id = _by_id(campaigns)
    result: dict[int, list[SceneAspects]] = {cid: [] for cid in by_id}
    scenes = _open_scenes(list(by_id))
    aspects: dict[int, list[SceneAspect]] = defaultdict(list)
    if scenes:
        for aspect in SceneAspect.objects.filter(scene_id__in=[s.pk for s in scenes]).order_by("position", "id"):
            aspects[aspect.scene_id].append(aspect)
    for scene in scenes:
        scene.campaign = by_id[scene.campaign_id]
        for aspect in aspects[scene.pk]:
            aspect.scene = scene
        result[scene.campaign_id].append(SceneAspects(scene, aspects[scene.pk]))
    return result


# --- Everything at once ---------------------------------------------------------------------------


@dataclass
class CampaignDashboard:
    """One campaign's panels; a panel not asked for stays empty."""

    campaign: Campaign
    viewer: Viewer
    owed: list[OwedPost] = field(default_factory=list)
    flows: list[FlowView] = field(default_factory=list)
    answers: list[VetoAnswer] = field(default_factory=list)
    characters: list[Character] = field(default_factory=list)
    join_requests: list[JoinRequest] = field(default_factory=list)
    pools: Pools | None = None
    npcs: list[Character] = field(default_factory=list)
    secret_rolls: list[RollView] = field(default_factory=list)
    aspect_scenes: list[SceneAspects] = field(default_factory=list)

    @property
    def pending_count(self) -> int:
        """What waits for the GM, for the campaign's heading."""
        return len(self.flows) + len(self.answers) + len(self.characters) + len(self.join_requests)


def dashboard(
    user: User, campaigns: Sequence[Campaign], panels: Iterable[str] = PANELS, language: str = "es"
) -> list[CampaignDashboard]:
    """The panels of ``campaigns`` (which the caller got from :func:`gm_campaigns`)."""
    wanted = set(panels)
    entries = {c.pk: CampaignDashboard(c, gm_viewer(user.pk, c)) for c in campaigns}
    if not entries:
        return []
    if "owed" in wanted:
        for cid, owed in owed_posts(campaigns).items():
            entries[cid].owed = owed
    if "flows" in wanted:
        for cid, flow_list in pending_flows(campaigns, user.pk, language).items():
            entries[cid].flows = flow_list
        for cid, answers in veto_answers(campaigns).items():
            entries[cid].answers = answers
    if "characters" in wanted:
        for cid, characters in pending_characters(campaigns).items():
            entries[cid].characters = characters
    if "requests" in wanted:
        for cid, requests in join_requests(campaigns).items():
            entries[cid].join_requests = requests
    if "pools" in wanted:
        for cid, campaign_pools in pools(campaigns).items():
            entries[cid].pools = campaign_pools
    if "npcs" in wanted:
        for cid, npc_list in npcs(campaigns).items():
            entries[cid].npcs = npc_list
    if "secret_rolls" in wanted:
        for cid, roll_views in secret_rolls(campaigns, user.pk, language).items():
            entries[cid].secret_rolls = roll_views
    if "aspects" in wanted:
        for cid, scene_aspects in open_scene_aspects(campaigns).items():
            entries[cid].aspect_scenes = scene_aspects
    return [entries[c.pk] for c in campaigns]


__all__ = [
    "PANELS",
    "CampaignDashboard",
    "OwedPost",
    "Pools",
    "SceneAspects",
    "VetoAnswer",
    "dashboard",
    "gm_campaigns",
    "gm_viewer",
    "join_requests",
    "npcs",
    "open_scene_aspects",
    "owed_posts",
    "pending_characters",
    "pending_flows",
    "pools",
    "runs_campaigns",
    "secret_rolls",
    "veto_answers",
]
