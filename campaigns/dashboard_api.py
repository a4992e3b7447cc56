"""``GET /api/dashboard/``: the GM dashboard as JSON, the same panels the page shows.

One item per campaign the user runs (paginated like every list), each with every panel. Read through
``campaigns.dashboard``: a constant number of queries per page whatever the number of campaigns.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import get_language
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns import dashboard as selectors
from rolls.serializers import FlowOut, RollOut
from tintero.api.serializers import AspectOut, CharacterBriefOut, UserBriefOut
from tintero.api.views.base import ApiView, errors


class _SceneBriefOut(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()


class _CampaignBriefOut(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    ruleset = serializers.CharField()
    status = serializers.CharField()


class OwedPostOut(serializers.Serializer):
    scene = _SceneBriefOut()
    user = UserBriefOut()
    last_post_at = serializers.DateTimeField(allow_null=True, help_text="Null: never posted in this scene.")
    days = serializers.IntegerField(allow_null=True, help_text="Whole days since that post; null: never.")


class VetoAnswerOut(serializers.Serializer):
    id = serializers.IntegerField(source="answer.pk")
    character = CharacterBriefOut()
    author = UserBriefOut(source="answer.author")
    question = serializers.CharField(source="answer.question")
    vetoes = serializers.IntegerField(help_text="Active vetoes so far.")
    closes_at = serializers.DateTimeField(source="answer.closes_at")


class PendingCharacterOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    owner = UserBriefOut(allow_null=True)
    submitted_at = serializers.DateTimeField(allow_null=True)


class DashboardJoinRequestOut(serializers.Serializer):
    id = serializers.IntegerField()
    user = UserBriefOut()
    role = serializers.CharField()
    message = serializers.CharField()
    created_at = serializers.DateTimeField()


class DashboardPoolsOut(serializers.Serializer):
    public = serializers.BooleanField(help_text="Whether players see these pools too.")
    pools = serializers.DictField(child=serializers.IntegerField())
    state = serializers.JSONField()


class NpcOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.CharField()
    sheet = serializers.JSONField(help_text="Change its tracks with POST /api/characters/<id>/operations/<op>/.")


class SceneAspectsOut(serializers.Serializer):
    scene = _SceneBriefOut()
    aspects = AspectOut(many=True)


class DashboardCampaignOut(serializers.Serializer):
    """One campaign the viewer runs, with every panel of the dashboard."""

    campaign = _CampaignBriefOut()
    owed_posts = OwedPostOut(many=True, source="owed", help_text="Longest wait first.")
    flows = FlowOut(many=True, help_text="Open flows, with what each waits for and from whom.")
    event_answers = VetoAnswerOut(many=True, source="answers", help_text="Event answers open to the veto.")
    pending_characters = PendingCharacterOut(many=True, source="characters")
    join_requests = DashboardJoinRequestOut(many=True)
    pools = DashboardPoolsOut()
    npcs = NpcOut(many=True)
    secret_rolls = RollOut(many=True, help_text="GM-only rolls not yet revealed, newest first.")
    aspects = SceneAspectsOut(many=True, source="aspect_scenes", help_text="Aspects of the open scenes.")


for _cls in (OwedPostOut, VetoAnswerOut, PendingCharacterOut, DashboardPoolsOut, NpcOut, SceneAspectsOut):
    extend_schema_serializer(component_name="Dashboard" + _cls.__name__.removesuffix("Out"))(_cls)
extend_schema_serializer(component_name="DashboardCampaign")(DashboardCampaignOut)
extend_schema_serializer(component_name="DashboardJoinRequest")(DashboardJoinRequestOut)
extend_schema_serializer(component_name="DashboardScene")(_SceneBriefOut)
extend_schema_serializer(component_name="DashboardCampaignBrief")(_CampaignBriefOut)


class DashboardView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="The GM dashboard",
        description="Every campaign the viewer runs as GM (most recently active first), each with who owes a "
        "post, open flows, Event answers under veto, characters awaiting approval, join requests, pools, NPCs, "
        "secret rolls not yet revealed and the aspects of open scenes. Empty for a user who runs no campaign.",
        responses={200: DashboardCampaignOut(many=True), **errors(401)},
    )
    def get(self, request: Request) -> Response:
        language = get_language() or "es"
        campaigns = selectors.gm_campaigns(request.user)
        page: list[Any] = self.paginate_queryset(campaigns) or []  # type: ignore[arg-type]
        entries = selectors.dashboard(request.user, page, language=language)  # type: ignore[arg-type]
        context = {**self.get_serializer_context(), "language": language}
        data = DashboardCampaignOut(entries, many=True, context=context).data
        return self.get_paginated_response(data)


__all__ = ["DashboardView"]
