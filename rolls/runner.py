"""The one runner of procedures (multi-step flows across posts and hours).

A ruleset declares each procedure as a typed step table (``rulesets.kit.procedures``); this module runs it:

- it locks the procedure's row, so two GMs acting at once or a double click serialize;
- a client's idempotency key makes a replayed step change nothing twice: the same request again returns the
  procedure as it is; the same key with another request is a conflict (409); both only for whoever took the
  step, after the permission check;
- it asks the table who may take the step by the rules and the policy module whether this viewer is one of
  them; a step the table does not offer now is refused with one code (``step_not_available``), and one it
  offers that cannot succeed now (``Step.unavailable``: an empty pool) with another (``step_unavailable``);
- it loads what the step reads (characters, the procedure's rolls, the scene board, the rules state, the
  scene's open rolls) in one fixed order, lets the step's pure function compute an ``Outcome``, then applies
  it in the same transaction: rolls adopted, ledger operations, follow-ups under rolls, scene-board changes,
  the record's lines; it derives ``waiting_for`` from the table and publishes after commit.

Locks follow the one order of a write in a scene (``campaigns.scene_locks``): the procedures (a step's own
with the others it reads, in id order), the scene and the author's read mark (an opening's record post), the
rules state, the characters of the step's ledger operations, stored rolls, and the campaign's roll chain
last: the rolls a step makes are chained just before the commit. A deadlock is retried once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from accounts.models import User
from campaigns import policy
from campaigns import services as campaign_services
from campaigns.error_codes import IDEMPOTENCY_CONFLICT
from campaigns.events import Audience, Event, EventType, publish
from campaigns.models import Post, Scene, SceneAspect
from campaigns.scene_locks import retried_once_on_deadlock
from characters.models import CampaignRulesState, Character, CharacterStatus
from characters.services import apply_operation, campaign_settings, pydantic_to_validation_error
from record.chain import append_follow_up, append_roll
from rolls.models import Flow, FlowLine, FlowStatus, FlowStep, Roll, RollFollowUp, RollReveal
from rolls.services import make_roll, reveal_roll, roll_audience
from rulesets import registry
from rulesets.kit.procedures import (
    AddAspect,
    BoardChange,
    Opening,
    OpeningInput,
    OtherProcedure,
    Outcome,
    Procedure,
    RemoveAspect,
    Step,
    StepInput,
    waiting_json,
)
from rulesets.kit.refusals import refuse, step_not_available, step_unavailable
from rulesets.kit.rolls import RollSpec
from rulesets.kit.table import (
    BoardAspect,
    CharacterFacts,
    EarlierProcedure,
    ProcedureFacts,
    Reads,
    StoredRoll,
    Table,
)
from systems.dice import DiceSource, SystemDice
from systems.errors import RulesError

JSON = dict[str, Any]
MAX_KEY_LENGTH = 80


class IdempotencyConflict(Exception):
    """The idempotency key was already used for another request on this procedure (HTTP 409)."""

    code = IDEMPOTENCY_CONFLICT.code
    http_status = IDEMPOTENCY_CONFLICT.status

    def __init__(self) -> None:
        super().__init__(_("Esa clave de idempotencia ya se usó para otra petición."))


# --- Reads ----------------------------------------------------------------------------------------


def stored_roll(row: Roll) -> StoredRoll:
    return StoredRoll(
        id=row.pk,
        kind=row.kind,
        ruleset=row.ruleset,
        character_id=row.character_id,
        roller_id=row.roller_id,
        post_id=row.post_id,
        procedure_id=row.flow_id,
        request=dict(row.request),
        result=dict(row.result),
        secret=dict(row.secret),
        gm_only=row.gm_only,
        label=row.label,
        revealed=bool(getattr(row, "revealed", False)),
        # 0: a post not yet placed in its thread has no number to show.
        post_number=getattr(row, "post_number", None) or None if row.post_id is not None else None,
    )


def _character_facts(row: Character) -> CharacterFacts:
    return CharacterFacts(
        id=row.pk,
        name=row.name,
        owner_id=row.owner_id,
        is_npc=row.is_npc,
        approved=row.status == CharacterStatus.APPROVED,
        sheet=dict(row.sheet or {}),
    )


def load_table(flow: Flow, procedure: Procedure[Any]) -> Table:
    """What a step of ``procedure`` reads (see :func:`scene_table`), with the procedure's own rolls."""
    return scene_table(flow.scene, procedure.reads, flow=flow)


def scene_table(scene: Scene, reads: Reads, *, flow: Flow | None = None, lock: bool = True) -> Table:
    """What a procedure in ``scene`` reads, loaded in one fixed order: the rules state (locked inside a step),
    the characters, the procedure's rolls, the board, the scene's open rolls."""
    campaign = scene.campaign
    settings = campaign_settings(campaign)
    # The other procedures first, then the rules state: the order of campaigns.scene_locks (a step has
    # locked these procedures already, with its own).
    others: list[ProcedureFacts] = []
    if reads.procedures and flow is not None:
        rows_other = Flow.objects.filter(campaign=campaign, kind__in=reads.procedures).exclude(pk=flow.pk)
        for other in (rows_other.select_for_update(of=("self",)) if lock else rows_other).order_by("pk"):
            facts = ProcedureFacts(
                other.pk, other.kind, other.status == FlowStatus.OPEN, other.state, other.secret_state
            )
            others.append(facts)
    rules_state: JSON = {}
    # A page's read (lock=False) reuses what the page already loaded: the rules state that came with the
    # scene (selectors.scene_for) and the campaign's characters (selectors.load_campaign_characters).
    loaded = campaign._state.fields_cache
    if reads.rules_state:
        if not lock and "rules_state" in loaded:
            row = loaded["rules_state"]
        else:
            rows = CampaignRulesState.objects.filter(campaign=campaign)
            row = (rows.select_for_update() if lock else rows).first()
        plugin = registry.plugin(campaign.ruleset)
        rules_state = dict(row.state) if row is not None else plugin.sheet.initial_campaign_state(settings)
    prefetched = getattr(campaign, "_prefetched_objects_cache", {}).get("characters")
    rows_characters = (
        sorted(prefetched, key=lambda c: c.pk)
        if not lock and prefetched is not None
        else Character.objects.filter(campaign=campaign).order_by("pk")
    )
    characters = {c.pk: _character_facts(c) for c in rows_characters}
    rows_rolls = Roll.objects.filter(flow=flow).annotate(post_number=F("post__position"))
    rolls = [stored_roll(r) for r in rows_rolls.order_by("id")] if flow and flow.pk else []
    board: dict[int, BoardAspect] = {}
    if reads.board:
        for aspect in SceneAspect.objects.filter(scene_id=scene.pk).order_by("position", "id"):
            board[aspect.pk] = BoardAspect(aspect.pk, aspect.text, aspect.hidden, aspect.free_invocations)
    open_rolls: list[StoredRoll] = []
    if reads.open_rolls:
        rows_open = Roll.objects.filter(scene_id=scene.pk, ruleset=campaign.ruleset, flow__isnull=True).annotate(
            revealed=Exists(RollReveal.objects.filter(roll=OuterRef("pk"))), post_number=F("post__position")
        )
        open_rolls = [stored_roll(r) for r in rows_open.order_by("-id")[:200]]
    earlier: list[EarlierProcedure] = []
    if reads.earlier_procedures:
        rows_earlier = (
            Flow.objects.filter(scene_id=scene.pk, pk__lt=flow.pk) if flow and flow.pk else Flow.objects.none()
        )
        earlier = [EarlierProcedure(f.pk, f.kind, f.status, dict(f.state)) for f in rows_earlier.order_by("-pk")[:20]]
    return Table(
        campaign_id=campaign.pk,
        scene_id=scene.pk,
        language=campaign.language,
        settings=settings,
        characters=characters,
        rolls=rolls,
        board=board,
        rules_state=rules_state,
        open_rolls=open_rolls,
        earlier=earlier,
        procedures=others,
    )


def parse_params(model: type[BaseModel], params: Mapping[str, Any]) -> Any:
    """A step's params through its model; malformed ones are a ValidationError on ``params``.

    HTML forms send "" for an empty field: it reads as absent, so a model's default (or its "required")
    applies instead of a silent zero.
    """
    cleaned = {key: value for key, value in params.items() if value != ""}
    try:
        return model.model_validate(cleaned)
    except PydanticValidationError as exc:
        raise pydantic_to_validation_error(exc, "params") from None


# --- Applying an outcome --------------------------------------------------------------------------


def _roll_maker(
    actor: User, flow: Flow, post: Post | None, dice: DiceSource, made: list[Roll]
) -> Callable[[RollSpec], StoredRoll]:
    """Roll for a step; each roll is appended to ``made``, for :func:`_chain` to link at the end."""
    counter = {"n": Roll.objects.filter(flow=flow).count() if flow.pk else 0}

    def roll(spec: RollSpec) -> StoredRoll:
        roller = _controller(actor, flow, spec.character_id) if spec.for_controller else actor
        row = make_roll(
            actor=roller, scene=flow.scene, spec=spec, post=post, position=counter["n"], dice=dice, link=False
        )
        made.append(row)
        counter["n"] += 1
        Roll.objects.filter(pk=row.pk).update(flow=flow)
        row.flow = flow
        row.post_number = post.position if post is not None else None  # type: ignore[attr-defined]
        return stored_roll(row)

    return roll


def _controller(actor: User, flow: Flow, character_id: int | None) -> User:
    """Who rolls a character's dice in a procedure (``RollSpec.for_controller``): its player; for an NPC
    the acting GM, or the GM who opened the procedure when someone else's step needs them."""
    found = Character.objects.select_related("owner").filter(campaign_id=flow.campaign_id)
    character = found.filter(pk=character_id).first() if character_id is not None else None
    if character is None:
        return actor
    if not character.is_npc and character.owner is not None:
        return character.owner
    return actor if policy.may_roll_for_npc(policy.viewer_for(actor, flow.campaign)) else flow.opened_by


def _adopt(flow: Flow, roll_ids: Any) -> None:
    for roll_id in roll_ids:
        # The one link a procedure adds to a stored roll: nothing of the evidence changes, and a roll
        # belongs to one procedure only (two procedures racing for it: one wins, the other is refused).
        if not Roll.objects.filter(pk=roll_id, scene_id=flow.scene_id, flow__isnull=True).update(flow=flow):
            raise refuse(
                "roll_has_procedure",
                "Esa tirada ya tiene su procedimiento.",
                "That roll already has its procedure.",
            )


def _apply_board(actor: User, flow: Flow, change: BoardChange) -> None:
    scene = flow.scene
    if isinstance(change, AddAspect):
        campaign_services.add_scene_aspect(
            actor=actor,
            scene=scene,
            text=change.text,
            hidden=change.hidden,
            free_invocations=change.free_invocations,
            by_rules=True,
        )
        return
    aspect = SceneAspect.objects.filter(pk=change.aspect_id, scene=scene).first()
    if aspect is None:
        raise refuse("aspect_unknown", "Ese aspecto ya no está en la escena.", "That aspect is no longer in the scene.")
    if isinstance(change, RemoveAspect):
        campaign_services.delete_scene_aspect(actor=actor, aspect=aspect, by_rules=True)
        return
    fields: JSON = {}
    if change.free_invocations is not None:
        fields["free_invocations"] = change.free_invocations
    if change.hidden is not None:
        fields["hidden"] = change.hidden
    campaign_services.update_scene_aspect(actor=actor, aspect=aspect, by_rules=True, **fields)


def _apply(
    actor: User,
    flow: Flow,
    procedure: Procedure[Any],
    table: Table,
    outcome: Outcome[Any],
    step_row: FlowStep | None,
    post: Post | None,
) -> None:
    """Store and apply what a step produced. ``table``: what the step read (names for the waiting line)."""
    if outcome.ledger:
        _lock_ledger_rows(flow, outcome)
    _adopt(flow, outcome.adopt)
    for roll_id in outcome.reveal:
        sealed = Roll.objects.select_related("roller").get(pk=roll_id, flow=flow)
        # The rules reveal it, in the name of the GM who rolled it sealed.
        reveal_roll(actor=sealed.roller, roll=sealed)
    for op in outcome.ledger:
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
    for follow_up in outcome.follow_ups:
        roll = Roll.objects.select_related("post").get(pk=follow_up.roll_id, flow=flow)
        record = RollFollowUp.objects.create(
            roll=roll,
            flow_step=step_row,
            kind=follow_up.kind,
            actor=actor,
            character_id=follow_up.character_id,
            data=follow_up.data,
            result=follow_up.result,
            summary_es=follow_up.summary.es[:300],
            summary_en=follow_up.summary.en[:300],
        )
        append_follow_up(record)  # the campaign's roll log covers what happened to the roll, in this transaction
        publish(
            Event(
                EventType.ROLL_FOLLOWED_UP,
                flow.campaign_id,
                {"scene_id": roll.scene_id, "post_id": roll.post_id, "roll_id": roll.pk, "follow_up_id": record.pk},
            ),
            roll_audience(roll, roll.post),
        )
    for change in outcome.board:
        _apply_board(actor, flow, change)
    for other in outcome.others:
        _apply_other(actor, flow, table, other)
    _record(flow, procedure, table, outcome, step_row)
    flow.state = outcome.state.model_dump(mode="json")
    if outcome.secret is not None:
        flow.secret_state = outcome.secret.model_dump(mode="json")
    if outcome.closes is not None:
        flow.status = FlowStatus.SETTLED if outcome.closes == "settled" else FlowStatus.CANCELLED
        flow.settled_at = timezone.now()
    flow.waiting_for = {} if outcome.closes else waiting_json(procedure.waiting(outcome.state, table))
    flow.save()
    publish(
        Event(
            EventType.FLOW_CHANGED,
            flow.campaign_id,
            {"scene_id": flow.scene_id, "flow_id": flow.pk, "state": flow.status},
        ),
        flow_audience(flow),
    )


def _lock_ledger_rows(flow: Flow, outcome: Outcome[Any]) -> None:
    """Lock what the step's ledger operations will, before any of them and before the stored rolls the step
    touches: the rules state, then the characters in id order (``campaigns.scene_locks``). Each operation
    locks its rows again (already held): without this, two operations of one step would lock their
    characters in the step's order, not in id order."""
    CampaignRulesState.objects.select_for_update().filter(campaign_id=flow.campaign_id).first()
    ids = sorted({op.character_id for op in outcome.ledger if op.character_id})
    if ids:
        list(Character.objects.select_for_update().filter(pk__in=ids).order_by("pk").values_list("pk", flat=True))


def _chain(made: list[Roll]) -> None:
    """Link the rolls a step made in the campaign's chain: the transaction's last lock (its only wait is
    for the chain's previous writer to commit)."""
    for row in made:
        append_roll(row)


def _lock_procedures(flow: Flow) -> Flow:
    """A step's procedure, locked, with the other procedures its steps read (``Reads.procedures``) locked
    in the same statement, in id order: two steps of procedures that read each other (an Event action and
    a reaction) then never hold one each and wait for the other."""
    kinds: tuple[str, ...] = ()
    if flow.kind:
        try:
            kinds = registry.plugin(flow.campaign.ruleset).procedure(flow.kind).reads.procedures
        except RulesError:
            kinds = ()  # an unknown kind is refused below, after the lock, as before
    if kinds:
        together = Flow.objects.filter(Q(pk=flow.pk) | Q(campaign_id=flow.campaign_id, kind__in=kinds))
        list(together.select_for_update(of=("self",)).order_by("pk").values_list("pk", flat=True))
    return Flow.objects.select_for_update(of=("self",)).select_related("campaign", "scene").get(pk=flow.pk)


def _apply_other(actor: User, flow: Flow, table: Table, change: OtherProcedure) -> None:
    """A step's change to another procedure it read (and so locked): its state, its log, its record."""
    if not any(p.id == change.procedure_id for p in table.procedures):
        raise ValueError(f"procedure {change.procedure_id} was not read by this step")
    other = Flow.objects.select_related("campaign").get(pk=change.procedure_id)
    procedure = registry.plugin(other.campaign.ruleset).procedure(other.kind)
    other.state = change.state
    if change.secret is not None:
        other.secret_state = change.secret
    if change.closes is not None:
        other.status = FlowStatus.SETTLED if change.closes == "settled" else FlowStatus.CANCELLED
        other.settled_at = timezone.now()
    other.waiting_for = (
        {} if change.closes else waiting_json(procedure.waiting(procedure.load_state(other.state), table))
    )
    other.save()
    step_row = FlowStep.objects.create(flow=other, step=change.step, actor=actor, params={"by_procedure": flow.pk})
    _record(other, procedure, table, Outcome(state=procedure.load_state(other.state), record=change.record), step_row)
    publish(
        Event(
            EventType.FLOW_CHANGED,
            other.campaign_id,
            {"scene_id": other.scene_id, "flow_id": other.pk, "state": other.status},
        ),
        flow_audience(other),
    )


def _record(
    flow: Flow, procedure: Procedure[Any], table: Table, outcome: Outcome[Any], step_row: FlowStep | None
) -> None:
    lines = list(outcome.record)
    if outcome.closes and procedure.summary is not None:
        lines += list(procedure.summary(outcome.state, table))
    if not lines:
        return
    start = FlowLine.objects.filter(flow=flow).count()
    FlowLine.objects.bulk_create(
        FlowLine(
            flow=flow,
            step=step_row,
            position=start + i,
            text_es=line.words.es,
            text_en=line.words.en,
            gm_only=line.gm_only,
            rolls=list(line.rolls),
        )
        for i, line in enumerate(lines)
    )


def flow_audience(flow: Flow) -> Audience:
    """Procedures are table business: whoever reads the scene (secret parts never leave ``secret_state``)."""
    return Audience(scene_id=flow.scene_id)


def request_digest(step: str, params: Mapping[str, Any]) -> str:
    """What identifies a step request for idempotency: the step and its params, canonically."""
    canonical = json.dumps({"step": step, "params": params}, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


# --- Entry points ---------------------------------------------------------------------------------


@retried_once_on_deadlock
def start_procedure(
    *,
    actor: User,
    scene: Scene,
    kind: str,
    params: Mapping[str, Any] | None = None,
    post: Post | None = None,
    dice: DiceSource | None = None,
) -> Flow:
    """Open a procedure of the campaign's ruleset in ``scene`` (its opening asks the policy who may)."""
    campaign = scene.campaign
    procedure = registry.plugin(campaign.ruleset).procedure(kind)
    viewer = policy.viewer_for(actor, campaign)
    readers = list(scene.readers.values_list("id", flat=True))
    writers = list(scene.writers.values_list("id", flat=True))
    if not policy.may_write_scene(viewer, scene, readers, writers):
        raise PermissionDenied(_("No puedes abrir un procedimiento en esta escena."))
    opening: Opening[Any, Any] = procedure.opening
    chosen = parse_params(opening.params, params or {})
    source = dice or SystemDice()
    made: list[Roll] = []
    with transaction.atomic():
        record = campaign_services.create_record_post(author=actor, scene=scene)
        flow = Flow.objects.create(campaign=campaign, scene=scene, kind=kind, opened_by=actor, record=record)
        flow.campaign = campaign
        table = load_table(flow, procedure)
        outcome = opening.run(
            OpeningInput(
                chosen,
                table,
                viewer,
                source,
                _roll_maker(actor, flow, post, source, made),
                flow.pk,
                _number_in_scene(flow),
            )
        )
        _apply(actor, flow, procedure, table, outcome, None, post)
        _chain(made)
    return flow


def _number_in_scene(flow: Flow) -> int:
    """The procedure's place among its scene's procedures of its kind, counted from 1."""
    return Flow.objects.filter(scene_id=flow.scene_id, kind=flow.kind, pk__lte=flow.pk).count()


@retried_once_on_deadlock
def take_step(
    *,
    actor: User,
    flow: Flow,
    step: str,
    params: Mapping[str, Any] | None = None,
    idempotency_key: str = "",
    post: Post | None = None,
    dice: DiceSource | None = None,
) -> Flow:
    """Take one step of an open procedure. A repeated idempotency key returns the procedure unchanged."""
    if len(idempotency_key) > MAX_KEY_LENGTH:
        raise ValidationError({"idempotency_key": _("Como mucho 80 caracteres.")})
    params = dict(params or {})
    digest = request_digest(step, params)
    try:
        with transaction.atomic():
            locked = _lock_procedures(flow)
            viewer = policy.viewer_for(actor, locked.campaign)
            if idempotency_key:
                earlier = FlowStep.objects.filter(flow=locked, idempotency_key=idempotency_key).first()
                if earlier is not None:
                    return _replayed(viewer, locked, earlier, digest)
            procedure = registry.plugin(locked.campaign.ruleset).procedure(locked.kind)
            return _step(actor, locked, viewer, procedure, step, params, idempotency_key, digest, post, dice)
    except IntegrityError:
        # Two identical requests raced past the check: the other one won; answer as its replay.
        if idempotency_key:
            earlier = FlowStep.objects.filter(flow_id=flow.pk, idempotency_key=idempotency_key).first()
            if earlier is not None:
                current = Flow.objects.select_related("campaign", "scene").get(pk=flow.pk)
                return _replayed(policy.viewer_for(actor, current.campaign), current, earlier, digest)
        raise


def _replayed(viewer: policy.Viewer, flow: Flow, earlier: FlowStep, digest: str) -> Flow:
    if not policy.may_replay_step(viewer, earlier.actor_id):
        raise PermissionDenied(_("Este paso no te corresponde."))
    if earlier.request_digest and earlier.request_digest != digest:
        raise IdempotencyConflict()
    return flow


def _step(
    actor: User,
    flow: Flow,
    viewer: policy.Viewer,
    procedure: Procedure[Any],
    key: str,
    params: JSON,
    idempotency_key: str,
    digest: str,
    post: Post | None,
    dice: DiceSource | None,
) -> Flow:
    if flow.status != FlowStatus.OPEN:
        raise step_not_available(key, closed=True)
    state = procedure.load_state(flow.state)
    actors = procedure.actors(state, key)
    if not actors:
        raise step_not_available(key)
    if not policy.may_act_in_flow(viewer, actors):
        raise PermissionDenied(_("Este paso no te corresponde."))
    step: Step[Any, Any] = procedure.step(key)
    table = load_table(flow, procedure)
    reason = step.why_unavailable(state, table, viewer)
    if reason is not None:
        raise step_unavailable(key, reason.es, reason.en)
    chosen = parse_params(step.params, params)
    source = dice or SystemDice()
    made: list[Roll] = []
    outcome = step.run(
        StepInput(
            state=state,
            secret=procedure.load_secret(flow.secret_state),
            params=chosen,
            table=table,
            viewer=viewer,
            dice=source,
            roll=_roll_maker(actor, flow, post, source, made),
            procedure_id=flow.pk,
            procedure_number=_number_in_scene(flow),
        )
    )
    recorded = params if outcome.step_params is None else outcome.step_params
    step_row = FlowStep.objects.create(
        flow=flow, step=key, actor=actor, params=recorded, idempotency_key=idempotency_key, request_digest=digest
    )
    _apply(actor, flow, procedure, table, outcome, step_row, post)
    _chain(made)
    return flow
