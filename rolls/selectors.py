"""Reads of rolls, shaped for the thread: every roll of a page of posts in two queries."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, OuterRef, Prefetch, QuerySet, prefetch_related_objects
from django.http import Http404

from accounts.models import User
from campaigns import policy
from campaigns import selectors as campaign_selectors
from campaigns.models import Membership, Post, Role, Scene
from campaigns.policy import AnyUser, Viewer
from rolls.models import Flow, FlowLine, FlowStatus, FlowStep, Roll, RollFollowUp
from rulesets import registry
from rulesets.kit.procedures import Choice, Procedure, Waiting, waiting_entries
from rulesets.kit.rolls import DieFace
from rulesets.kit.table import Reads
from systems.errors import RulesError


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
    # Its shared part already rendered (rolls.roll_fragments), on the thread page.
    kept_html: str = ""


def _summary(obj: Any, language: str) -> str:
    return obj.summary_en if language.startswith("en") and obj.summary_en else obj.summary_es


def view_roll(viewer: Viewer, roll: Roll, language: str = "es") -> RollView | None:
    """None when the viewer may not see the roll (a secret roll before its reveal)."""
    reveal = getattr(roll, "reveal", None)  # a missing one-to-one raises an AttributeError subclass
    revealed = reveal is not None
    if not policy.may_see_roll(viewer, gm_only=roll.gm_only, revealed=revealed):
        return None
    secret_visible = policy.may_see_roll_secret(viewer, secret_revealed=bool(reveal and reveal.include_secret))
    binding = registry.plugin(roll.ruleset).rolls
    return RollView(
        roll=roll,
        faces=binding.faces(roll.kind, roll.result),
        summary=_summary(roll, language),
        secret=roll.secret if (secret_visible and roll.secret) else None,
        gm_only=roll.gm_only,
        revealed=revealed,
        # A roll read without follow-ups (rolls_for_posts knows) skips the queryset: even an empty one
        # compiles its SQL.
        follow_ups=list(roll.follow_ups.all()) if getattr(roll, "has_follow_ups", True) else [],
    )


def _follow_ups() -> Prefetch:
    return Prefetch("follow_ups", queryset=RollFollowUp.objects.select_related("actor", "character").order_by("id"))


def _shaped() -> Any:
    return Roll.objects.select_related("reveal", "character", "roller", "chain_link").prefetch_related(_follow_ups())


def rolls_for_posts(viewer: Viewer, post_ids: Iterable[int], language: str = "es") -> dict[int, list[RollView]]:
    """The rolls of posts the viewer already may see, keyed by post id (constant queries)."""
    by_post: dict[int, list[RollView]] = defaultdict(list)
    # Follow-ups are read only for the rolls that have any (most have none): one query for a page's rolls.
    rolls = list(
        Roll.objects.select_related("reveal", "character", "roller", "chain_link")
        .annotate(has_follow_ups=Exists(RollFollowUp.objects.filter(roll_id=OuterRef("pk"))))
        .filter(post_id__in=list(post_ids))
        .order_by("post_id", "position", "id")
    )
    followed = [roll for roll in rolls if roll.has_follow_ups]  # type: ignore[attr-defined]
    for roll in rolls:
        if not roll.has_follow_ups:  # type: ignore[attr-defined]
            roll._prefetched_objects_cache = {"follow_ups": RollFollowUp.objects.none()}  # type: ignore[attr-defined]
    if followed:
        prefetch_related_objects(followed, _follow_ups())
    for roll in rolls:
        view = view_roll(viewer, roll, language)
        if view is not None and roll.post_id is not None:
            by_post[roll.post_id].append(view)
    return dict(by_post)


def new_roll_views(viewer: Viewer, rolls: Iterable[Roll], language: str = "es") -> list[RollView]:
    """Rolls just made in this request (``create_post_with_rolls``' ``post.made_rolls``), as the viewer sees
    them, without reading them back: a new roll has no reveal and no follow-ups yet."""
    views = []
    for roll in rolls:
        Roll.reveal.related.set_cached_value(roll, None)  # type: ignore[attr-defined]  # known absent: no query
        roll.has_follow_ups = False  # type: ignore[attr-defined]
        view = view_roll(viewer, roll, language)
        if view is not None:
            views.append(view)
    return views


def rolls_of_post(viewer: Viewer, post_id: int, language: str = "es") -> list[RollView]:
    return rolls_for_posts(viewer, [post_id], language).get(post_id, [])


def roll_for(user: AnyUser | None, roll_id: int, lang: str) -> tuple[RollView, Viewer]:
    """One roll as this viewer may see it: 404 when its scene, its post or the roll itself (a secret roll
    before its reveal) is hidden from them."""
    roll = (
        Roll.objects.select_related("reveal", "character", "roller", "post", "chain_link")
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
class WaitingView:
    """One step the procedure waits for, in words, and the names of who may take it."""

    step: str
    label: str
    gms: bool
    users: list[User]
    names: list[str]


@dataclass(frozen=True)
class ActionView:
    """A step this viewer may take now: its form's fields template (None: a button) and its pickers.
    ``unavailable``: why it cannot succeed now, in the page's language (shown disabled with those words)."""

    step: str
    label: str
    form: str | None
    choices: Mapping[str, Sequence[Choice]]
    unavailable: str = ""


@dataclass(frozen=True)
class FlowView:
    """A procedure as one viewer may see it: its title, what it waits for and from whom, the steps this
    viewer may take now, its rolls, its accepted steps and the lines of its record this viewer may read."""

    flow: Flow
    title: str
    waiting: list[WaitingView]
    actions: list[ActionView]
    secret_state: dict[str, Any] | None
    rolls: list[RollView]
    steps: list[StepView]
    lines: list[FlowLine]
    templates: list[str]
    language: str = "es"
    is_table: bool = True  # a step-table procedure (False: an old-style handler, until every ruleset moves)

    @property
    def is_open(self) -> bool:
        return self.flow.status == FlowStatus.OPEN

    @property
    def own_rolls(self) -> list[RollView]:
        """The rolls the procedure made itself (a roll it adopted from a post stays shown in its post)."""
        return [view for view in self.rolls if view.roll.post_id is None]

    # The first awaited step, for the old-style templates and the API's one-step summary.
    @property
    def step(self) -> str:
        return self.waiting[0].step if self.waiting else ""

    @property
    def step_label(self) -> str:
        return self.waiting[0].label if self.waiting else ""

    @property
    def kind_label(self) -> str:
        return self.title

    @property
    def waiting_gms(self) -> bool:
        return any(w.gms for w in self.waiting)

    @property
    def waiting_users(self) -> list[User]:
        return list({u.pk: u for w in self.waiting for u in w.users}.values())

    @property
    def waiting_names(self) -> list[str]:
        return list(dict.fromkeys(name for w in self.waiting for name in w.names))

    @property
    def may_act(self) -> bool:
        """Whether the viewer may take a step the procedure waits for."""
        awaited = {w.step for w in self.waiting}
        return any(a.step in awaited and not a.unavailable for a in self.actions)

    def line_text(self, line: FlowLine) -> str:
        return line.text_en if self.language.startswith("en") else line.text_es


def _actions(viewer: Viewer, flow: Flow, waiting: list[Waiting], table: Any, lang: str) -> list[ActionView]:
    """The steps the table offers now that the policy lets this viewer take."""
    if flow.status != FlowStatus.OPEN or not viewer.is_authenticated:
        return []
    procedure = registry.plugin(flow.campaign.ruleset).procedures.get(flow.kind)
    if procedure is None:
        return []
    state = procedure.load_state(flow.state)
    loaded: list[Any] = []  # the table, read once and only when a step needs it

    def read() -> Any:
        if not loaded:
            loaded.append(table())
        return loaded[0]

    offered = []
    for step, actors in procedure.offered(state):
        if policy.may_act_in_flow(viewer, actors):
            reason = step.why_unavailable(state, read(), viewer) if step.unavailable is not None else None
            if reason is not None:  # disabled with the reason: no pickers to read
                offered.append(ActionView(step.key, str(step.label), None, {}, reason.get(lang)))
                continue
            choices = step.choices(state, read(), viewer) if step.choices is not None else {}
            offered.append(ActionView(step.key, str(step.label), step.form, choices))
    return offered


def _may(viewer: Viewer, actors: Any) -> bool:
    try:
        return policy.may_act_in_flow(viewer, actors())
    except RulesError:
        return False


def _title(flow: Flow, lang: str) -> str:
    procedure = registry.plugin(flow.campaign.ruleset).procedures.get(flow.kind)
    if isinstance(procedure, Procedure):
        return str(procedure.title)
    names = getattr(procedure, "names", None)  # an old-style handler's names, when it has them
    return str(names.get(lang)) if names is not None else flow.kind.replace("_", " ")


def _flow_rolls(viewers: Mapping[int, Viewer], lang: str) -> dict[int, list[RollView]]:
    rolls = list(
        Roll.objects.filter(flow_id__in=list(viewers))
        .select_related("reveal", "character", "roller", "post", "chain_link")
        .prefetch_related(
            Prefetch("follow_ups", queryset=RollFollowUp.objects.select_related("actor", "character").order_by("id"))
        )
        .order_by("flow_id", "id")
    )
    post_ids = {r.post_id for r in rolls if r.post_id is not None}
    visible_posts: set[int] = set()
    if post_ids:  # one query per campaign (a dashboard spans the campaigns its GM runs)
        for campaign_viewer in {v.campaign_id: v for v in viewers.values()}.values():
            visible = Post.objects.filter(pk__in=post_ids, scene__campaign_id=campaign_viewer.campaign_id)
            visible_posts |= set(visible.filter(policy.visible_posts_q(campaign_viewer)).values_list("pk", flat=True))
    by_flow: dict[int, list[RollView]] = {}
    for roll in rolls:
        if roll.post_id is not None and roll.post_id not in visible_posts:
            continue  # a roll follows its post's recipients
        assert roll.flow_id is not None
        shown = view_roll(viewers[roll.flow_id], roll, lang)
        if shown is not None:
            by_flow.setdefault(roll.flow_id, []).append(shown)
    return by_flow


def _flow_steps(viewers: Mapping[int, Viewer]) -> dict[int, list[StepView]]:
    by_flow: dict[int, list[StepView]] = {}
    for row in FlowStep.objects.filter(flow_id__in=list(viewers)).select_related("actor").order_by("id"):
        who = viewers[row.flow_id]
        own = who.user_id is not None and row.actor_id == who.user_id
        params = row.params if (policy.may_see_flow_secret(who) or own) else None
        by_flow.setdefault(row.flow_id, []).append(StepView(row, params))
    return by_flow


def _flow_lines(viewers: Mapping[int, Viewer]) -> dict[int, list[FlowLine]]:
    by_flow: dict[int, list[FlowLine]] = {}
    for line in FlowLine.objects.filter(flow_id__in=list(viewers)).order_by("flow_id", "position"):
        if policy.may_read_record_line(viewers[line.flow_id], gm_only=line.gm_only):
            by_flow.setdefault(line.flow_id, []).append(line)
    return by_flow


def _waiting_views(flow_list: Sequence[Flow], lang: str) -> dict[int, list[WaitingView]]:
    """What each open procedure waits for, with the names of who may take each step (two queries)."""
    entries = {f.pk: waiting_entries(f.waiting_for) if f.status == FlowStatus.OPEN else [] for f in flow_list}
    user_ids = {uid for waiting in entries.values() for w in waiting for uid in w.users}
    users = {u.pk: u for u in User.objects.filter(pk__in=user_ids)} if user_ids else {}
    gms: dict[int, list[User]] = {}
    gm_campaigns = {f.campaign_id for f in flow_list if any(w.gm for w in entries[f.pk])}
    if gm_campaigns:
        memberships = Membership.objects.filter(campaign_id__in=gm_campaigns, role=Role.GM).select_related("user")
        for membership in memberships.order_by("id"):
            gms.setdefault(membership.campaign_id, []).append(membership.user)
    views: dict[int, list[WaitingView]] = {}
    for f in flow_list:
        views[f.pk] = []
        for w in entries[f.pk]:
            named = [users[u] for u in w.users if u in users]
            names = [u.public_name for u in (gms.get(f.campaign_id, []) if w.gm else [])] + [
                u.public_name for u in named
            ]
            views[f.pk].append(WaitingView(w.step, w.label.get(lang), w.gm, named, names))
    return views


def flow_views(
    viewer: Viewer | Callable[[Flow], Viewer], flow_list: Sequence[Flow], lang: str, *, with_actions: bool = True
) -> list[FlowView]:
    """Shape procedures for a viewer who may read their scenes (``viewer`` may be a function of the flow when
    they span campaigns, as on the GM dashboard): a constant number of queries whatever the number of
    procedures, rolls, follow-ups, steps and record lines (a step's pickers read the scene when offered;
    ``with_actions=False``, for the thread's records, offers none)."""
    flow_list = list(flow_list)
    if not flow_list:
        return []
    viewers = {f.pk: (viewer(f) if callable(viewer) else viewer) for f in flow_list}
    rolls, steps, lines = _flow_rolls(viewers, lang), _flow_steps(viewers), _flow_lines(viewers)
    waiting = _waiting_views(flow_list, lang)
    shaped = []
    for f in flow_list:
        who = viewers[f.pk]
        plugin = registry.plugin(f.campaign.ruleset)
        shaped.append(
            FlowView(
                flow=f,
                title=_title(f, lang),
                waiting=waiting[f.pk],
                actions=_actions(who, f, waiting_entries(f.waiting_for), lambda f=f: _table_for(f), lang)
                if with_actions
                else [],
                secret_state=f.secret_state if policy.may_see_flow_secret(who) and f.secret_state else None,
                rolls=rolls.get(f.pk, []),
                steps=steps.get(f.pk, []),
                lines=lines.get(f.pk, []),
                templates=[*filter(None, [plugin.templates.procedures.get(f.kind)]), "rolls/_flow_generic.html"],
                language=lang,
                is_table=isinstance(plugin.procedures.get(f.kind), Procedure),
            )
        )
    return shaped


def _table_for(flow: Flow) -> Any:
    """What a step's pickers and reasons read: the runner's table, unlocked (a page read takes no row locks,
    and on PostgreSQL a lock outside a transaction is an error)."""
    from rolls.runner import scene_table

    procedure = registry.plugin(flow.campaign.ruleset).procedure(flow.kind)
    return scene_table(flow.scene, procedure.reads, flow=flow, lock=False)


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


def opening_choices(scene: Scene, viewer: Viewer) -> dict[str, Mapping[str, Sequence[Choice]]]:
    """The pickers of each procedure's opening form in ``scene`` for this viewer (by procedure key): the
    scene is read once for all of them."""
    from rolls.runner import scene_table

    plugin = registry.plugin(scene.campaign.ruleset)
    tables = [p for p in plugin.procedures.values() if isinstance(p, Procedure) and p.opening.choices is not None]
    if not tables or not viewer.is_member:
        return {}
    reads = Reads(
        board=any(p.reads.board for p in tables),
        rules_state=any(p.reads.rules_state for p in tables),
        open_rolls=any(p.reads.open_rolls for p in tables),
    )
    table = scene_table(scene, reads, lock=False)
    return {p.key: p.opening.choices(table, viewer) for p in tables if p.opening.choices is not None}


def record_views(viewer: Viewer, post_ids: Iterable[int], lang: str) -> dict[int, FlowView]:
    """The procedures recorded by these thread posts (the viewer may see the posts), keyed by post id:
    the thread shows each as its record, in words and dice. A constant number of queries."""
    ids = list(post_ids)
    if not ids:
        return {}
    found = Flow.objects.filter(record_id__in=ids).select_related("campaign", "scene", "opened_by").order_by("id")
    return {view.flow.record_id: view for view in flow_views(viewer, list(found), lang, with_actions=False)}  # type: ignore[misc]
