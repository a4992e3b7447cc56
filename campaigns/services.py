"""Every write of the forum core. Each function checks the policy, validates, and writes in one transaction.

Errors: ``PermissionDenied`` when the policy says no (callers have already turned "cannot even see it"
into 404), ``ValidationError`` (with per-field messages where a field is at fault) for bad input.
Nothing is written when either is raised.

Locks: a write in a scene takes the scene's row, then the author's read mark, then (further down) the
campaign's roll chain, in the one order written down in ``campaigns.scene_locks``; the post services retry
a deadlock once there.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Max, Model, Value
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.write_limits import INVITATION_LIMIT, JOIN_REQUEST_LIMIT, POST_LIMIT, mentions_allowed
from campaigns import policy
from campaigns.events import Audience, Event, EventType, post_audience, publish
from campaigns.markdown import MAX_SOURCE_LENGTH, RENDERER_VERSION
from campaigns.mentions import mentioned_user_ids
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Invitation,
    JoinRequest,
    Language,
    Membership,
    Post,
    PostKind,
    PostRevision,
    Recipients,
    RequestStatus,
    Role,
    Scene,
    SceneAccess,
    SceneAspect,
    SceneReadMark,
    SceneStatus,
    Visibility,
    Voice,
    validate_single_line,
)
from campaigns.scene_locks import retried_once_on_deadlock
from campaigns.stored_markdown import render_field
from characters.models import Character
from record.post_index import index_post
from rulesets.registry import ruleset_choices

CAMPAIGN_FIELDS = (
    "sheets_open",
    "rules_settings",
    "title",
    "introduction",
    "synopsis",
    "gm_notes",
    "ruleset",
    "language",
    "visibility",
    "status",
    "recruiting_message",
    "seats",
)
SCENE_FIELDS = ("title", "description")


def _publish_membership(campaign_id: int, user_id: int, role: str | None) -> None:
    # The member list is shown to everyone who may see the campaign; sockets of ``user_id`` re-read
    # their viewer (and close when the membership ended).
    publish(Event(EventType.MEMBERSHIP_CHANGED, campaign_id, {"user_id": user_id, "role": role}), Audience(public=True))


def _publish_scene(scene: Scene, action: str) -> None:
    data = {"scene_id": scene.pk, "action": action, "status": scene.status}
    publish(Event(EventType.SCENE_CHANGED, scene.campaign_id, data), Audience(scene_id=scene.pk))


def _publish_aspect(aspect: SceneAspect, action: str, was_hidden: bool | None = None) -> None:
    # Players must hear when an aspect they saw is hidden or deleted: GMs only when hidden before and after.
    hidden = aspect.hidden and (was_hidden is None or was_hidden)
    scene = aspect.scene
    data = {"scene_id": scene.pk, "aspect_id": aspect.pk, "action": action}
    publish(Event(EventType.ASPECT_CHANGED, scene.campaign_id, data), Audience(scene_id=scene.pk, gms_only=hidden))


def _publish_post(
    event_type: EventType, post: Post, campaign_id: int, whisper_ids: Iterable[int] | None = None
) -> None:
    if whisper_ids is None:
        whisper_ids = post.whisper_ids if post.recipients == Recipients.WHISPER else ()
    audience = post_audience(post.scene_id, post.recipients, post.author_id, whisper_ids)
    publish(Event(event_type, campaign_id, {"scene_id": post.scene_id, "post_id": post.pk}), audience)


def _require(allowed: bool, message: str) -> None:
    if not allowed:
        raise PermissionDenied(message)


_Row = TypeVar("_Row", bound=Model)


def _create_unique(model: type[_Row], duplicate: ValidationError, **fields: Any) -> _Row:
    """Create a row that a unique constraint allows once. The check before the call answers the common
    case; two racing requests both pass it, and the loser's IntegrityError becomes ``duplicate`` (inside
    a savepoint, so the caller's transaction stays usable on PostgreSQL)."""
    try:
        with transaction.atomic():
            return model._default_manager.create(**fields)
    except IntegrityError:
        raise duplicate from None


def _check_choice(field: str, value: str, choices: Sequence[str]) -> None:
    if value not in choices:
        raise ValidationError({field: _("Valor no válido: «%(value)s».") % {"value": value}})


def _check_text(field: str, value: str, *, required: bool, max_length: int) -> str:
    value = (value or "").strip()
    if required and not value:
        raise ValidationError({field: _("Este campo es obligatorio.")})
    if len(value) > max_length:
        raise ValidationError(
            {field: _("Como mucho %(max)d caracteres (tiene %(n)d).") % {"max": max_length, "n": len(value)}}
        )
    return value


def _check_title(value: str) -> str:
    value = _check_text("title", value, required=True, max_length=120)
    try:
        validate_single_line(value)
    except ValidationError as error:
        raise ValidationError({"title": error.messages}) from None
    return value


def _clean_campaign_fields(data: dict[str, Any]) -> dict[str, Any]:
    cleaned: dict[str, Any] = {}
    if "title" in data:
        cleaned["title"] = _check_title(data["title"])
    for field in ("introduction", "synopsis", "gm_notes"):
        if field in data:
            cleaned[field] = _check_text(field, data[field], required=False, max_length=20_000)
    for field, choices in (
        ("ruleset", [key for key, _label in ruleset_choices()]),
        ("language", Language.values),
        ("visibility", Visibility.values),
        ("status", CampaignStatus.values),
    ):
        if field in data:
            _check_choice(field, data[field], choices)
            cleaned[field] = data[field]
    if "recruiting_message" in data:
        cleaned["recruiting_message"] = _check_text(
            "recruiting_message", data["recruiting_message"], required=False, max_length=1000
        )
    if "seats" in data:
        cleaned["seats"] = _check_seats(data["seats"])
    if "rules_settings" in data:
        cleaned["rules_settings"] = data["rules_settings"]
    if "sheets_open" in data:
        if not isinstance(data["sheets_open"], bool):
            raise ValidationError({"sheets_open": _("Tiene que ser sí o no.")})
        cleaned["sheets_open"] = data["sheets_open"]
    unknown = set(data) - set(CAMPAIGN_FIELDS)
    if unknown:
        raise ValidationError({name: _("Campo desconocido.") for name in sorted(unknown)})
    return cleaned


MAX_SEATS = 50


def _check_seats(value: Any) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SEATS:
        raise ValidationError(
            {"seats": _("Entre 1 y %(max)d plazas, o ninguna para no poner límite.") % {"max": MAX_SEATS}}
        )
    return value


def _merged_settings(current: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``changes`` over ``current``, object by object: a PATCH names only the rules it changes."""
    merged = dict(current)
    for key, value in changes.items():
        old = merged.get(key)
        merged[key] = _merged_settings(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
    return merged


def _unknown_settings(given: dict[str, Any], stored: dict[str, Any], prefix: str = "") -> list[str]:
    """Paths of ``given`` that the settings model does not have (it ignores them: we refuse them)."""
    unknown = []
    for key, value in given.items():
        path = f"{prefix}{key}"
        if key not in stored:
            unknown.append(path)
        elif isinstance(value, dict) and isinstance(stored[key], dict):
            unknown.extend(_unknown_settings(value, stored[key], f"{path}."))
    return unknown


def _clean_rules_settings(ruleset_key: str, raw: Any, current: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ruleset's optional rules, validated by its settings model and stored with every default filled.
    With ``current`` (a PATCH of the same ruleset), ``raw`` changes only the rules it names."""
    from pydantic import ValidationError as PydanticValidationError

    from rulesets import registry

    model = registry.rules(ruleset_key).settings_model
    if not isinstance(raw, dict):
        raise ValidationError({"rules_settings": _("Las reglas opcionales tienen que ser un objeto.")})
    if model is None:
        if raw:
            raise ValidationError({"rules_settings": _("Este sistema no tiene reglas opcionales.")})
        return {}
    try:
        stored = model.model_validate(_merged_settings(current or {}, raw)).model_dump(mode="json")
    except PydanticValidationError as exc:
        messages = [f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()]
        raise ValidationError({"rules_settings": messages}) from None
    unknown = _unknown_settings(raw, stored)
    if unknown:
        raise ValidationError(
            {"rules_settings": [_("Regla desconocida: «%(name)s».") % {"name": name} for name in unknown]}
        )
    return stored


# --- Campaigns ------------------------------------------------------------------------------------


@transaction.atomic
def create_campaign(*, creator: User, **fields: Any) -> Campaign:
    """The creator becomes its first GM; every campaign starts with an off-topic scene."""
    _require(creator.is_authenticated, _("Tienes que iniciar sesión para crear una partida."))
    cleaned = _clean_campaign_fields(fields)
    if "title" not in cleaned:
        raise ValidationError({"title": _("Este campo es obligatorio.")})
    if "ruleset" not in cleaned:
        raise ValidationError({"ruleset": _("Este campo es obligatorio.")})
    cleaned["rules_settings"] = _clean_rules_settings(cleaned["ruleset"], fields.get("rules_settings", {}))
    campaign = Campaign.objects.create(created_by=creator, **cleaned)
    Membership.objects.create(campaign=campaign, user=creator, role=Role.GM)
    Scene.objects.create(
        campaign=campaign,
        title=_("Off-topic"),
        description=_("Charla fuera de la partida."),
        is_offtopic=True,
        position=0,
    )
    return campaign


@transaction.atomic
def update_campaign(*, actor: User, campaign: Campaign, **fields: Any) -> Campaign:
    # The row as it is now, locked: only what this call changes is written (with its event), never the rest
    # of an instance read earlier, which could undo a concurrent change without anyone hearing of it.
    given, campaign = campaign, Campaign.objects.select_for_update().get(pk=campaign.pk)
    viewer = policy.viewer_for(actor, campaign)
    _require(policy.may_manage_campaign(viewer), _("Solo un máster puede editar la partida."))
    cleaned = _clean_campaign_fields(fields)
    if "ruleset" in cleaned and cleaned["ruleset"] != campaign.ruleset and campaign.characters.exists():
        raise ValidationError({"ruleset": _("No se puede cambiar el sistema de una partida con personajes.")})
    if "rules_settings" in cleaned or ("ruleset" in cleaned and cleaned["ruleset"] != campaign.ruleset):
        same_ruleset = cleaned.get("ruleset", campaign.ruleset) == campaign.ruleset
        cleaned["rules_settings"] = _clean_rules_settings(
            cleaned.get("ruleset", campaign.ruleset),
            cleaned.get("rules_settings", {}),
            current=campaign.rules_settings if same_ruleset else None,
        )
    changed = sorted(name for name, value in cleaned.items() if getattr(campaign, name) != value)
    if changed:
        for name in changed:
            setattr(campaign, name, cleaned[name])
        campaign.save(update_fields=[*changed, "updated_at"])
        _publish_campaign(campaign, changed)
    for field in Campaign._meta.concrete_fields:  # the caller's instance shows the row as it now is
        setattr(given, field.attname, getattr(campaign, field.attname))
    return campaign


def _publish_campaign(campaign: Campaign, changed: Sequence[str]) -> None:
    """Every open page of the campaign re-reads its settings; sockets that lost sight of it close."""
    public_fields = [name for name in changed if name != "gm_notes"]
    # The GM notes are secret: a change to them alone is news for the GMs only, and never named to others.
    audience = Audience(public=True) if public_fields else Audience(gms_only=True)
    data = {"fields": public_fields or list(changed), "visibility": campaign.visibility}
    publish(Event(EventType.CAMPAIGN_CHANGED, campaign.pk, data), audience)


# --- Membership -----------------------------------------------------------------------------------


@transaction.atomic
def request_to_join(*, user: User, campaign: Campaign, role: str = Role.PLAYER, message: str = "") -> JoinRequest:
    viewer = policy.viewer_for(user, campaign)
    if viewer.is_member:
        raise ValidationError(_("Ya eres miembro de esta partida."))
    _require(policy.may_request_to_join(viewer), _("No puedes pedir unirte a esta partida."))
    _check_choice("role", role, [Role.PLAYER, Role.READER])
    if role == Role.PLAYER and not policy.accepts_players(campaign, _player_count(campaign)):
        raise ValidationError({"role": _("La partida no busca jugadores ahora; puedes pedir entrar como lector.")})
    if campaign.status == CampaignStatus.FINISHED:
        raise ValidationError(_("La partida ha terminado."))
    message = _check_text("message", message, required=False, max_length=2000)
    duplicate = ValidationError(_("Ya tienes una solicitud pendiente en esta partida."))
    if JoinRequest.objects.filter(campaign=campaign, user=user, status=RequestStatus.PENDING).exists():
        raise duplicate
    JOIN_REQUEST_LIMIT.count(user.pk)
    join_request = _create_unique(JoinRequest, duplicate, campaign=campaign, user=user, role=role, message=message)
    _publish_join_request(join_request)
    return join_request


def _player_count(campaign: Campaign) -> int:
    return campaign.memberships.filter(role=Role.PLAYER).count()


def _publish_join_request(join_request: JoinRequest) -> None:
    """The GMs' pending list (campaign page, dashboard) and the requester's own page change."""
    publish(
        Event(
            EventType.JOIN_REQUEST_CHANGED,
            join_request.campaign_id,
            {"join_request_id": join_request.pk, "status": join_request.status},
        ),
        Audience(gms_only=True, user_ids=frozenset({join_request.user_id})),
    )


@transaction.atomic
def decide_join_request(*, actor: User, join_request: JoinRequest, accept: bool) -> JoinRequest:
    join_request = (
        JoinRequest.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=join_request.pk)
    )
    viewer = policy.viewer_for(actor, join_request.campaign)
    _require(policy.may_manage_campaign(viewer), _("Solo un máster puede decidir solicitudes."))
    if join_request.status != RequestStatus.PENDING:
        raise ValidationError(_("Esta solicitud ya está decidida."))
    join_request.status = RequestStatus.ACCEPTED if accept else RequestStatus.REJECTED
    join_request.decided_by = actor
    join_request.decided_at = timezone.now()
    join_request.save()
    _publish_join_request(join_request)
    if accept:
        membership, _created = Membership.objects.get_or_create(
            campaign=join_request.campaign, user=join_request.user, defaults={"role": join_request.role}
        )
        _publish_membership(join_request.campaign_id, join_request.user_id, membership.role)
    return join_request


@transaction.atomic
def withdraw_join_request(*, user: User, join_request: JoinRequest) -> JoinRequest:
    join_request = (
        JoinRequest.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=join_request.pk)
    )
    _require(join_request.user_id == user.pk, _("Esa solicitud no es tuya."))
    _require_membership_open(user, join_request.campaign)
    if join_request.status != RequestStatus.PENDING:
        raise ValidationError(_("Esta solicitud ya está decidida."))
    join_request.status = RequestStatus.WITHDRAWN
    join_request.decided_at = timezone.now()
    join_request.save()
    _publish_join_request(join_request)
    return join_request


@transaction.atomic
def invite(*, actor: User, campaign: Campaign, user: User, role: str) -> Invitation:
    viewer = policy.viewer_for(actor, campaign)
    _require(policy.may_manage_campaign(viewer), _("Solo un máster puede invitar."))
    _check_choice("role", role, Role.values)
    if Membership.objects.filter(campaign=campaign, user=user).exists():
        raise ValidationError({"user": _("Ya es miembro de esta partida.")})
    duplicate = ValidationError({"user": _("Ya tiene una invitación pendiente.")})
    if Invitation.objects.filter(campaign=campaign, user=user, status=RequestStatus.PENDING).exists():
        raise duplicate
    INVITATION_LIMIT.count(actor.pk)
    invitation = _create_unique(Invitation, duplicate, campaign=campaign, user=user, role=role, invited_by=actor)
    _publish_invitation(invitation)
    return invitation


def _publish_invitation(invitation: Invitation) -> None:
    # The invited user is told (notices, dashboard, the campaign page); the GMs' pages list it.
    publish(
        Event(
            EventType.INVITATION_CHANGED,
            invitation.campaign_id,
            {"invitation_id": invitation.pk, "status": invitation.status},
        ),
        Audience(gms_only=True, user_ids=frozenset({invitation.user_id})),
    )


@transaction.atomic
def respond_to_invitation(*, user: User, invitation: Invitation, accept: bool) -> Invitation:
    invitation = Invitation.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=invitation.pk)
    _require(invitation.user_id == user.pk, _("Esa invitación no es para ti."))
    if accept:  # declining changes no one's membership: still possible once the campaign has ended
        _require_membership_open(user, invitation.campaign)
    if invitation.status != RequestStatus.PENDING:
        raise ValidationError(_("Esta invitación ya está respondida."))
    invitation.status = RequestStatus.ACCEPTED if accept else RequestStatus.REJECTED
    invitation.decided_at = timezone.now()
    invitation.save()
    if accept:
        membership, created = Membership.objects.get_or_create(
            campaign=invitation.campaign, user=user, defaults={"role": invitation.role}
        )
        if not created and membership.role != invitation.role:
            membership.role = invitation.role
            membership.save()
        _publish_membership(invitation.campaign_id, user.pk, membership.role)
    _publish_invitation(invitation)
    return invitation


@transaction.atomic
def cancel_invitation(*, actor: User, invitation: Invitation) -> Invitation:
    invitation = Invitation.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=invitation.pk)
    _require(
        policy.may_manage_campaign(policy.viewer_for(actor, invitation.campaign)),
        _("Solo un máster puede retirar invitaciones."),
    )
    if invitation.status != RequestStatus.PENDING:
        raise ValidationError(_("Esta invitación ya está respondida."))
    invitation.status = RequestStatus.WITHDRAWN
    invitation.decided_at = timezone.now()
    invitation.save()
    _publish_invitation(invitation)
    return invitation


def _require_membership_open(user: User, campaign: Campaign) -> None:
    _require(
        policy.may_change_membership(policy.viewer_for(user, campaign)),
        _("La partida ha terminado: quién forma parte de ella ya no cambia."),
    )


def _remove_membership(campaign: Campaign, user: User) -> None:
    # Lock the campaign's GM rows so two GMs leaving at once cannot leave the campaign without one.
    gms = list(
        Membership.objects.select_for_update().filter(campaign=campaign, role=Role.GM).values_list("user_id", flat=True)
    )
    membership = Membership.objects.select_for_update().filter(campaign=campaign, user=user).first()
    if membership is None:
        raise ValidationError(_("No es miembro de esta partida."))
    if membership.role == Role.GM and gms == [user.pk]:
        raise ValidationError(_("La partida se quedaría sin máster: nombra antes a otro máster."))
    membership.delete()
    Scene.readers.through.objects.filter(scene__campaign=campaign, user=user).delete()
    Scene.writers.through.objects.filter(scene__campaign=campaign, user=user).delete()
    _publish_membership(campaign.pk, user.pk, None)


@transaction.atomic
def leave_campaign(*, user: User, campaign: Campaign) -> None:
    viewer = policy.viewer_for(user, campaign)
    _require_membership_open(user, campaign)
    _require(policy.may_leave(viewer), _("No eres miembro de esta partida."))
    _remove_membership(campaign, user)


@transaction.atomic
def remove_member(*, actor: User, campaign: Campaign, user: User) -> None:
    viewer = policy.viewer_for(actor, campaign)
    _require(policy.may_manage_campaign(viewer), _("Solo un máster puede expulsar miembros."))
    _remove_membership(campaign, user)


@transaction.atomic
def change_role(*, actor: User, campaign: Campaign, user: User, role: str) -> Membership:
    viewer = policy.viewer_for(actor, campaign)
    _require(policy.may_manage_campaign(viewer), _("Solo un máster puede cambiar papeles."))
    _check_choice("role", role, Role.values)
    membership = Membership.objects.select_for_update().filter(campaign=campaign, user=user).first()
    if membership is None:
        raise ValidationError({"user": _("No es miembro de esta partida.")})
    if membership.role == Role.GM and role != Role.GM:
        gm_count = Membership.objects.select_for_update().filter(campaign=campaign, role=Role.GM).count()
        if gm_count == 1:
            raise ValidationError({"role": _("La partida se quedaría sin máster.")})
    membership.role = role
    membership.save()
    _publish_membership(campaign.pk, user.pk, role)
    return membership


# --- Scenes ---------------------------------------------------------------------------------------


def _member_ids(campaign: Campaign, user_ids: Iterable[int], field: str) -> list[int]:
    wanted = {int(uid) for uid in user_ids}
    found = set(Membership.objects.filter(campaign=campaign, user_id__in=wanted).values_list("user_id", flat=True))
    if wanted - found:
        raise ValidationError({field: _("Solo se puede elegir a miembros de la partida.")})
    return sorted(wanted)


def _apply_scene_access(
    scene: Scene, access: str, reader_ids: Iterable[int] | None, writer_ids: Iterable[int] | None
) -> None:
    _check_choice("access", access, SceneAccess.values)
    if scene.is_offtopic and access != SceneAccess.ALL_MEMBERS:
        raise ValidationError({"access": _("El off-topic está abierto a todos los miembros.")})
    scene.access = access
    scene.save(update_fields=["access", "updated_at"])
    if reader_ids is not None:
        scene.readers.set(_member_ids(scene.campaign, reader_ids, "readers"))
    if writer_ids is not None:
        scene.writers.set(_member_ids(scene.campaign, writer_ids, "writers"))


@transaction.atomic
def create_scene(
    *,
    actor: User,
    campaign: Campaign,
    title: str,
    description: str = "",
    access: str = SceneAccess.ALL_MEMBERS,
    reader_ids: Iterable[int] = (),
    writer_ids: Iterable[int] = (),
) -> Scene:
    viewer = policy.viewer_for(actor, campaign)
    _require(policy.may_manage_campaign(viewer), _("Solo un máster puede crear escenas."))
    title = _check_title(title)
    description = _check_text("description", description, required=False, max_length=20_000)
    # Lock the campaign row so two scenes created at once get distinct positions.
    Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
    last = campaign.scenes.aggregate(last=Max("position"))["last"] or 0
    scene = Scene.objects.create(campaign=campaign, title=title, description=description, position=last + 1)
    _apply_scene_access(scene, access, reader_ids, writer_ids)
    _publish_scene(scene, "created")
    return scene


@transaction.atomic
def update_scene(
    *,
    actor: User,
    scene: Scene,
    reader_ids: Iterable[int] | None = None,
    writer_ids: Iterable[int] | None = None,
    access: str | None = None,
    **fields: Any,
) -> Scene:
    viewer = policy.viewer_for(actor, scene.campaign)
    _require(policy.may_manage_campaign(viewer), _("Solo un máster puede editar escenas."))
    unknown = set(fields) - set(SCENE_FIELDS)
    if unknown:
        raise ValidationError({name: _("Campo desconocido.") for name in sorted(unknown)})
    if "title" in fields:
        scene.title = _check_title(fields["title"])
    if "description" in fields:
        scene.description = _check_text("description", fields["description"], required=False, max_length=20_000)
    scene.save()
    if access is not None or reader_ids is not None or writer_ids is not None:
        _apply_scene_access(scene, access or scene.access, reader_ids, writer_ids)
    _publish_scene(scene, "changed")
    return scene


@transaction.atomic
def set_scene_status(*, actor: User, scene: Scene, status: str) -> Scene:
    viewer = policy.viewer_for(actor, scene.campaign)
    _require(policy.may_manage_campaign(viewer), _("Solo un máster puede cerrar o reabrir escenas."))
    _check_choice("status", status, SceneStatus.values)
    scene.status = status
    scene.save(update_fields=["status", "updated_at"])
    _publish_scene(scene, "status")
    return scene


@transaction.atomic
def reorder_scenes(*, actor: User, campaign: Campaign, scene_ids: Sequence[int]) -> None:
    """``scene_ids`` lists every scene of the campaign in the new order."""
    viewer = policy.viewer_for(actor, campaign)
    _require(policy.may_manage_campaign(viewer), _("Solo un máster puede ordenar escenas."))
    scenes = {s.pk: s for s in Scene.objects.select_for_update().filter(campaign=campaign)}
    if sorted(int(i) for i in scene_ids) != sorted(scenes) or len(set(scene_ids)) != len(scene_ids):
        raise ValidationError({"scene_ids": _("Hay que dar todas las escenas de la partida, una vez cada una.")})
    for position, scene_id in enumerate(scene_ids, start=1):
        scenes[int(scene_id)].position = position
    Scene.objects.bulk_update(scenes.values(), ["position"])
    data = {"scene_id": None, "action": "reordered", "status": None}
    publish(Event(EventType.SCENE_CHANGED, campaign.pk, data), Audience(public=True))


# --- Scene aspects --------------------------------------------------------------------------------


def _clean_aspect(text: str, free_invocations: int) -> tuple[str, int]:
    text = _check_text("text", text, required=True, max_length=200)
    if not isinstance(free_invocations, int) or isinstance(free_invocations, bool) or not 0 <= free_invocations <= 20:
        raise ValidationError({"free_invocations": _("Las invocaciones gratuitas van de 0 a 20.")})
    return text, free_invocations


@transaction.atomic
def add_scene_aspect(
    *, actor: User, scene: Scene, text: str, hidden: bool = False, free_invocations: int = 0, by_rules: bool = False
) -> SceneAspect:
    """``by_rules``: a procedure's rules place this aspect (a boost, a created advantage) as a step's outcome;
    the procedure runner already checked who took the step."""
    if not by_rules:
        viewer = policy.viewer_for(actor, scene.campaign)
        _require(policy.may_manage_campaign(viewer), _("Solo un máster puede editar aspectos de escena."))
    text, free_invocations = _clean_aspect(text, free_invocations)
    last = scene.aspects.aggregate(last=Max("position"))["last"] or 0
    aspect = SceneAspect.objects.create(
        scene=scene, text=text, hidden=bool(hidden), free_invocations=free_invocations, position=last + 1
    )
    _publish_aspect(aspect, "added")
    return aspect


@transaction.atomic
def update_scene_aspect(*, actor: User, aspect: SceneAspect, by_rules: bool = False, **fields: Any) -> SceneAspect:
    aspect = SceneAspect.objects.select_for_update(of=("self",)).select_related("scene__campaign").get(pk=aspect.pk)
    if not by_rules:
        viewer = policy.viewer_for(actor, aspect.scene.campaign)
        _require(policy.may_manage_campaign(viewer), _("Solo un máster puede editar aspectos de escena."))
    unknown = set(fields) - {"text", "hidden", "free_invocations"}
    if unknown:
        raise ValidationError({name: _("Campo desconocido.") for name in sorted(unknown)})
    text, free = _clean_aspect(fields.get("text", aspect.text), fields.get("free_invocations", aspect.free_invocations))
    aspect.text, aspect.free_invocations = text, free
    was_hidden = aspect.hidden
    if "hidden" in fields:
        aspect.hidden = bool(fields["hidden"])
    aspect.save()
    _publish_aspect(aspect, "changed", was_hidden)
    return aspect


@transaction.atomic
def delete_scene_aspect(*, actor: User, aspect: SceneAspect, by_rules: bool = False) -> None:
    if not by_rules:
        viewer = policy.viewer_for(actor, aspect.scene.campaign)
        _require(policy.may_manage_campaign(viewer), _("Solo un máster puede editar aspectos de escena."))
    aspect_id = aspect.pk
    # The caller's copy may be stale: whether it is hidden now decides who hears of the deletion.
    aspect.hidden = SceneAspect.objects.filter(pk=aspect_id).values_list("hidden", flat=True).first() or False
    aspect.delete()
    aspect.pk = aspect_id  # delete() clears it; the event names the aspect that went away
    _publish_aspect(aspect, "deleted")


# --- Posts ----------------------------------------------------------------------------------------


def _render(field: str, source: str, *, required: bool) -> tuple[str, str]:
    source = (source or "").strip()
    if required and not source:
        raise ValidationError({field: _("El mensaje no puede estar vacío.")})
    if len(source) > MAX_SOURCE_LENGTH:
        raise ValidationError(
            {field: _("Como mucho %(max)d caracteres (tiene %(n)d).") % {"max": MAX_SOURCE_LENGTH, "n": len(source)}}
        )
    return source, render_field(field, source)


def scene_lists(scene: Scene) -> tuple[list[int], list[int]]:
    """The scene's reader and writer lists, in one query."""
    readers = Scene.readers.through.objects.filter(scene_id=scene.pk).values_list("user_id", Value(0))
    writers = Scene.writers.through.objects.filter(scene_id=scene.pk).values_list("user_id", Value(1))
    rows = list(readers.union(writers, all=True))
    return [uid for uid, kind in rows if kind == 0], [uid for uid, kind in rows if kind == 1]


@retried_once_on_deadlock
def create_post(*, author: User, scene: Scene, body: str, **fields: Any) -> Post:
    """Check and render outside the transaction; write in one short one (on SQLite the IMMEDIATE write
    lock is held only for the inserts, not for the Markdown rendering or the reads)."""
    prepared = prepare_post(author=author, scene=scene, body=body, **fields)
    with transaction.atomic():
        post = insert_post(prepared)
        place_post(post)
        return post


@dataclass(frozen=True)
class PreparedPost:
    """A post checked by the policy, validated and rendered: what ``insert_post`` writes."""

    author: User
    scene: Scene
    fields: dict[str, Any]
    whisper_ids: list[int]


def write_post(**kwargs: Any) -> Post:
    """``create_post`` inside the caller's transaction, with no savepoint of its own."""
    post = insert_post(prepare_post(**kwargs))
    place_post(post)
    return post


def prepare_post(
    *,
    author: User,
    scene: Scene,
    body: str,
    notes: str = "",
    voice: str = Voice.OOC,
    character: Character | None = None,
    npc_name: str = "",
    recipients: str = Recipients.EVERYONE,
    whisper_to: Iterable[int] = (),
    viewer: policy.Viewer | None = None,
    idempotency_key: str = "",
    request_digest: str = "",
) -> PreparedPost:
    """Everything a new post needs before its transaction: the policy's answer, validation, rendering.
    ``viewer``: the author's, when the caller has resolved it (saves reading the role twice)."""
    campaign = scene.campaign
    if viewer is None or viewer.user_id != author.pk or viewer.campaign_id != campaign.pk:
        viewer = policy.viewer_for(author, campaign)
    # The lists matter only to a listed scene (who may write it, and which whisper targets may read it).
    listed = scene.access == SceneAccess.LISTED and not scene.is_offtopic
    reader_ids, writer_ids = scene_lists(scene) if listed else ([], [])
    _require(policy.may_write_scene(viewer, scene, reader_ids, writer_ids), _("No puedes escribir en esta escena."))
    _check_choice("voice", voice, Voice.values)
    _check_choice("recipients", recipients, Recipients.values)
    if voice == Voice.CHARACTER and character is None:
        raise ValidationError({"character": _("Elige el personaje con el que escribes.")})
    if voice != Voice.CHARACTER:
        character = None
    if not policy.may_post_with_voice(viewer, voice, character):
        field = "character" if voice == Voice.CHARACTER else "voice"
        raise ValidationError({field: _("No puedes escribir con esa voz o ese personaje.")})
    npc_name = _check_text("npc_name", npc_name, required=voice == Voice.NPC, max_length=80)
    if voice != Voice.NPC:
        npc_name = ""
    body_source, body_html = _render("body", body, required=True)
    _check_mentions(body_source, campaign.pk)
    notes_source, notes_html = _render("notes", notes, required=False)
    whisper_ids: list[int] = []
    if recipients == Recipients.WHISPER:
        whisper_ids = _member_ids(campaign, whisper_to, "whisper_to")
        whisper_ids = [uid for uid in whisper_ids if uid != author.pk]
        if not whisper_ids:
            raise ValidationError({"whisper_to": _("Un susurro necesita al menos un destinatario.")})
        readers = Membership.objects.filter(campaign=campaign, user_id__in=whisper_ids).select_related("user")
        for membership in readers:
            target = policy.Viewer(membership.user_id, campaign.pk, viewer.campaign_public, membership.role)
            if not policy.may_read_scene(target, scene, reader_ids, writer_ids):
                raise ValidationError(
                    {"whisper_to": _("%(name)s no puede leer esta escena.") % {"name": membership.user.public_name}}
                )
    fields = {
        "voice": voice,
        "character": character,
        "npc_name": npc_name,
        "body_source": body_source,
        "body_html": body_html,
        "notes_source": notes_source,
        "notes_html": notes_html,
        "renderer_version": RENDERER_VERSION,
        "recipients": recipients,
        "whisper_ids": sorted(whisper_ids),
        "idempotency_key": idempotency_key,
        "request_digest": request_digest,
    }
    POST_LIMIT.count(author.pk)  # last: a post refused for its content does not count
    return PreparedPost(author, scene, fields, whisper_ids)


def _check_mentions(body: str, campaign_id: int) -> None:
    """A post may name at most ``LIMIT_MENTIONS_PER_POST`` people: each one named is told, so a longer list
    is a way to spam them."""
    allowed = mentions_allowed()
    if allowed <= 0:
        return
    named = len(mentioned_user_ids(body, campaign_id))
    if named > allowed:
        raise ValidationError(
            {
                "body": _("Un mensaje puede mencionar como mucho a %(max)d personas; este menciona a %(n)d.")
                % {"max": allowed, "n": named}
            }
        )


def insert_post(prepared: PreparedPost) -> Post:
    """Write a prepared post, inside the caller's transaction: its rows, its search entry, its event.

    The post has no place in its thread yet: the caller calls ``place_post`` after its other writes (a
    post's rolls), which locks the scene's row and then the author's read mark (``campaigns.scene_locks``),
    so both are held only for the end of the transaction, not its length."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("insert_post() runs inside the caller's transaction")
    scene, author, whisper_ids = prepared.scene, prepared.author, prepared.whisper_ids
    position = UNPLACED
    if _write_lock_taken_at_begin():
        position = _next_position(scene, public=prepared.fields["recipients"] == Recipients.EVERYONE)
    post = Post.objects.create(scene=scene, author=author, position=position, **prepared.fields)
    if whisper_ids:
        post.whisper_to.set(whisper_ids)
    index_post(post, new=True)
    _publish_post(EventType.POST_CREATED, post, scene.campaign_id, whisper_ids)
    return post


def create_record_post(*, author: User, scene: Scene) -> Post:
    """The thread entry of a procedure opening now in ``scene`` (the procedure runner has checked the author
    may write there). It carries no text of its own: the procedure's record lines are its content. The
    opening's first locks: the scene's row, then the author's read mark (``campaigns.scene_locks``)."""
    post = Post.objects.create(
        scene=scene,
        position=_next_position(scene, public=True),
        author=author,
        kind=PostKind.PROCEDURE,
        voice=Voice.OOC,
        body_source="",
        body_html="",
        renderer_version=RENDERER_VERSION,
        recipients=Recipients.EVERYONE,
    )
    _upsert_read_mark(author.pk, scene.pk, post.pk)
    _publish_post(EventType.POST_CREATED, post, scene.campaign_id, [])
    return post


@retried_once_on_deadlock
@transaction.atomic
def edit_post(*, actor: User, post: Post, body: str, notes: str | None = None) -> Post:
    """Keeps the previous text as a revision. Rolls attached to the post are never touched."""
    # NO KEY: the rows that point at the post (rolls, ledger entries) are not held up by an edit.
    post = Post.objects.select_for_update(of=("self",), no_key=True).select_related("scene__campaign").get(pk=post.pk)
    viewer = policy.viewer_for(actor, post.scene.campaign)
    _require(policy.may_edit_post(viewer, post), _("Solo su autor puede editar este mensaje."))
    body_source, body_html = _render("body", body, required=True)
    notes_source, notes_html = (
        _render("notes", notes, required=False) if notes is not None else (post.notes_source, post.notes_html)
    )
    if body_source == post.body_source and notes_source == post.notes_source:
        return post  # nothing changed: no revision, no "edited" mark
    PostRevision.objects.create(
        post=post, body_source=post.body_source, notes_source=post.notes_source, edited_by=actor
    )
    post.body_source, post.body_html = body_source, body_html
    post.notes_source, post.notes_html = notes_source, notes_html
    post.renderer_version = RENDERER_VERSION
    post.edited_at = timezone.now()
    post.revision_count += 1  # the row is locked: the count stays exact without an aggregate on reads
    post.save()
    index_post(post)
    _publish_post(EventType.POST_EDITED, post, post.scene.campaign_id)
    return post


@retried_once_on_deadlock
@transaction.atomic
def delete_post(*, actor: User, post: Post) -> Post:
    """Soft delete: the post stays for the GMs (and its rolls stay as evidence)."""
    post = Post.objects.select_for_update(of=("self",), no_key=True).select_related("scene__campaign").get(pk=post.pk)
    viewer = policy.viewer_for(actor, post.scene.campaign)
    if post.deleted_at is not None:
        raise ValidationError(_("Este mensaje ya está borrado."))
    _require(policy.may_delete_post(viewer, post), _("No puedes borrar este mensaje."))
    post.deleted_at = timezone.now()
    post.deleted_by = actor
    post.save(update_fields=["deleted_at", "deleted_by"])
    _publish_post(EventType.POST_DELETED, post, post.scene.campaign_id)
    return post


# A new post's position until ``place_post`` gives it one, inside the same transaction (never committed).
UNPLACED = 0


def place_post(post: Post) -> None:
    """Give a post written by ``insert_post`` its place in its thread (see ``Post.position``), bumping the
    scene's activity time, then move its author's read mark to it: the transaction's last writes before a
    roll's links in the campaign's chain, in the order every writer in a scene takes these locks (scene,
    read mark, chain: ``campaigns.scene_locks``). The scene's row stays locked until the commit, so
    positions follow commit order within a scene; other scenes of the campaign are not held up. (On SQLite
    ``insert_post`` placed it: there the whole transaction holds the write lock.)"""
    if not _write_lock_taken_at_begin():
        _place(post)
    # Writing is reading: the author's own post never shows as unread to them.
    _upsert_read_mark(post.author_id, post.scene_id, post.pk)


def _place(post: Post) -> None:
    # One statement: a CTE advancing the scene's counter and writing it into the post.
    scene_table = connection.ops.quote_name(Scene._meta.db_table)
    post_table = connection.ops.quote_name(Post._meta.db_table)
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH placed AS ({_ADVANCE_SCENE.format(table=scene_table)}) "
            f"UPDATE {post_table} SET position = placed.last_post_position FROM placed WHERE {post_table}.id = %s "
            "RETURNING placed.last_post_position",
            [1 if post.recipients == Recipients.EVERYONE else 0, now, post.scene_id, post.pk],
        )
        position = int(cursor.fetchone()[0])
    post.position = position
    post.scene.last_post_position = position


# The scene's counter moved by a post's increment (1, or 0 for a post not to everyone) and its activity time.
_ADVANCE_SCENE = (
    "UPDATE {table} SET last_post_position = last_post_position + %s, updated_at = %s "
    "WHERE id = %s RETURNING last_post_position"
)


def _write_lock_taken_at_begin() -> bool:
    # SQLite's write transactions are IMMEDIATE (tintero.sqlite): one writer at a time from BEGIN, so taking
    # the scene's row early holds nobody up and saves a statement. PostgreSQL locks rows as it writes them.
    return connection.vendor == "sqlite"


def _next_position(scene: Scene, *, public: bool) -> int:
    """The next place in the scene's thread, bumping its activity time: one UPDATE ... RETURNING, which
    locks the scene's row until the commit."""
    table = connection.ops.quote_name(Scene._meta.db_table)
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(
            _ADVANCE_SCENE.format(table=table),
            [1 if public else 0, now, scene.pk],
        )
        row = cursor.fetchone()
    position = int(row[0])
    scene.last_post_position = position
    return position


def _upsert_read_mark(user_id: int, scene_id: int, post_id: int) -> None:
    """Create the user's read marker at ``post_id`` or move it there (never back): one statement."""
    table = connection.ops.quote_name(SceneReadMark._meta.db_table)
    greatest = "GREATEST" if connection.vendor == "postgresql" else "MAX"
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (user_id, scene_id, last_read_post_id, updated_at) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (user_id, scene_id) DO UPDATE SET "
            f"last_read_post_id = {greatest}({table}.last_read_post_id, excluded.last_read_post_id), "
            "updated_at = excluded.updated_at",
            [user_id, scene_id, post_id, now],
        )


def _advance_read_mark(user: User, scene: Scene, post_id: int) -> None:
    mark, created = SceneReadMark.objects.get_or_create(user=user, scene=scene, defaults={"last_read_post_id": post_id})
    if not created and mark.last_read_post_id < post_id:
        SceneReadMark.objects.filter(pk=mark.pk, last_read_post_id__lt=post_id).update(
            last_read_post_id=post_id, updated_at=timezone.now()
        )


def mark_scene_read(
    *, user: User, scene: Scene, up_to_post_id: int | None = None, last_read: int | None = None
) -> None:
    """Move the user's read marker forward (never back) to ``up_to_post_id`` or the newest post.

    ``last_read``: the marker as the caller read it with the page (0: no marker yet). With it a page view
    writes at most one statement, and none when the marker is already there.
    """
    if not user.is_authenticated:
        return
    if up_to_post_id is None:
        up_to_post_id = scene.posts.aggregate(last=Max("id"))["last"] or 0
    if last_read is not None and last_read >= up_to_post_id:
        return
    if last_read == 0:
        # No marker yet: create it, or (another tab got there first) move it, in one statement.
        SceneReadMark.objects.bulk_create(
            [SceneReadMark(user=user, scene=scene, last_read_post_id=up_to_post_id)],
            update_conflicts=True,
            unique_fields=["user", "scene"],
            update_fields=["last_read_post_id", "updated_at"],
        )
        return
    moved = SceneReadMark.objects.filter(user=user, scene=scene, last_read_post_id__lt=up_to_post_id).update(
        last_read_post_id=up_to_post_id, updated_at=timezone.now()
    )
    if not moved and last_read is None:
        try:
            with transaction.atomic():
                _advance_read_mark(user, scene, up_to_post_id)
        except IntegrityError:
            # Two tabs marking at once: the other one created the row; move it forward instead.
            SceneReadMark.objects.filter(user=user, scene=scene, last_read_post_id__lt=up_to_post_id).update(
                last_read_post_id=up_to_post_id
            )


__all__ = [
    "add_scene_aspect",
    "cancel_invitation",
    "change_role",
    "create_campaign",
    "create_post",
    "create_scene",
    "decide_join_request",
    "delete_post",
    "delete_scene_aspect",
    "edit_post",
    "insert_post",
    "invite",
    "leave_campaign",
    "mark_scene_read",
    "place_post",
    "prepare_post",
    "remove_member",
    "reorder_scenes",
    "request_to_join",
    "respond_to_invitation",
    "scene_lists",
    "set_scene_status",
    "update_campaign",
    "update_scene",
    "update_scene_aspect",
    "withdraw_join_request",
    "write_post",
]
