"""Every write to characters, sheets and the campaign's shared numbers.

A sheet changes in two ways only: freely while its owner writes it (draft), and, once approved, through
:func:`apply_operation`, which runs the ruleset's pure transition under a row lock and appends a
ledger entry in the same transaction. A change the rules forbid raises ``RulesError`` and writes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from accounts.models import User
from campaigns import policy
from campaigns.events import Audience, Event, EventType, publish
from campaigns.models import Campaign, Membership, Post, Role
from characters import portraits
from characters.models import CampaignRulesState, Character, CharacterStatus, LedgerEntry
from rulesets import registry
from systems.errors import RulesError

PORTRAIT_MAX_BYTES = portraits.MAX_BYTES
TEXT_LIMITS = {"name": 80, "description": 20_000, "history": 50_000, "equipment": 20_000, "notes": 20_000}


def _require(allowed: bool, message: str) -> None:
    if not allowed:
        raise PermissionDenied(message)


def pydantic_to_validation_error(exc: PydanticValidationError, field: str) -> ValidationError:
    """A pydantic error as a Django ValidationError on ``field``, one readable line per problem."""
    lines = []
    for err in exc.errors():
        where = ".".join(str(part) for part in err["loc"])
        if err["type"] == "extra_forbidden":  # a key the model does not read: refused by name, never dropped
            lines.append(_("Parámetro desconocido: «%(key)s».") % {"key": where})
            continue
        lines.append(f"{where}: {err['msg']}" if where else str(err["msg"]))
    return ValidationError({field: lines})


def campaign_settings(campaign: Campaign) -> BaseModel | None:
    model = registry.rules(campaign.ruleset).settings_model
    if model is None:
        return None
    return model.model_validate(campaign.rules_settings or {})


def _clean_texts(fields: Mapping[str, Any]) -> dict[str, str]:
    cleaned: dict[str, str] = {}
    for name, value in fields.items():
        if name not in TEXT_LIMITS:
            raise ValidationError({name: _("Campo desconocido.")})
        if not isinstance(value, str):
            raise ValidationError({name: _("Tiene que ser texto.")})
        value = value.strip()
        if name == "name" and not value:
            raise ValidationError({"name": _("Este campo es obligatorio.")})
        if len(value) > TEXT_LIMITS[name]:
            raise ValidationError(
                {name: _("Como mucho %(max)d caracteres (tiene %(n)d).") % {"max": TEXT_LIMITS[name], "n": len(value)}}
            )
        cleaned[name] = value
    return cleaned


def _character_event(character: Character, action: str) -> None:
    """``action``: ``created``, ``edited`` (texts, sheet, portrait) or ``status`` (only these notify)."""
    audience = (
        Audience(public=True)
        if character.status == CharacterStatus.APPROVED
        else Audience(gms_only=True, user_ids=frozenset({character.owner_id} if character.owner_id else ()))
    )
    publish(
        Event(
            EventType.CHARACTER_CHANGED,
            character.campaign_id,
            {"character_id": character.pk, "status": character.status, "action": action},
        ),
        audience,
    )


# --- Characters -----------------------------------------------------------------------------------


@transaction.atomic
def create_character(
    *,
    actor: User,
    campaign: Campaign,
    name: str,
    is_npc: bool = False,
    owner: User | None = None,
    sheet: Mapping[str, Any] | None = None,
    **texts: str,
) -> Character:
    """A player starts a draft of their own character; a GM creates NPCs (or a PC for a player)."""
    viewer = policy.viewer_for(actor, campaign)
    _require(policy.may_create_character(viewer, is_npc), _("No puedes crear personajes en esta partida."))
    cleaned = _clean_texts({"name": name, **texts})
    if is_npc:
        owner = None
    elif not policy.may_create_for_others(viewer) or owner is None:
        owner = actor  # players create their own; a GM creating a PC names its player
    if owner is not None and not Membership.objects.filter(campaign=campaign, user=owner, role=Role.PLAYER).exists():
        raise ValidationError({"owner": _("El dueño de un personaje jugador tiene que ser jugador de la partida.")})
    binding = registry.plugin(campaign.ruleset).sheet
    draft = _draft_sheet(binding, campaign, sheet or {})
    character = Character.objects.create(
        campaign=campaign, owner=owner, is_npc=is_npc, sheet=draft, status=CharacterStatus.DRAFT, **cleaned
    )
    _character_event(character, "created")
    return character


def _draft_sheet(binding: Any, campaign: Campaign, data: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise ValidationError({"sheet": _("La hoja tiene que ser un objeto.")})
    try:
        return binding.draft_sheet(dict(data), campaign_settings(campaign))
    except PydanticValidationError as exc:
        raise pydantic_to_validation_error(exc, "sheet") from None
    except RulesError as exc:
        raise ValidationError({"sheet": exc.message(get_language() or "es")}) from None


@transaction.atomic
def update_character(
    *, actor: User, character: Character, sheet: Mapping[str, Any] | None = None, **texts: str
) -> Character:
    """Texts at any time; the sheet only while it is a draft or awaiting approval.

    After approval the sheet changes through operations (and the ledger) only.
    """
    character = Character.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=character.pk)
    viewer = policy.viewer_for(actor, character.campaign)
    _require(policy.may_edit_character(viewer, character), _("No puedes editar este personaje."))
    cleaned = _clean_texts(texts)
    if sheet is not None:
        if character.status not in (CharacterStatus.DRAFT, CharacterStatus.PENDING):
            raise ValidationError(
                {"sheet": _("La hoja de un personaje aprobado solo cambia con las operaciones de su sistema.")}
            )
        character.sheet = _draft_sheet(registry.plugin(character.campaign.ruleset).sheet, character.campaign, sheet)
        if character.status == CharacterStatus.PENDING and not policy.keeps_approval_on_sheet_edit(viewer):
            character.status = CharacterStatus.DRAFT  # a changed sheet needs approving again
    for name, value in cleaned.items():
        setattr(character, name, value)
    character.save()
    _character_event(character, "edited")
    return character


def _complete_sheet(character: Character) -> dict[str, Any]:
    binding = registry.plugin(character.campaign.ruleset).sheet
    try:
        return binding.new_sheet(dict(character.sheet), campaign_settings(character.campaign), is_npc=character.is_npc)
    except PydanticValidationError as exc:
        raise pydantic_to_validation_error(exc, "sheet") from None
    except RulesError as exc:
        raise ValidationError({"sheet": f"{exc.code}: {exc.message(get_language() or 'es')}"}) from None


@transaction.atomic
def submit_character(*, actor: User, character: Character) -> Character:
    """The owner sends a finished sheet to the GMs; the ruleset's creation rules must hold."""
    character = Character.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=character.pk)
    viewer = policy.viewer_for(actor, character.campaign)
    _require(policy.may_edit_character(viewer, character), _("No puedes enviar este personaje."))
    if character.status != CharacterStatus.DRAFT:
        raise ValidationError(_("Solo se envía a aprobación un borrador."))
    before_submit = getattr(registry.plugin(character.campaign.ruleset).sheet, "before_submit", None)
    if before_submit is not None:  # a ruleset's creation flow may hold the sheet back (Event's veto windows)
        before_submit(character)
    character.sheet = _complete_sheet(character)
    character.status = CharacterStatus.PENDING
    character.submitted_at = timezone.now()
    character.save()
    _character_event(character, "status")
    return character


@transaction.atomic
def approve_character(*, actor: User, character: Character) -> Character:
    """A GM approves: from now on the character may post, and its sheet changes through the ledger."""
    character = Character.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=character.pk)
    viewer = policy.viewer_for(actor, character.campaign)
    _require(policy.may_approve_character(viewer), _("Solo un máster aprueba personajes."))
    if character.status == CharacterStatus.APPROVED:
        raise ValidationError(_("Este personaje ya está aprobado."))
    if character.status == CharacterStatus.RETIRED:
        raise ValidationError(_("Este personaje está retirado."))
    if character.status == CharacterStatus.DRAFT and not character.is_npc:
        raise ValidationError(_("El jugador todavía no ha enviado este personaje."))
    character.sheet = _complete_sheet(character)
    character.status = CharacterStatus.APPROVED
    character.approved_by = actor
    character.approved_at = timezone.now()
    character.save()
    _character_event(character, "status")
    return character


@transaction.atomic
def return_to_draft(*, actor: User, character: Character) -> Character:
    """A GM sends a submitted character back to its owner for changes."""
    character = Character.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=character.pk)
    viewer = policy.viewer_for(actor, character.campaign)
    _require(policy.may_approve_character(viewer), _("Solo un máster devuelve personajes."))
    if character.status != CharacterStatus.PENDING:
        raise ValidationError(_("Solo se devuelve un personaje pendiente de aprobación."))
    character.status = CharacterStatus.DRAFT
    character.save()
    _character_event(character, "status")
    return character


@transaction.atomic
def retire_character(*, actor: User, character: Character) -> Character:
    character = Character.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=character.pk)
    viewer = policy.viewer_for(actor, character.campaign)
    _require(policy.may_edit_character(viewer, character), _("No puedes retirar este personaje."))
    if character.status == CharacterStatus.RETIRED:
        raise ValidationError(_("Este personaje ya está retirado."))
    character.status = CharacterStatus.RETIRED
    character.save()
    _character_event(character, "status")
    return character


@transaction.atomic
def set_portrait(*, actor: User, character: Character, upload: UploadedFile | None) -> Character:
    character = Character.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=character.pk)
    viewer = policy.viewer_for(actor, character.campaign)
    _require(policy.may_edit_character(viewer, character), _("No puedes cambiar este retrato."))
    previous = character.portrait.name if character.portrait else ""
    if upload is None:
        character.portrait = None  # type: ignore[assignment]
    else:
        character.portrait.save(f"{character.pk}.webp", portraits.reencode(upload), save=False)
    character.save()
    _character_event(character, "edited")
    portraits.delete_after_commit(character.portrait.storage, previous)
    return character


# --- Operations and the ledger --------------------------------------------------------------------


def _lock_rules_state(campaign: Campaign, binding: Any) -> CampaignRulesState:
    state, created = CampaignRulesState.objects.get_or_create(
        campaign=campaign, defaults={"state": binding.initial_campaign_state(campaign_settings(campaign))}
    )
    if created:
        return state
    return CampaignRulesState.objects.select_for_update().get(pk=state.pk)


def rules_state(campaign: Campaign) -> dict[str, Any]:
    """The campaign rules state as stored (or its initial value, before any operation)."""
    stored = CampaignRulesState.objects.filter(campaign=campaign).values_list("state", flat=True).first()
    if stored is not None:
        return stored
    return registry.plugin(campaign.ruleset).sheet.initial_campaign_state(campaign_settings(campaign))


def apply_operation(
    *,
    actor: User,
    campaign: Campaign,
    operation: str,
    params: Mapping[str, Any] | None = None,
    character: Character | None = None,
    reason: str = "",
    post: Post | None = None,
    roll_id: int | None = None,
    by_rules: bool = False,
    from_flow: bool = False,
) -> LedgerEntry:
    """Apply the ruleset's operation ``operation`` and append its ledger entry, atomically.

    Raises PermissionDenied (policy), ValidationError (malformed params) or RulesError (the rules say
    no). In every refusal nothing is written. ``by_rules``: a flow step whose actor the flow runner has
    already checked grants this change (a player accepting a compel), so the operation policy is skipped.
    ``from_flow``: the call comes from a flow step; operations that exist only inside flows (a Presagios
    retry, a DRYH conflict step) are refused anywhere else.
    """
    ruleset = registry.rules(campaign.ruleset)
    binding = registry.plugin(campaign.ruleset).sheet
    flow_op = getattr(binding, "flow_operation", None)  # a ruleset's flow may add its own (DRYH conflicts)
    flow_only = flow_op(operation) if flow_op is not None else None
    if flow_only is not None and not from_flow:
        raise RulesError(
            "operation_needs_flow",
            "Esta operación solo ocurre dentro de un procedimiento de la escena.",
            "This operation only happens inside a scene procedure.",
        )
    op = flow_only or ruleset.operation(operation)
    if character is not None and character.campaign_id != campaign.pk:
        raise ValidationError({"character": _("Ese personaje no es de esta partida.")})
    viewer = policy.viewer_for(actor, campaign)
    _require(
        by_rules or policy.may_apply_operation(viewer, character, binding.who_may(op)),
        _("No puedes hacer esa operación."),
    )
    if len(reason) > 300:
        raise ValidationError({"reason": _("Como mucho %(max)d caracteres.") % {"max": 300}})
    try:
        parsed = op.params_model.model_validate(dict(params or {})) if op.params_model is not None else None
    except PydanticValidationError as exc:
        raise pydantic_to_validation_error(exc, "params") from None
    settings = campaign_settings(campaign)
    targets = binding.targets(op, parsed, character.pk if character else None)

    with transaction.atomic():
        state_row = _lock_rules_state(campaign, binding) if targets.campaign_state else None
        target_ids = set(targets.character_ids)
        if targets.all_characters:
            target_ids |= set(
                Character.objects.filter(campaign=campaign, is_npc=False, status=CharacterStatus.APPROVED).values_list(
                    "pk", flat=True
                )
            )
        # Lock characters in id order so two operations on the same pair never deadlock.
        locked = {
            c.pk: c
            for c in Character.objects.select_for_update()
            .filter(pk__in=sorted(target_ids), campaign=campaign)
            .order_by("pk")
        }
        missing = set(targets.character_ids) - set(locked)
        if missing:
            raise ValidationError({"character": _("Hay personajes que no son de esta partida.")})
        for locked_character in locked.values():
            if locked_character.status != CharacterStatus.APPROVED:
                raise ValidationError(
                    {"character": _("El personaje %(name)s no está aprobado.") % {"name": locked_character.name}}
                )
        before_state = state_row.state if state_row is not None else None
        before_sheets = {pk: c.sheet for pk, c in locked.items()}
        outcome = binding.apply(op, parsed, settings, before_state, before_sheets, character.pk if character else None)
        unlocked = set(outcome.sheets) - set(locked)
        if unlocked:  # a binding bug, never a user error: nothing unlocked is written
            raise RuntimeError(f"{binding.key} wrote sheets it did not lock: {sorted(unlocked)}")
        before_pools = binding.pool_values(before_state, before_sheets)
        after_sheets = {**before_sheets, **outcome.sheets}
        after_state = outcome.campaign_state if outcome.campaign_state is not None else before_state
        after_pools = binding.pool_values(after_state, after_sheets)
        signed = getattr(binding, "signed_tracks", frozenset())  # tracks that may go below zero (Presagios)
        for key, value in after_pools.items():
            if value < 0 and key.rsplit(".", 1)[-1] not in signed:  # the rules should refuse first; last defence
                raise RulesError(
                    "pool_negative",
                    "Ninguna reserva puede quedar por debajo de cero.",
                    "No pool may go below zero.",
                    pool=key,
                )
        if state_row is not None and after_state != before_state:
            state_row.state = after_state
            state_row.save(update_fields=["state", "updated_at"])
        for pk, sheet in outcome.sheets.items():
            if sheet != before_sheets.get(pk):
                Character.objects.filter(pk=pk).update(sheet=sheet, updated_at=timezone.now())
        changes = {
            key: [before_pools.get(key, 0), after_pools.get(key, 0)]
            for key in sorted(set(before_pools) | set(after_pools))
            if before_pools.get(key, 0) != after_pools.get(key, 0)
        }
        entry = LedgerEntry.objects.create(
            campaign=campaign,
            character=character,
            operation=op.key,
            params=parsed.model_dump(mode="json") if parsed is not None else {},
            before={
                "campaign": before_state if state_row else None,
                "characters": {str(k): v for k, v in before_sheets.items()},
            },
            after={
                "campaign": after_state if state_row else None,
                "characters": {str(k): after_sheets[k] for k in locked},
            },
            changes=changes,
            actor=actor,
            reason=reason.strip(),
            post=post,
            roll_id=roll_id,
        )
        _publish_operation(campaign, binding, entry, state_row is not None, locked)
    return entry


def _publish_operation(
    campaign: Campaign, binding: Any, entry: LedgerEntry, campaign_changed: bool, characters: Mapping[int, Character]
) -> None:
    """Pools go to the whole table unless the ruleset keeps them for the GMs (Presagios' hidden threat);
    a sheet's change goes where its private parts may be read."""
    if campaign_changed:
        public = binding.pools_public(campaign_settings(campaign))
        publish(
            Event(EventType.POOL_CHANGED, campaign.pk, {"ledger_id": entry.pk, "operation": entry.operation}),
            Audience(public=True) if public else Audience(gms_only=True),
        )
    # Open sheets are open to the table (members), never to outsiders reading a public campaign.
    members = (
        frozenset(Membership.objects.filter(campaign=campaign).values_list("user_id", flat=True))
        if campaign.sheets_open and characters
        else frozenset()
    )
    for character in characters.values():
        audience = (
            Audience(user_ids=members)
            if campaign.sheets_open and not character.is_npc
            else Audience(gms_only=True, user_ids=frozenset({character.owner_id} if character.owner_id else ()))
        )
        publish(
            Event(
                EventType.TRACK_CHANGED,
                campaign.pk,
                {"ledger_id": entry.pk, "operation": entry.operation, "character_id": character.pk},
            ),
            audience,
        )
