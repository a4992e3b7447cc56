"""Serializers of the characters API: ``*In`` parse a request body, ``*Out`` shape a response.

Private parts (sheet, equipment, notes) are *absent* (not null) for viewers who may not see them, decided
by ``campaigns.policy`` with the viewer in the context. Ledger entries are trimmed the same way.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from campaigns import policy
from characters import selectors
from characters.models import Character, CharacterStatus, LedgerEntry
from tintero.api.serializers import CharacterBriefOut, UserBriefOut, _viewer, id_field

PRIVATE_FIELDS = ("sheet", "equipment", "notes")


class CharacterOut(serializers.ModelSerializer):
    """A character. ``sheet``, ``equipment`` and ``notes`` only for its owner and the GMs (or the whole table
    when the campaign opens its sheets); absent for others."""

    owner = UserBriefOut(read_only=True, allow_null=True)
    status = serializers.ChoiceField(choices=CharacterStatus.choices, read_only=True)
    portrait = serializers.SerializerMethodField()
    sheet = serializers.JSONField(required=False, help_text="The ruleset's sheet. Private: absent for others.")
    equipment = serializers.CharField(required=False, help_text="Private: absent for others.")
    notes = serializers.CharField(required=False, help_text="Private: absent for others.")
    may_see_private = serializers.SerializerMethodField()
    may_edit = serializers.SerializerMethodField()

    class Meta:
        model = Character
        fields = [
            "id",
            "campaign",
            "name",
            "owner",
            "is_npc",
            "status",
            "description",
            "history",
            "portrait",
            "sheet",
            "equipment",
            "notes",
            "submitted_at",
            "approved_at",
            "created_at",
            "updated_at",
            "may_see_private",
            "may_edit",
        ]
        read_only_fields = [f for f in fields if f not in PRIVATE_FIELDS]

    def _private(self, character: Character) -> bool:
        viewer = _viewer(self)
        if viewer is None:
            return False
        campaign = self.context.get("campaign") or character.campaign
        return policy.may_see_private_parts(viewer, character, campaign.sheets_open)

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_portrait(self, character: Character) -> str | None:
        return character.portrait.url if character.portrait else None

    def get_may_see_private(self, character: Character) -> bool:
        return self._private(character)

    def get_may_edit(self, character: Character) -> bool:
        viewer = _viewer(self)
        return viewer is not None and policy.may_edit_character(viewer, character)

    def to_representation(self, instance: Character) -> dict[str, Any]:
        data = super().to_representation(instance)
        if not self._private(instance):
            for name in PRIVATE_FIELDS:
                data.pop(name, None)
        return data


def _text(max_length: int, help_text: str = "") -> serializers.CharField:
    return serializers.CharField(
        required=False, allow_blank=True, max_length=max_length, trim_whitespace=False, help_text=help_text
    )


class CharacterCreateIn(serializers.Serializer):
    name = serializers.CharField(max_length=80)
    is_npc = serializers.BooleanField(required=False, default=False, help_text="GMs only: an NPC has no player.")
    owner = id_field(required=False, allow_null=True, help_text="GMs only: the user id of the player who owns a PC.")
    description = _text(20_000, "Public.")
    history = _text(50_000, "Public.")
    equipment = _text(20_000, "Private.")
    notes = _text(20_000, "Private.")
    sheet = serializers.JSONField(
        required=False, help_text="The ruleset's sheet (see `GET /api/rulesets/{key}/` `sheet_schema`)."
    )


class CharacterUpdateIn(serializers.Serializer):
    name = serializers.CharField(max_length=80, required=False)
    description = _text(20_000)
    history = _text(50_000)
    equipment = _text(20_000)
    notes = _text(20_000)
    sheet = serializers.JSONField(required=False, help_text="Only while the character is a draft or awaiting approval.")


class PortraitIn(serializers.Serializer):
    portrait = serializers.ImageField(help_text="PNG, JPEG, GIF or WebP up to 2 MB; stored re-encoded as WebP.")


class OperationIn(serializers.Serializer):
    params = serializers.DictField(
        required=False,
        default=dict,
        child=serializers.JSONField(),
        help_text="The operation's params (see `params_schema` in `GET /api/rulesets/{key}/`).",
    )
    reason = serializers.CharField(required=False, default="", allow_blank=True, max_length=300)
    post = id_field(
        required=False, allow_null=True, default=None, help_text="The post that caused this change, if any."
    )

    def validate_params(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise serializers.ValidationError(_("Tiene que ser un objeto."))
        return value


class LedgerEntryOut(serializers.ModelSerializer):
    """One change: who, when, why, the state before and after, and how each numeric pool moved
    (``changes``: ``{"<pool key>": [before, after]}``). Non-GMs get only what they may see."""

    character = CharacterBriefOut(read_only=True, allow_null=True)
    actor = UserBriefOut(read_only=True)
    operation_name = serializers.SerializerMethodField()
    before = serializers.SerializerMethodField()
    after = serializers.SerializerMethodField()
    changes = serializers.SerializerMethodField()

    class Meta:
        model = LedgerEntry
        fields = [
            "id",
            "campaign",
            "character",
            "operation",
            "operation_name",
            "params",
            "before",
            "after",
            "changes",
            "actor",
            "reason",
            "post",
            "roll_id",
            "created_at",
        ]
        read_only_fields = fields

    def _parts(self, entry: LedgerEntry) -> tuple[dict[str, Any], dict[str, Any], dict[str, list[int]]]:
        cache = self.context.setdefault("_ledger_parts", {})
        if entry.pk not in cache:
            viewer = _viewer(self)
            if viewer is None:
                cache[entry.pk] = ({}, {}, {})
            else:
                cache[entry.pk] = selectors.visible_entry(entry, viewer, self.context.get("pools_public", False))
        return cache[entry.pk]

    def get_operation_name(self, entry: LedgerEntry) -> str:
        return self.context.get("operation_names", {}).get(entry.operation, entry.operation)

    @extend_schema_field(serializers.JSONField())
    def get_before(self, entry: LedgerEntry) -> dict[str, Any]:
        return self._parts(entry)[0]

    @extend_schema_field(serializers.JSONField())
    def get_after(self, entry: LedgerEntry) -> dict[str, Any]:
        return self._parts(entry)[1]

    @extend_schema_field(serializers.DictField(child=serializers.ListField(child=serializers.IntegerField())))
    def get_changes(self, entry: LedgerEntry) -> dict[str, list[int]]:
        return self._parts(entry)[2]


class PoolsOut(serializers.Serializer):
    public = serializers.BooleanField(help_text="Whether the whole table sees these pools (else the GMs only).")
    pools = serializers.DictField(child=serializers.IntegerField(), help_text="`campaign.<pool>` to its value.")
    state = serializers.JSONField(help_text="The campaign rules state as stored.")


# --- Rulesets (discovery) ---------------------------------------------------------------------------


class NamesOut(serializers.Serializer):
    es = serializers.CharField()
    en = serializers.CharField()


class RollKindOut(serializers.Serializer):
    key = serializers.CharField()
    names = NamesOut()
    request_schema = serializers.JSONField(allow_null=True, help_text="JSON schema of the roll request.")


class PoolSpecOut(serializers.Serializer):
    key = serializers.CharField()
    names = NamesOut()
    scope = serializers.ChoiceField(choices=[("campaign", "campaign"), ("character", "character")])
    minimum = serializers.IntegerField()
    maximum = serializers.IntegerField(allow_null=True)
    initial = serializers.IntegerField()


class TrackSpecOut(serializers.Serializer):
    key = serializers.CharField()
    names = NamesOut()
    kind = serializers.CharField(help_text="boxes, slots or counter.")
    size = serializers.IntegerField(allow_null=True)


class OperationSpecOut(serializers.Serializer):
    key = serializers.CharField()
    names = NamesOut()
    target = serializers.ChoiceField(choices=[("campaign", "campaign"), ("character", "character")])
    who_may = serializers.ListField(
        child=serializers.ChoiceField(choices=[("gm", "gm"), ("owner", "owner")]),
        help_text="`gm`: the campaign's GMs; `owner`: the player who owns the (approved) character.",
    )
    params_schema = serializers.JSONField(allow_null=True, help_text="JSON schema of `params`.")


class RulesetOut(serializers.Serializer):
    key = serializers.CharField()
    names = NamesOut()
    roll_kinds = RollKindOut(many=True)
    pools = PoolSpecOut(many=True)
    tracks = TrackSpecOut(many=True)
    operations = OperationSpecOut(many=True)
    settings_schema = serializers.JSONField(allow_null=True, help_text="JSON schema of the campaign settings.")
    sheet_schema = serializers.JSONField(allow_null=True, help_text="JSON schema of a character sheet.")
