"""Serializers of the rolls and flows API. Outputs shape the policy-filtered views of ``rolls.selectors``
and ``rolls.views.flow_views``: a field the viewer may not see (a secret difficulty, a flow's secret state,
someone else's sealed step) is *absent*, never null.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from campaigns.error_codes import STEP_UNAVAILABLE
from rolls.models import FlowStatus
from rolls.selectors import FlowView, RollView, StepView
from tintero.api.serializers import CharacterBriefOut, UserBriefOut

JSON_OBJECT = {"type": "object", "additionalProperties": True}


# --- Input ----------------------------------------------------------------------------------------


class RevealIn(serializers.Serializer):
    include_secret = serializers.BooleanField(
        required=False, default=False, help_text="Reveal the roll's secret difficulty too (once: a reveal is final)."
    )


class FlowStartIn(serializers.Serializer):
    kind = serializers.SlugField(max_length=40, help_text="A flow kind of the campaign's ruleset.")
    params = serializers.DictField(required=False, default=dict, help_text="The flow kind's opening parameters.")


class FlowStepIn(serializers.Serializer):
    step = serializers.SlugField(max_length=40, help_text="The step to take (see the flow's `waiting_for`).")
    params = serializers.DictField(required=False, default=dict, help_text="The step's parameters.")
    idempotency_key = serializers.CharField(
        max_length=80,
        help_text="A key unique to this request (a uuid). Sending the same key again changes nothing and "
        "returns the flow as it is (200).",
    )


class FlowListQueryIn(serializers.Serializer):
    status = serializers.ChoiceField(choices=FlowStatus.choices, required=False, help_text="Only flows in this state.")


# --- Output ---------------------------------------------------------------------------------------


class DieOut(serializers.Serializer):
    face = serializers.IntegerField(help_text="The number the die shows (Fudge: -1, 0, +1).")
    glyph = serializers.CharField(help_text="What is printed on the die: `+`, `−`, `6`, an omen...")
    counts = serializers.BooleanField(help_text="False for dropped or rerolled dice (drawn struck through).")
    note = serializers.CharField(help_text="`exploded`, `rerolled`... or empty.")


class PoolFacesOut(serializers.Serializer):
    pool = serializers.CharField(help_text="The pool (its dice's colour): `fudge`, `d6`, `discipline`, `pain`...")
    dice = DieOut(many=True)


def faces_by_pool(view: RollView) -> list[dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for die in view.faces:
        groups.setdefault(die.pool, []).append(
            {"face": die.face, "glyph": die.glyph, "counts": die.counts, "note": die.note}
        )
    return [{"pool": pool, "dice": dice} for pool, dice in groups.items()]


def _summary(obj: Any, language: str) -> str:
    return str(obj.summary_en if language.startswith("en") and obj.summary_en else obj.summary_es)


class FollowUpOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField(help_text="invoke, reroll, compel, hope, despair, settle...")
    actor = UserBriefOut()
    character = CharacterBriefOut(allow_null=True)
    data = serializers.JSONField()
    result = serializers.JSONField(help_text="The roll's result after this follow-up, when it changed it.")
    summary = serializers.SerializerMethodField(help_text="In words, in the request's language.")
    created_at = serializers.DateTimeField()

    def get_summary(self, obj: Any) -> str:
        return _summary(obj, self.context.get("language", "es"))


class RollOut(serializers.Serializer):
    """A roll as the viewer may see it. ``secret`` (a secret difficulty, the margin) only for GMs, or for
    everyone once a GM revealed it; a secret roll is not served at all to others before its reveal."""

    id = serializers.IntegerField(source="roll.pk")
    post = serializers.IntegerField(source="roll.post_id", allow_null=True)
    scene = serializers.IntegerField(source="roll.scene_id")
    flow = serializers.IntegerField(source="roll.flow_id", allow_null=True)
    roller = UserBriefOut(source="roll.local_roller", allow_null=True, help_text="Null for an imported roll.")
    imported_roller = serializers.CharField(
        source="roll.imported_roller", help_text="An imported roll: the archive's handle of who rolled; else empty."
    )
    character = CharacterBriefOut(source="roll.character", allow_null=True)
    ruleset = serializers.CharField(source="roll.ruleset")
    kind = serializers.CharField(source="roll.kind")
    label = serializers.CharField(source="roll.label")
    position = serializers.IntegerField(source="roll.position", help_text="Order among the post's rolls.")
    request = serializers.JSONField(source="roll.request", help_text="What was asked (without secret parts).")
    result = serializers.JSONField(source="roll.result", help_text="Every face and the outcome, to verify it.")
    faces = serializers.SerializerMethodField(help_text="The dice to draw, grouped by pool, in order.")
    summary = serializers.CharField(help_text="The result in words, in the request's language.")
    gm_only = serializers.BooleanField(help_text="A secret roll (GMs only until revealed).")
    revealed = serializers.BooleanField()
    secret = serializers.JSONField(required=False, help_text="Only for GMs, or once revealed; absent otherwise.")
    follow_ups = FollowUpOut(many=True, help_text="What happened to the roll afterwards, in order.")
    created_at = serializers.DateTimeField(source="roll.created_at")

    @extend_schema_field(PoolFacesOut(many=True))
    def get_faces(self, view: RollView) -> list[dict[str, Any]]:
        return faces_by_pool(view)

    def to_representation(self, instance: RollView) -> dict[str, Any]:
        data = super().to_representation(instance)
        if instance.secret is None:
            data.pop("secret", None)
        return data


class WaitingOut(serializers.Serializer):
    step = serializers.CharField(help_text="The step the flow waits for (empty when closed).")
    label = serializers.CharField(help_text="That step in words.")
    gms = serializers.BooleanField(help_text="Whether it waits for a GM.")
    users = UserBriefOut(many=True, help_text="The players it waits for.")
    names = serializers.ListField(child=serializers.CharField(), help_text="Everyone it waits for, by name.")


class FlowStepOut(serializers.Serializer):
    id = serializers.IntegerField(source="row.pk")
    step = serializers.CharField(source="row.step")
    actor = UserBriefOut(source="row.actor")
    params = serializers.JSONField(required=False, help_text="Only for GMs and the step's actor.")
    created_at = serializers.DateTimeField(source="row.created_at")

    def to_representation(self, instance: StepView) -> dict[str, Any]:
        data = super().to_representation(instance)
        if instance.params is None:
            data.pop("params", None)
        return data


class FlowActionOut(serializers.Serializer):
    step = serializers.CharField(help_text="The step to send to `/api/flows/{id}/steps/`.")
    label = serializers.CharField(help_text="In the request's language.")
    unavailable = serializers.CharField(
        help_text="Why the step cannot succeed now, in the request's language (empty: it can); posting it anyway "
        f"is refused with `{STEP_UNAVAILABLE.code}`."
    )
    choices = serializers.SerializerMethodField(help_text="Pickers: per param, the values it accepts and their labels.")

    def get_choices(self, action: Any) -> dict[str, list[dict[str, str]]]:
        return {
            name: [{"value": c.value, "label": c.label} for c in options] for name, options in action.choices.items()
        }


class FlowLineOut(serializers.Serializer):
    text = serializers.SerializerMethodField(help_text="In the request's language.")
    gm_only = serializers.BooleanField(help_text="A fact only GMs read (they alone receive such lines).")

    def get_text(self, line: Any) -> str:
        return str(line.text_en if self.context.get("language", "es").startswith("en") else line.text_es)


class FlowOut(serializers.Serializer):
    """A flow as the viewer may see it. ``secret_state`` only for GMs (absent otherwise)."""

    id = serializers.IntegerField(source="flow.pk")
    campaign = serializers.IntegerField(source="flow.campaign_id")
    scene = serializers.IntegerField(source="flow.scene_id")
    kind = serializers.CharField(source="flow.kind")
    procedure = serializers.SerializerMethodField(
        help_text="`<ruleset>:<kind>`: which game's procedure, so `state` and `waiting_for` have its shape."
    )
    status = serializers.ChoiceField(source="flow.status", choices=FlowStatus.choices)
    state = serializers.JSONField(source="flow.state")
    waiting_for = serializers.JSONField(
        source="flow.waiting_for",
        help_text='`{"steps": [{"step", "gm", "users", "label_es", "label_en"}]}`: every step it waits for.',
    )
    waiting = serializers.SerializerMethodField(help_text="What it waits for and from whom, with names.")
    may_act = serializers.BooleanField(help_text="Whether the viewer may take the step it waits for.")
    actions = FlowActionOut(many=True, help_text="Every step the viewer may take now (optional ones included).")
    record = FlowLineOut(source="lines", many=True, help_text="The procedure's record in words, in order.")
    secret_state = serializers.JSONField(required=False, help_text="Only for GMs.")
    rolls = RollOut(many=True, help_text="The flow's rolls the viewer may see.")
    steps = FlowStepOut(many=True)
    opened_by = UserBriefOut(source="flow.opened_by")
    created_at = serializers.DateTimeField(source="flow.created_at")
    updated_at = serializers.DateTimeField(source="flow.updated_at")
    settled_at = serializers.DateTimeField(source="flow.settled_at", allow_null=True)

    def get_procedure(self, view: FlowView) -> str:
        return f"{view.flow.campaign.ruleset}:{view.flow.kind}"

    @extend_schema_field(WaitingOut)
    def get_waiting(self, view: FlowView) -> dict[str, Any]:
        return WaitingOut(
            {
                "step": view.step,
                "label": view.step_label,
                "gms": view.waiting_gms,
                "users": view.waiting_users,
                "names": view.waiting_names,
            }
        ).data

    def to_representation(self, instance: FlowView) -> dict[str, Any]:
        data = super().to_representation(instance)
        if instance.secret_state is None:
            data.pop("secret_state", None)
        return data


for _name, _obj in list(globals().items()):
    if isinstance(_obj, type) and issubclass(_obj, serializers.BaseSerializer) and _name.endswith(("In", "Out")):
        extend_schema_serializer(component_name=_name.removesuffix("In").removesuffix("Out"))(_obj)
