"""Every write of rolls: made by the server in the same transaction as their post, never edited.

Refusals: PermissionDenied (policy), ValidationError (malformed input, on the ``rolls`` field), RulesError
(the rules refuse the request). Nothing is written when any is raised.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from pydantic import ValidationError as PydanticValidationError

from accounts.models import User
from campaigns import policy
from campaigns import services as campaign_services
from campaigns.events import Audience, Event, EventType, publish
from campaigns.models import Post, Recipients, Scene, SceneAccess
from campaigns.scene_locks import retried_once_on_deadlock
from characters.models import Character
from characters.services import campaign_settings, pydantic_to_validation_error
from record.chain import append_reveal, append_roll
from rolls.models import Roll, RollReveal
from rulesets import registry
from rulesets.kit.rolls import RollBinding, RollSpec
from systems.dice import DiceSource, SystemDice

MAX_ROLLS_PER_POST = 10
MAX_KEY_LENGTH = 80
GENERIC = "generic"


def _binding_for(scene: Scene, kind: str) -> RollBinding:
    """Dice notation works in every campaign; any other kind belongs to the campaign's ruleset."""
    if kind == "notation":
        return registry.plugin(GENERIC).rolls
    return registry.plugin(scene.campaign.ruleset).rolls


def make_roll(
    *,
    actor: User,
    scene: Scene,
    spec: RollSpec,
    post: Post | None = None,
    position: int = 0,
    dice: DiceSource | None = None,
    viewer: policy.Viewer | None = None,
    announce: bool = True,
    link: bool = True,
) -> Roll:
    """Roll with the server's dice and store the evidence. Call inside the transaction of its post.

    ``viewer``: the actor's, when the caller has it. ``announce=False``: the caller's own event (its post's
    ``post.created``, which reaches the same people) announces the roll. ``link=False``: the caller chains
    the roll itself (``record.chain.append_roll``) later in the transaction."""
    campaign = scene.campaign
    if viewer is None or viewer.user_id != actor.pk or viewer.campaign_id != campaign.pk:
        viewer = policy.viewer_for(actor, campaign)
    character = None
    if spec.character_id is not None:
        character = Character.objects.filter(pk=spec.character_id, campaign=campaign).first()
        if character is None:
            raise ValidationError({"rolls": _("Ese personaje no es de esta partida.")})
    if not policy.may_roll(viewer, gm_only=spec.gm_only, character=character):
        raise PermissionDenied(_("No puedes hacer esa tirada."))
    binding = _binding_for(scene, spec.kind)
    if not binding.kind_allowed(spec.kind, gm_kinds=policy.roll_powers(viewer).gm_kinds):
        raise ValidationError({"rolls": _("«%(kind)s» no es una tirada que puedas hacer aquí.") % {"kind": spec.kind}})
    if len(spec.label) > 120:
        raise ValidationError({"rolls": _("La etiqueta de la tirada es demasiado larga.")})
    settings = campaign_settings(campaign) if binding.key != GENERIC else None
    input_model = getattr(binding, "input_model", None)  # transitional: every binding will declare one
    try:
        data = dict(spec.data)
        if input_model is not None:
            # Exactly what /api/rulesets/ publishes for this kind is what a post accepts.
            data = input_model(spec.kind).model_validate(data).model_dump(mode="json", exclude_unset=True)
        prepared = binding.prepare(spec.kind, data, character.sheet if character else None, settings)
    except PydanticValidationError as exc:
        raise pydantic_to_validation_error(exc, "rolls") from None
    resolved = binding.resolve(spec.kind, prepared, dice or SystemDice(), settings)
    roll = Roll.objects.create(
        campaign=campaign,
        scene=scene,
        post=post,
        roller=actor,
        character=character,
        ruleset=binding.key,
        kind=spec.kind,
        label=spec.label.strip(),
        request=prepared.public,
        result=resolved.result,
        secret={**prepared.secret, **resolved.secret},
        summary_es=resolved.summary_es[:300],
        summary_en=resolved.summary_en[:300],
        gm_only=spec.gm_only,
        position=position,
    )
    if link:
        append_roll(roll)  # the campaign's verifiable roll log, in the roll's transaction
    if announce:
        publish(
            Event(
                EventType.ROLL_MADE,
                campaign.pk,
                {"roll_id": roll.pk, "post_id": post.pk if post else None, "scene_id": scene.pk},
            ),
            roll_audience(roll, post),
        )
    return roll


def roll_audience(roll: Roll, post: Post | None, *, revealed: bool = False) -> Audience:
    """A roll follows its post's recipients; a secret roll goes to the GMs until revealed."""
    if roll.gm_only and not revealed:
        return Audience(gms_only=True)
    if post is None or post.recipients == Recipients.EVERYONE:
        return Audience(scene_id=roll.scene_id)
    if post.recipients == Recipients.GMS:
        return Audience(gms_only=True, user_ids=frozenset({post.author_id}))
    whisper = set(post.whisper_ids)
    return Audience(scene_id=roll.scene_id, user_ids=frozenset(whisper | {post.author_id}))


def post_request_digest(scene_id: int, rolls: Sequence[RollSpec], post_fields: dict[str, Any]) -> str:
    """What identifies a post request for idempotency: its scene, its fields and its rolls, canonically."""
    fields = dict(post_fields)
    character = fields.get("character")
    fields["character"] = getattr(character, "pk", character)
    fields["whisper_to"] = sorted(int(uid) for uid in fields.get("whisper_to") or ())
    specs = [[r.kind, r.data, r.character_id, r.label, r.gm_only] for r in rolls]
    canonical = json.dumps(
        {"scene": scene_id, "fields": fields, "rolls": specs}, sort_keys=True, separators=(",", ":"), default=str
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def _replayed_post(author: User, scene: Scene, viewer: policy.Viewer, key: str, digest: str) -> Post | None:
    """The post this author already wrote with ``key`` (None: a new key). Asked after the policy: someone
    who may not write here learns nothing of their keys. Another request under the same key is a 409."""
    from rolls.runner import IdempotencyConflict

    earlier = Post.objects.filter(author=author, idempotency_key=key).first()
    if earlier is None:
        return None
    listed = scene.access == SceneAccess.LISTED and not scene.is_offtopic
    readers, writers = campaign_services.scene_lists(scene) if listed else ([], [])
    if not policy.may_write_scene(viewer, scene, readers, writers):
        raise PermissionDenied(_("No puedes escribir en esta escena."))
    if earlier.scene_id != scene.pk or earlier.request_digest != digest:
        raise IdempotencyConflict()
    earlier.replayed = True  # type: ignore[attr-defined]
    return earlier


@retried_once_on_deadlock
def create_post_with_rolls(
    *,
    author: User,
    scene: Scene,
    rolls: Sequence[RollSpec] = (),
    dice: DiceSource | None = None,
    idempotency_key: str = "",
    viewer: policy.Viewer | None = None,
    **post_fields: Any,
) -> Post:
    """Write a post and roll its dice in one transaction: the post and its rolls exist together or not at all.

    ``idempotency_key``: a client's key for this write; the same request again (a retry after a dropped
    connection) answers the post it wrote, flagged ``replayed``, and writes nothing. ``viewer``: the author's,
    when the caller already has it (the view read it with the scene).
    """
    if len(rolls) > MAX_ROLLS_PER_POST:
        raise ValidationError({"rolls": _("Como mucho %(max)d tiradas por mensaje.") % {"max": MAX_ROLLS_PER_POST}})
    if len(idempotency_key) > MAX_KEY_LENGTH:
        raise ValidationError({"idempotency_key": _("Como mucho 80 caracteres.")})
    digest = post_request_digest(scene.pk, rolls, post_fields) if idempotency_key else ""
    # Reads, checks and Markdown before the transaction: on SQLite its IMMEDIATE write lock is held only
    # for the writes (eight writers then do not queue behind each other's rendering).
    if viewer is None or viewer.user_id != author.pk or viewer.campaign_id != scene.campaign_id:
        viewer = policy.viewer_for(author, scene.campaign)
    if idempotency_key:
        earlier = _replayed_post(author, scene, viewer, idempotency_key, digest)
        if earlier is not None:
            return earlier
    prepared = campaign_services.prepare_post(
        author=author, scene=scene, viewer=viewer, idempotency_key=idempotency_key, request_digest=digest, **post_fields
    )
    try:
        with transaction.atomic():
            post = campaign_services.insert_post(prepared)
            made: list[Roll] = []
            for position, spec in enumerate(rolls):
                # One event per post: its post.created reaches everyone who may see its rolls. A secret roll
                # also tells the GMs (their dashboards list secret rolls), as its own GM-only event.
                roll = make_roll(
                    actor=author,
                    scene=scene,
                    spec=spec,
                    post=post,
                    position=position,
                    dice=dice,
                    viewer=viewer,
                    announce=spec.gm_only,
                    link=False,
                )
                made.append(roll)
            # The locks last, so they are held only until the commit: the scene's row (the post's place in
            # the thread) and the author's read mark, then the campaign's roll chain (the one order every
            # writer in a scene takes them in: campaigns.scene_locks).
            campaign_services.place_post(post)
            for roll in made:
                append_roll(roll)
            # The caller can answer with what it wrote, without reading it back (see rolls.selectors.new_roll_views).
            post.made_rolls = made  # type: ignore[attr-defined]
    except IntegrityError:
        if not idempotency_key:
            raise
        # The same key raced in from another request, which won: answer as its replay (or its conflict).
        with transaction.atomic():
            earlier = _replayed_post(author, scene, policy.viewer_for(author, scene.campaign), idempotency_key, digest)
        if earlier is None:
            raise
        return earlier
    return post


@retried_once_on_deadlock
@transaction.atomic
def reveal_roll(*, actor: User, roll: Roll, include_secret: bool = False) -> RollReveal:
    """A GM shows a secret roll (and, if asked, its secret difficulty) to everyone who reads its post."""
    roll = Roll.objects.select_for_update(of=("self",)).select_related("campaign", "post").get(pk=roll.pk)
    viewer = policy.viewer_for(actor, roll.campaign)
    if not policy.may_reveal_roll(viewer):
        raise PermissionDenied(_("Solo un máster revela tiradas."))
    if RollReveal.objects.filter(roll=roll).exists():
        raise ValidationError(_("Esta tirada ya está revelada."))
    if not roll.gm_only and not (include_secret and roll.secret):
        raise ValidationError(_("Esta tirada no tiene nada que revelar."))
    reveal = RollReveal.objects.create(roll=roll, revealed_by=actor, include_secret=include_secret)
    append_reveal(reveal)  # chained: the log shows when a secret roll (or difficulty) was shown, and what
    publish(
        Event(
            EventType.ROLL_FOLLOWED_UP,
            roll.campaign_id,
            {
                "scene_id": roll.scene_id,
                "post_id": roll.post_id,
                "roll_id": roll.pk,
                "follow_up_id": None,
                "kind": "reveal",
            },
        ),
        roll_audience(roll, roll.post, revealed=True),
    )
    return reveal


__all__ = ["RollSpec", "create_post_with_rolls", "make_roll", "post_request_digest", "reveal_roll", "roll_audience"]
