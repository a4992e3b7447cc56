"""Transitional: the flow handlers written before procedures became typed step tables.

``rolls.runner`` runs every procedure; a ruleset whose procedures are still old-style handlers
(``FlowKind`` objects with ``start``/``actors``/``step``) is run through :func:`legacy_start` and
:func:`legacy_step` here. This module goes away once every ruleset declares step tables
(``rulesets.kit.procedures``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from accounts.models import User
from campaigns import policy
from campaigns import services as campaign_services
from campaigns.events import Event, EventType, publish
from campaigns.models import Post, Scene
from characters.models import Character
from characters.services import apply_operation, pydantic_to_validation_error
from rolls import runner
from rolls.models import Flow, FlowStatus, FlowStep, Roll, RollFollowUp
from rolls.runner import flow_audience
from rolls.services import RollSpec, make_roll, roll_audience
from rulesets import registry
from systems.dice import DiceSource, SystemDice
from systems.errors import RulesError

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
    kinds: Mapping[str, FlowKind] = registry.plugin(ruleset_key).procedures  # type: ignore[assignment]
    if kind not in kinds:
        raise RulesError(
            "unknown_flow",
            f"«{kind}» no es un procedimiento de este sistema.",
            f"'{kind}' is not a procedure of this ruleset.",
        )
    return kinds[kind]


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


def legacy_start(
    *,
    actor: User,
    scene: Scene,
    kind: str,
    params: Mapping[str, Any] | None = None,
    post: Post | None = None,
    dice: DiceSource | None = None,
) -> Flow:
    """Open an old-style flow (the runner has checked the scene is writable)."""
    handler = flow_kind(scene.campaign.ruleset, kind)
    with transaction.atomic():
        record = campaign_services.create_record_post(author=actor, scene=scene)
        flow = Flow.objects.create(campaign=scene.campaign, scene=scene, kind=kind, opened_by=actor, record=record)
        ctx = _context(actor, flow, dice, post)
        result = handler.start(ctx, dict(params or {}))
        _apply_result(actor, flow, result, None, post)
    return flow


def legacy_step(
    actor: User,
    flow: Flow,
    viewer: policy.Viewer,
    step: str,
    params: JSON,
    idempotency_key: str,
    digest: str,
    post: Post | None,
    dice: DiceSource | None,
) -> Flow:
    """One step of an old-style flow, inside the runner's transaction with the flow row locked."""
    if flow.status != FlowStatus.OPEN:
        raise RulesError(
            "flow_closed",
            "Este procedimiento ya está cerrado.",
            "This procedure is already closed.",
        )
    handler = flow_kind(flow.campaign.ruleset, flow.kind)
    if not policy.may_act_in_flow(viewer, handler.actors(flow, step)):
        raise PermissionDenied(_("Este paso no te corresponde."))
    ctx = _context(actor, flow, dice, post)
    result = handler.step(ctx, step, dict(params))
    recorded = dict(params) if result.step_params is None else result.step_params
    step_row = FlowStep.objects.create(
        flow=flow, step=step, actor=actor, params=recorded, idempotency_key=idempotency_key, request_digest=digest
    )
    _apply_result(actor, flow, result, step_row, post)
    return flow


# The entry points every caller uses (pages, API, tests): the runner's.
start_flow = runner.start_procedure
take_step = runner.take_step
