"""Event: the REST API of the answer-by-answer creation with vetoes (same services and policy as the pages).

Routes (to add to ``tintero/api/urls.py``):

- ``characters/<int:character_id>/event-answers/``: GET the answers, POST a new one
  (``{"question": "WHO_AM_I"|"APPEARANCE", "text"}``, or for a pick
  ``{"kind": "NEW_SKILL"|"IMPROVEMENT", "skill", "category", "text"}``)
- ``event-answers/<int:answer_id>/``: GET one answer with its votes
- ``event-answers/<int:answer_id>/vote/`` (``{"kind": "VETO"|"NO_VETO", "reason"}``), ``withdraw/``,
  ``defend/`` (``{"text"}``), ``close/``, ``reformulate/`` (as the POST of a new answer): POST
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import User
from campaigns import policy
from characters.models import Character, EventAnswer
from rulesets.event import creation as flow
from tintero.api.views.base import ApiView, errors


def _actor(request: Request) -> User:
    """The signed-in user (every view here requires one)."""
    if not isinstance(request.user, User):
        raise NotAuthenticated()
    return request.user


class EventVoteOut(serializers.Serializer):
    voter = serializers.IntegerField()
    kind = serializers.CharField()
    reason = serializers.CharField(allow_blank=True)
    cast_at = serializers.CharField()


class EventAnswerOut(serializers.Serializer):
    id = serializers.IntegerField()
    character = serializers.IntegerField()
    author = serializers.IntegerField()
    question = serializers.CharField()
    question_label = serializers.CharField()
    round = serializers.IntegerField(allow_null=True)
    attempt = serializers.IntegerField()
    text = serializers.CharField(allow_blank=True)
    pick_kind = serializers.CharField(allow_null=True)
    pick_skill = serializers.CharField(allow_null=True)
    pick_category = serializers.CharField(allow_null=True)
    status = serializers.CharField(help_text="PENDING (open to veto), ACCEPTED or INVALID (vetoed).")
    vetoes = serializers.IntegerField(help_text="Active vetoes now (or at close).")
    threshold = serializers.IntegerField(help_text="Vetoes that invalidate an answer (2).")
    votes = EventVoteOut(many=True)
    eligible = serializers.ListField(child=serializers.IntegerField())
    defense = serializers.CharField(allow_blank=True)
    warnings = serializers.ListField(child=serializers.CharField())
    refusal = serializers.CharField(allow_blank=True)
    opened_at = serializers.DateTimeField()
    closes_at = serializers.DateTimeField()
    closed_at = serializers.DateTimeField(allow_null=True)
    close_reason = serializers.CharField(allow_null=True)
    due = serializers.BooleanField(help_text="The deadline passed: the window closes with the next step.")

    def to_representation(self, instance: Any) -> Any:
        return super().to_representation(flow.answer_summary(instance))


class EventAnswerIn(serializers.Serializer):
    question = serializers.ChoiceField(choices=["WHO_AM_I", "APPEARANCE"], required=False)
    text = serializers.CharField(required=False, allow_blank=True, max_length=2000, default="")
    kind = serializers.ChoiceField(choices=["NEW_SKILL", "IMPROVEMENT"], required=False)
    skill = serializers.CharField(required=False, max_length=80)
    category = serializers.CharField(required=False, allow_null=True, allow_blank=True, max_length=40)


class EventVoteIn(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["VETO", "NO_VETO"], default="VETO")
    reason = serializers.CharField(required=False, allow_blank=True, max_length=300, default="")


class EventDefenseIn(serializers.Serializer):
    text = serializers.CharField(max_length=2000)


def _character(request: Request, character_id: int) -> Character:
    character = Character.objects.select_related("campaign").filter(pk=character_id).first()
    if character is None or character.campaign.ruleset != "event":
        raise Http404
    viewer = policy.viewer_for(request.user, character.campaign)
    if not policy.may_follow_event_answers(viewer, character):
        raise Http404
    return character


def _answer(request: Request, answer_id: int) -> EventAnswer:
    answer = get_object_or_404(EventAnswer, pk=answer_id)
    _character(request, answer.character_id)
    return answer


class EventAnswerListView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="List a character's Event answers",
        description="Creation answers (and voted progress picks) with their votes: the GMs and the players see them.",
        responses={200: EventAnswerOut(many=True), **errors(401, 404)},
    )
    def get(self, request: Request, character_id: int) -> Response:
        character = _character(request, character_id)
        return self.paginated(flow.answers_of(character), EventAnswerOut)

    @extend_schema(
        summary="Give an Event answer (the character's player)",
        description="`question` + `text` answers Q1/Q2; `kind` + `skill` makes a Q3 pick (or a progress pick of an "
        "approved character). The answer opens a veto window; only one answer is open at a time.",
        request=EventAnswerIn,
        responses={201: EventAnswerOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, character_id: int) -> Response:
        character = _character(request, character_id)
        data = self.parse(EventAnswerIn)
        if data.get("kind"):
            answer = flow.propose_pick(
                actor=_actor(request),
                character=character,
                kind=data["kind"],
                skill=data.get("skill", ""),
                category=data.get("category") or None,
                text=data.get("text", ""),
            )
        elif data.get("question"):
            answer = flow.answer_question(
                actor=_actor(request), character=character, question=data["question"], text=data.get("text", "")
            )
        else:
            raise serializers.ValidationError({"question": [_("Falta «question» (o «kind» y «skill»).")]})
        return self.render(answer, EventAnswerOut, status.HTTP_201_CREATED)


class EventAnswerDetailView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="Retrieve an Event answer", responses={200: EventAnswerOut, **errors(401, 404)})
    def get(self, request: Request, answer_id: int) -> Response:
        return self.render(_answer(request, answer_id), EventAnswerOut)


class EventVoteView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Vote on an Event answer (GMs and the other players)",
        description="`VETO` or `NO_VETO`; a second vote replaces the first. The window closes by itself once "
        "everyone eligible has voted.",
        request=EventVoteIn,
        responses={200: EventAnswerOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, answer_id: int) -> Response:
        data = self.parse(EventVoteIn)
        answer = flow.cast_vote(
            actor=_actor(request), answer=_answer(request, answer_id), kind=data["kind"], reason=data["reason"]
        )
        return self.render(answer, EventAnswerOut)


class EventWithdrawView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Withdraw one's vote on an Event answer",
        request=None,
        responses={200: EventAnswerOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, answer_id: int) -> Response:
        return self.render(
            flow.withdraw_vote(actor=_actor(request), answer=_answer(request, answer_id)), EventAnswerOut
        )


class EventDefendView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Defend one's pending Event answer (its author)",
        request=EventDefenseIn,
        responses={200: EventAnswerOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, answer_id: int) -> Response:
        data = self.parse(EventDefenseIn)
        answer = flow.defend_answer(actor=_actor(request), answer=_answer(request, answer_id), text=data["text"])
        return self.render(answer, EventAnswerOut)


class EventCloseView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Close an Event answer's veto window",
        description="Anyone at the table after the deadline or once everyone voted; a GM at any time. Two or more "
        "active vetoes make the answer invalid; otherwise it is written on the sheet.",
        request=None,
        responses={200: EventAnswerOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, answer_id: int) -> Response:
        return self.render(flow.close_answer(actor=_actor(request), answer=_answer(request, answer_id)), EventAnswerOut)


class EventReformulateView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Answer again after a veto (the author)",
        description="A new attempt at the vetoed question; for a pick, `kind`/`skill` default to the vetoed ones.",
        request=EventAnswerIn,
        responses={201: EventAnswerOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, answer_id: int) -> Response:
        data = self.parse(EventAnswerIn)
        answer = flow.reformulate_answer(
            actor=_actor(request),
            answer=_answer(request, answer_id),
            text=data.get("text", ""),
            kind=data.get("kind"),
            skill=data.get("skill"),
            category=data.get("category"),
        )
        return self.render(answer, EventAnswerOut, status.HTTP_201_CREATED)
