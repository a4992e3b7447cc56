"""Multi-step flows across posts and hours: one runner, one handler module per ruleset.

A flow (a DRYH conflict, an Event desafío, a FATE invocation window, a Presagios challenge) is a row
holding the pure state machine's state. Every step:
- locks the flow row, so two GMs acting at once or a double click serialize;
- is idempotent with a client key: a replayed request returns the flow as it is, changing nothing twice;
- asks the handler (pure rules behind it) for the new state; the rules refuse out-of-order steps;
- may make rolls, add follow-ups to rolls and apply sheet/pool operations through the ledger, all in the
  same transaction, and publishes ``flow.changed`` after commit.

Handlers live in ``rolls/flowkinds/<module>.py`` and expose ``FLOW_KINDS: dict[str, FlowKind]``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from accounts.models import User
from campaigns import policy
from campaigns.events import Audience, Event, EventType, publish
from campaigns.models import Post, Scene
from characters.models import Character
from characters.services import apply_operation, pydantic_to_validation_error
from rolls.models import Flow, FlowStatus, FlowStep, Roll, RollFollowUp
from rolls.services import RollSpec, make_roll, roll_audience
from systems.dice import DiceSource, SystemDice
from systems.errors import RulesError
from systems.registry import import_ruleset_part

JSON = dict[str, Any]


@dataclass(frozen=True)
class LedgerOp:
    """A sheet or pool operation the step applies through the ledger (characters.services)."""

    operation: str
    params: JSON = field(default_factory=dict)
    character_id: int | None = None
    reason: str = ""
    # The flow's rules grant this change to the step's actor (a player accepting a compel earns its PD): the
    # runner already checked who takes the step, so the direct-operation policy is not asked again.
    by_rules: bool = False


@dataclass(frozen=True)
class FollowUpSpec:
    """A linked record under a roll: what happened to it, in words, and its result afterwards."""

    roll_id: int
    kind: str
    summary_es: str
    summary_en: str
    data: JSON = field(default_factory=dict)
    result: JSON = field(default_factory=dict)
    character_id: int | None = None


@dataclass(frozen=True)
class StepResult:
    """What a step produced. ``actors``: who may take the next step (``"gm"`` or user ids)."""

    state: JSON
    waiting_for: JSON
    secret_state: JSON | None = None
    settled: bool = False
    cancelled: bool = False
    follow_ups: Sequence[FollowUpSpec] = ()
    ledger: Sequence[LedgerOp] = ()
    # What the step's row records instead of the request's params (a sealed split is never stored in clear).
    step_params: JSON | None = None


@dataclass(frozen=True)
class StepContext:
    """What a handler may read: the flow (locked), its rolls, the actor's viewer, the dice and settings.

    ``roll_maker(spec)`` rolls now with the server's dice, linked to the flow (and to the step's post), and
    returns the stored Roll, so the handler can feed its faces to the pure state machine.
    """

    flow: Flow
    actor: User
    viewer: policy.Viewer
    rolls: Sequence[Roll]
    characters: Mapping[int, Character]
    settings: Any
    dice: DiceSource
    roll_maker: Callable[[RollSpec], Roll]


class FlowKind(Protocol):
    key: str

    def start(self, ctx: StepContext, params: JSON) -> StepResult:
        """The first state. ``ctx.flow`` is the new row (state still empty); check here who may open it
        (with ``campaigns.policy``) and refuse with PermissionDenied or RulesError."""
        ...

    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        """Who may take ``step`` now according to the rules: ``"gm"`` and/or user ids."""
        ...

    def step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        """Apply ``step``; raise RulesError when the rules refuse it (out of order, settled...)."""
        ...


def parse_params(model: type[BaseModel], params: JSON) -> Any:
    """A step's params through its pydantic model; malformed ones are a ValidationError on ``params``."""
    try:
        return model.model_validate(params)
    except PydanticValidationError as exc:
        raise pydantic_to_validation_error(exc, "params") from None


def flow_kind(ruleset_key: str, kind: str) -> FlowKind:
    module = import_ruleset_part("rolls.flowkinds", ruleset_key, optional=True)
    kinds: Mapping[str, FlowKind] = getattr(module, "FLOW_KINDS", {})
    if kind not in kinds:
        raise RulesError(
            "unknown_flow",
            f"«{kind}» no es un procedimiento de este sistema.",
            f"'{kind}' is not a procedure of this ruleset.",
        )
    return kinds[kind]


def flow_audience(flow: Flow) -> Audience:
    """Flows are table business: whoever reads the scene (secret parts never leave ``secret_state``)."""
    return Audience(scene_id=flow.scene_id)


def _context(actor: User, flow: Flow, dice: DiceSource | None, post: Post | None) -> StepContext:
    from characters.services import campaign_settings

    viewer = policy.viewer_for(actor, flow.campaign)
    rolls = list(flow.rolls.order_by("id")) if flow.pk else []
    characters = {c.pk: c for c in Character.objects.filter(campaign=flow.campaign)}
    source = dice or SystemDice()
    counter = {"n": len(rolls)}

    def roll_maker(spec: RollSpec) -> Roll:
        roll = make_roll(actor=actor, scene=flow.scene, spec=spec, post=post, position=counter["n"], dice=source)
        counter["n"] += 1
        Roll.objects.filter(pk=roll.pk).update(flow=flow)
        roll.flow = flow
        return roll

    return StepContext(flow, actor, viewer, rolls, characters, campaign_settings(flow.campaign), source, roll_maker)


def _apply_result(actor: User, flow: Flow, result: StepResult, step_row: FlowStep | None, post: Post | None) -> None:
    for op in result.ledger:
        character = Character.objects.get(pk=op.character_id) if op.character_id else None
        apply_operation(
            actor=actor,
            campaign=flow.campaign,
            operation=op.operation,
            params=op.params,
            character=character,
            reason=op.reason,
            post=post,
            by_rules=op.by_rules,
            from_flow=True,
        )
    for follow_up in result.follow_ups:
        roll = Roll.objects.select_related("post").get(pk=follow_up.roll_id, flow=flow)
        record = RollFollowUp.objects.create(
            roll=roll,
            flow_step=step_row,
            kind=follow_up.kind,
            actor=actor,
            character_id=follow_up.character_id,
            data=follow_up.data,
            result=follow_up.result,
            summary_es=follow_up.summary_es[:300],
            summary_en=follow_up.summary_en[:300],
        )
        publish(
            Event(
                EventType.ROLL_FOLLOWED_UP,
                flow.campaign_id,
                {"scene_id": roll.scene_id, "post_id": roll.post_id, "roll_id": roll.pk, "follow_up_id": record.pk},
            ),
            roll_audience(roll, roll.post),
        )
    flow.state = result.state
    flow.waiting_for = result.waiting_for
    if result.secret_state is not None:
        flow.secret_state = result.secret_state
    if result.settled or result.cancelled:
        flow.status = FlowStatus.SETTLED if result.settled else FlowStatus.CANCELLED
        flow.settled_at = timezone.now()
    flow.save()
    publish(
        Event(
            EventType.FLOW_CHANGED,
            flow.campaign_id,
            {"scene_id": flow.scene_id, "flow_id": flow.pk, "state": flow.status},
        ),
        flow_audience(flow),
    )


def start_flow(
    *,
    actor: User,
    scene: Scene,
    kind: str,
    params: JSON | None = None,
    post: Post | None = None,
    dice: DiceSource | None = None,
) -> Flow:
    """Open a flow of the campaign's ruleset in ``scene`` (its handler checks who may open it)."""
    campaign = scene.campaign
    handler = flow_kind(campaign.ruleset, kind)
    viewer = policy.viewer_for(actor, campaign)
    readers = list(scene.readers.values_list("id", flat=True))
    writers = list(scene.writers.values_list("id", flat=True))
    if not policy.may_write_scene(viewer, scene, readers, writers):
        raise PermissionDenied(_("No puedes abrir un procedimiento en esta escena."))
    with transaction.atomic():
        flow = Flow.objects.create(campaign=campaign, scene=scene, kind=kind, opened_by=actor)
        ctx = _context(actor, flow, dice, post)
        result = handler.start(ctx, dict(params or {}))
        _apply_result(actor, flow, result, None, post)
    return flow


def take_step(
    *,
    actor: User,
    flow: Flow,
    step: str,
    params: JSON | None = None,
    idempotency_key: str = "",
    post: Post | None = None,
    dice: DiceSource | None = None,
) -> Flow:
    """Take one step of an open flow. A repeated idempotency key returns the flow unchanged."""
    if len(idempotency_key) > 80:
        raise ValidationError({"idempotency_key": _("Como mucho 80 caracteres.")})
    try:
        with transaction.atomic():
            flow = Flow.objects.select_for_update(of=("self",)).select_related("campaign", "scene").get(pk=flow.pk)
            if idempotency_key and FlowStep.objects.filter(flow=flow, idempotency_key=idempotency_key).exists():
                return flow  # the same request again (a double click, a retried API call)
            if flow.status != FlowStatus.OPEN:
                raise RulesError(
                    "flow_closed",
                    "Este procedimiento ya está cerrado.",
                    "This procedure is already closed.",
                )
            handler = flow_kind(flow.campaign.ruleset, flow.kind)
            viewer = policy.viewer_for(actor, flow.campaign)
            if not policy.may_act_in_flow(viewer, handler.actors(flow, step)):
                raise PermissionDenied(_("Este paso no te corresponde."))
            ctx = _context(actor, flow, dice, post)
            result = handler.step(ctx, step, dict(params or {}))
            recorded = dict(params or {}) if result.step_params is None else result.step_params
            step_row = FlowStep.objects.create(
                flow=flow, step=step, actor=actor, params=recorded, idempotency_key=idempotency_key
            )
            _apply_result(actor, flow, result, step_row, post)
            return flow
    except IntegrityError:
        # Two identical requests raced past the check: the other one won; report the flow as it is now.
        if idempotency_key:
            return Flow.objects.get(pk=flow.pk)
        raise
