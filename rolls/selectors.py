"""Reads of rolls, shaped for the thread: every roll of a page of posts in two queries."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch, QuerySet
from django.http import Http404

from accounts.models import User
from campaigns import policy
from campaigns import selectors as campaign_selectors
from campaigns.models import Membership, Post, Role, Scene
from campaigns.policy import AnyUser, Viewer
from rolls import flows
from rolls.bindings import roll_binding_for
from rolls.bindings.base import DieFace
from rolls.models import Flow, FlowStatus, FlowStep, Roll, RollFollowUp
from systems.errors import RulesError
from systems.registry import ruleset_module


@dataclass(frozen=True)
class RollView:
    """A roll as one viewer may see it: secret parts only when the policy allows."""

    roll: Roll
    faces: list[DieFace]
    summary: str
    secret: dict[str, Any] | None
    gm_only: bool
    revealed: bool
    follow_ups: list[RollFollowUp]


def _summary(obj: Any, language: str) -> str:
    return obj.summary_en if language.startswith("en") and obj.summary_en else obj.summary_es


def view_roll(viewer: Viewer, roll: Roll, language: str = "es") -> RollView | None:
    """None when the viewer may not see the roll (a secret roll before its reveal)."""
    reveal = getattr(roll, "reveal", None)  # a missing one-to-one raises an AttributeError subclass
    revealed = reveal is not None
    if not policy.may_see_roll(viewer, gm_only=roll.gm_only, revealed=revealed):
        return None
    secret_visible = policy.may_see_roll_secret(viewer, secret_revealed=bool(reveal and reveal.include_secret))
    binding = roll_binding_for(roll.ruleset)
    return RollView(
        roll=roll,
        faces=binding.faces(roll.kind, roll.result),
        summary=_summary(roll, language),
        secret=roll.secret if (secret_visible and roll.secret) else None,
        gm_only=roll.gm_only,
        revealed=revealed,
        follow_ups=list(roll.follow_ups.all()),
    )


def _shaped() -> Any:
    return Roll.objects.select_related("reveal", "character", "roller").prefetch_related(
        Prefetch("follow_ups", queryset=RollFollowUp.objects.select_related("actor", "character").order_by("id"))
    )


def rolls_for_posts(viewer: Viewer, post_ids: Iterable[int], language: str = "es") -> dict[int, list[RollView]]:
    """The rolls of posts the viewer already may see, keyed by post id (constant queries)."""
    by_post: dict[int, list[RollView]] = defaultdict(list)
    for roll in _shaped().filter(post_id__in=list(post_ids)).order_by("post_id", "position", "id"):
        view = view_roll(viewer, roll, language)
        if view is not None and roll.post_id is not None:
            by_post[roll.post_id].append(view)
    return dict(by_post)


def rolls_of_post(viewer: Viewer, post_id: int, language: str = "es") -> list[RollView]:
    return rolls_for_posts(viewer, [post_id], language).get(post_id, [])


def roll_for(user: AnyUser | None, roll_id: int, lang: str) -> tuple[RollView, Viewer]:
    """One roll as this viewer may see it: 404 when its scene, its post or the roll itself (a secret roll
    before its reveal) is hidden from them."""
    roll = (
        Roll.objects.select_related("reveal", "character", "roller", "post")
        .prefetch_related(
            Prefetch("follow_ups", queryset=RollFollowUp.objects.select_related("actor", "character").order_by("id"))
        )
        .filter(pk=roll_id)
        .first()
    )
    if roll is None:
        raise Http404
    _scene, viewer, _readers, _writers = campaign_selectors.scene_for(user, roll.scene_id)
    if roll.post is not None:
        whisper_ids = list(roll.post.whisper_to.values_list("id", flat=True))
        if not policy.may_see_post(viewer, roll.post, whisper_ids):
            raise Http404
    view = view_roll(viewer, roll, lang)
    if view is None:
        raise Http404
    return view, viewer


@dataclass(frozen=True)
class StepView:
    """One accepted step. ``params`` only for GMs and the step's own actor (a sealed split is private)."""

    row: FlowStep
    params: dict[str, Any] | None


@dataclass(frozen=True)
class FlowView:
    """A flow as one viewer may see it: what it waits for and from whom (names), its rolls and steps."""

    flow: Flow
    kind_label: str
    step: str
    step_label: str
    waiting_gms: bool
    waiting_users: list[User]
    waiting_names: list[str]
    may_act: bool
    secret_state: dict[str, Any] | None
    rolls: list[RollView]
    steps: list[StepView]
    templates: list[str]

    @property
    def is_open(self) -> bool:
        return self.flow.status == FlowStatus.OPEN


def step_label(waiting_for: dict[str, Any], lang: str) -> str:
    """A handler may give ``label_es``/``label_en`` in ``waiting_for``; else the step key, readable."""
    label = waiting_for.get("label_en" if lang.startswith("en") else "label_es") or waiting_for.get("label_es")
    if label:
        return str(label)
    return str(waiting_for.get("step", "")).replace("_", " ")


def waiting_user_ids(waiting_for: dict[str, Any]) -> list[int]:
    users = waiting_for.get("users") or []
    return [int(u) for u in users if isinstance(u, int) or (isinstance(u, str) and u.isdigit())]


def waits_for_gm(waiting_for: dict[str, Any]) -> bool:
    who = waiting_for.get("who")
    return who == "gm" or (isinstance(who, list) and "gm" in who)


def may_act(viewer: Viewer, flow: Flow, step: str) -> bool:
    if not step or flow.status != FlowStatus.OPEN or not viewer.is_authenticated:
        return False
    try:
        handler = flows.flow_kind(flow.campaign.ruleset, flow.kind)
        return policy.may_act_in_flow(viewer, handler.actors(flow, step))
    except RulesError:
        return False


def flow_views(viewer: Viewer, flow_list: Sequence[Flow], lang: str) -> list[FlowView]:
    """Shape flows of one campaign for the viewer (who may read their scenes): a constant number of
    queries whatever the number of flows, rolls, follow-ups and steps."""
    flow_list = list(flow_list)
    if not flow_list:
        return []
    ids = [f.pk for f in flow_list]
    rolls = list(
        Roll.objects.filter(flow_id__in=ids)
        .select_related("reveal", "character", "roller", "post")
        .prefetch_related(
            Prefetch("follow_ups", queryset=RollFollowUp.objects.select_related("actor", "character").order_by("id"))
        )
        .order_by("flow_id", "id")
    )
    post_ids = {r.post_id for r in rolls if r.post_id is not None}
    visible_posts = (
        set(Post.objects.filter(pk__in=post_ids).filter(policy.visible_posts_q(viewer)).values_list("pk", flat=True))
        if post_ids
        else set()
    )
    rolls_by_flow: dict[int, list[RollView]] = {}
    for roll in rolls:
        if roll.post_id is not None and roll.post_id not in visible_posts:
            continue  # a roll follows its post's recipients
        shown = view_roll(viewer, roll, lang)
        if shown is not None:
            rolls_by_flow.setdefault(roll.flow_id, []).append(shown)  # type: ignore[arg-type]
    steps_by_flow: dict[int, list[StepView]] = {}
    for row in FlowStep.objects.filter(flow_id__in=ids).select_related("actor").order_by("id"):
        own = viewer.user_id is not None and row.actor_id == viewer.user_id
        params = row.params if (policy.may_see_flow_secret(viewer) or own) else None
        steps_by_flow.setdefault(row.flow_id, []).append(StepView(row, params))
    user_ids = {uid for f in flow_list if f.status == FlowStatus.OPEN for uid in waiting_user_ids(f.waiting_for)}
    users = {u.pk: u for u in User.objects.filter(pk__in=user_ids)} if user_ids else {}
    gms: list[User] = []
    if any(f.status == FlowStatus.OPEN and waits_for_gm(f.waiting_for) for f in flow_list):
        gms = [
            m.user
            for m in Membership.objects.filter(campaign_id=viewer.campaign_id, role=Role.GM)
            .select_related("user")
            .order_by("id")
        ]
    shaped = []
    for f in flow_list:
        waiting = f.waiting_for if f.status == FlowStatus.OPEN else {}
        step = str(waiting.get("step", ""))
        waiting_users = [users[uid] for uid in waiting_user_ids(waiting) if uid in users]
        waiting_gms = waits_for_gm(waiting)
        names = [u.public_name for u in (gms if waiting_gms else [])] + [u.public_name for u in waiting_users]
        module = ruleset_module(f.campaign.ruleset)
        shaped.append(
            FlowView(
                flow=f,
                kind_label=f.kind.replace("_", " ").replace("-", " "),
                step=step,
                step_label=step_label(waiting, lang) if waiting else "",
                waiting_gms=waiting_gms,
                waiting_users=waiting_users,
                waiting_names=list(dict.fromkeys(names)),
                may_act=may_act(viewer, f, step),
                secret_state=f.secret_state if policy.may_see_flow_secret(viewer) and f.secret_state else None,
                rolls=rolls_by_flow.get(f.pk, []),
                steps=steps_by_flow.get(f.pk, []),
                templates=[f"rolls/flows/{module}/{f.kind}.html", "rolls/_flow_generic.html"],
            )
        )
    return shaped


def scene_flows(scene: Scene, status: str | None = FlowStatus.OPEN) -> QuerySet[Flow]:
    """The flows of a scene (the caller has checked the viewer may read it), oldest first."""
    qs = Flow.objects.filter(scene=scene).select_related("campaign", "scene", "opened_by").order_by("id")
    return qs.filter(status=status) if status else qs


def flow_for(user: AnyUser | None, flow_id: int) -> tuple[Flow, Scene, Viewer, list[int], list[int]]:
    """A flow whose scene the viewer may read (404 otherwise)."""
    flow = Flow.objects.select_related("campaign", "scene", "opened_by").filter(pk=flow_id).first()
    if flow is None:
        raise Http404
    scene, viewer, readers, writers = campaign_selectors.scene_for(user, flow.scene_id)
    return flow, scene, viewer, readers, writers


# --- Fragments ------------------------------------------------------------------------------------
