"""Every write of rolls: made by the server in the same transaction as their post, never edited.

Refusals: PermissionDenied (policy), ValidationError (malformed input, on the ``rolls`` field), RulesError
(the rules refuse the request). Nothing is written when any is raised.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from pydantic import ValidationError as PydanticValidationError

from accounts.models import User
from campaigns import policy
from campaigns import services as campaign_services
from campaigns.events import Audience, Event, EventType, publish
from campaigns.models import Post, Recipients, Scene
from characters.models import Character
from characters.services import campaign_settings, pydantic_to_validation_error
from record.chain import append_roll
from rolls.models import Roll, RollReveal
from rulesets import registry
from rulesets.kit.rolls import RollBinding, RollSpec
from systems.dice import DiceSource, SystemDice

MAX_ROLLS_PER_POST = 10
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
) -> Roll:
    """Roll with the server's dice and store the evidence. Call inside the transaction of its post."""
    campaign = scene.campaign
    viewer = policy.viewer_for(actor, campaign)
    character = None
    if spec.character_id is not None:
        character = Character.objects.filter(pk=spec.character_id, campaign=campaign).first()
        if character is None:
            raise ValidationError({"rolls": _("Ese personaje no es de esta partida.")})
    if not policy.may_roll(viewer, gm_only=spec.gm_only, character=character):
        raise PermissionDenied(_("No puedes hacer esa tirada."))
    binding = _binding_for(scene, spec.kind)
    if not binding.kind_allowed(spec.kind, is_gm=policy.roll_powers(viewer).gm_kinds):
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
    append_roll(roll)  # the campaign's verifiable roll log, in the roll's transaction
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
    whisper = set(post.whisper_to.values_list("id", flat=True))
    return Audience(scene_id=roll.scene_id, user_ids=frozenset(whisper | {post.author_id}))


def create_post_with_rolls(
    *, author: User, scene: Scene, rolls: Sequence[RollSpec] = (), dice: DiceSource | None = None, **post_fields: Any
) -> Post:
    """Write a post and roll its dice in one transaction: the post and its rolls exist together or not at all."""
    if len(rolls) > MAX_ROLLS_PER_POST:
        raise ValidationError({"rolls": _("Como mucho %(max)d tiradas por mensaje.") % {"max": MAX_ROLLS_PER_POST}})
    with transaction.atomic():
        post = campaign_services.create_post(author=author, scene=scene, **post_fields)
        for position, spec in enumerate(rolls):
            make_roll(actor=author, scene=scene, spec=spec, post=post, position=position, dice=dice)
    return post


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


__all__ = ["RollSpec", "create_post_with_rolls", "make_roll", "reveal_roll", "roll_audience"]
