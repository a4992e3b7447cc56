"""Event: the pages of the answer-by-answer creation (and voted progress picks) with the table's vetoes.

Each step is a small POST form; with htmx it re-renders the answers fragment in place (``#event-answers``),
without JS it redirects back to the page with a message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from campaigns import policy
from campaigns.models import Membership
from campaigns.policy import Viewer
from campaigns.views.common import is_htmx, user_of
from characters.models import Character, CharacterStatus, EventAnswer
from characters.services import campaign_settings
from rulesets.event import creation as flow
from rulesets.event.sheet import load_sheet, settings_of
from systems.errors import RulesError


def _character_for(request: HttpRequest, pk: int) -> tuple[Character, Viewer]:
    character = get_object_or_404(Character.objects.select_related("campaign", "owner"), pk=pk)
    viewer = policy.viewer_for(request.user, character.campaign)
    if not policy.may_follow_event_answers(viewer, character) or character.campaign.ruleset != "event":
        raise Http404
    return character, viewer


def _language(request: HttpRequest) -> str:
    return getattr(request, "LANGUAGE_CODE", "es") or "es"


def answers_context(character: Character, viewer: Viewer, error: str | None = None) -> dict[str, Any]:
    settings = settings_of(campaign_settings(character.campaign))
    sheet = load_sheet(character.sheet or {}, settings)
    names = dict(
        Membership.objects.filter(campaign_id=character.campaign_id)
        .select_related("user")
        .values_list("user_id", "user__display_name")
    )
    rows: list[dict[str, Any]] = []
    for answer in flow.answers_of(character):
        mine = next((v for v in answer.votes if v["voter"] == viewer.user_id), None)
        rows.append(
            {
                "answer": answer,
                "summary": flow.answer_summary(answer),
                "my_vote": mine["kind"] if mine else None,
                "may_vote": answer.status == EventAnswer.Status.PENDING
                and not flow.is_due(answer)
                and viewer.user_id in answer.eligible
                and policy.may_vote_on_event_answer(viewer, character),
                "is_author": answer.author_id == viewer.user_id,
                "votes": [{**v, "name": names.get(v["voter"]) or f"#{v['voter']}"} for v in answer.votes],
            }
        )
    latest_invalid = {}
    for row in rows:  # only the latest vetoed attempt of each question/round can be reformulated
        key = (row["answer"].question, row["answer"].round)
        if row["answer"].status == EventAnswer.Status.INVALID:
            latest_invalid[key] = row
        else:
            latest_invalid.pop(key, None)
    for row in latest_invalid.values():
        row["may_reformulate"] = row["is_author"]
    may_answer = policy.may_give_event_answer(viewer, character)
    return {
        "character": character,
        "campaign": character.campaign,
        "viewer": viewer,
        "rows": rows,
        "step": flow.next_step(character),
        "may_answer": may_answer,
        "may_close_early": policy.may_close_event_answer_early(viewer),
        "sheet": sheet,
        "settings": settings,
        "picks": sheet.creation_picks,
        "max_picks": settings.max_picks,
        "progress_vote": character.status == CharacterStatus.APPROVED
        and settings.optional.progress.enabled
        and settings.optional.progress.subject_to_veto
        and sheet.progress_window is not None
        and not sheet.progress_used,
        "categories": settings.house_rules.skill_categories,
        "error": error,
    }


@login_required
@require_GET
def event_answers(request: HttpRequest, pk: int) -> HttpResponse:
    character, viewer = _character_for(request, pk)
    return render(request, "event/answers.html", answers_context(character, viewer))


def _step(request: HttpRequest, character: Character, viewer: Viewer, run: Callable[[], Any]) -> HttpResponse:
    error = None
    try:
        run()
    except RulesError as exc:
        error = exc.message(_language(request))
    except ValidationError as exc:
        error = " ".join(exc.messages)
    if is_htmx(request):
        character.refresh_from_db()
        return render(request, "event/_answers.html", answers_context(character, viewer, error))
    if error:
        messages.error(request, error)
    else:
        messages.success(request, _("Hecho."))
    return redirect(reverse("event:answers", args=[character.pk]))


@login_required
@require_POST
def event_answer_question(request: HttpRequest, pk: int) -> HttpResponse:
    character, viewer = _character_for(request, pk)
    return _step(
        request,
        character,
        viewer,
        lambda: flow.answer_question(
            actor=user_of(request),
            character=character,
            question=request.POST.get("question", ""),
            text=request.POST.get("text", ""),
        ),
    )


@login_required
@require_POST
def event_propose_pick(request: HttpRequest, pk: int) -> HttpResponse:
    character, viewer = _character_for(request, pk)
    return _step(
        request,
        character,
        viewer,
        lambda: flow.propose_pick(
            actor=user_of(request),
            character=character,
            kind=request.POST.get("kind", ""),
            skill=request.POST.get("skill", ""),
            category=request.POST.get("category") or None,
            text=request.POST.get("text", ""),
        ),
    )


def _answer_for(request: HttpRequest, pk: int) -> tuple[EventAnswer, Character, Viewer]:
    answer = get_object_or_404(EventAnswer.objects.select_related("character"), pk=pk)
    character, viewer = _character_for(request, answer.character_id)
    return answer, character, viewer


@login_required
@require_POST
def event_vote(request: HttpRequest, pk: int) -> HttpResponse:
    answer, character, viewer = _answer_for(request, pk)
    return _step(
        request,
        character,
        viewer,
        lambda: flow.cast_vote(
            actor=user_of(request),
            answer=answer,
            kind=request.POST.get("kind", "VETO"),
            reason=request.POST.get("reason", ""),
        ),
    )


@login_required
@require_POST
def event_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    answer, character, viewer = _answer_for(request, pk)
    return _step(request, character, viewer, lambda: flow.withdraw_vote(actor=user_of(request), answer=answer))


@login_required
@require_POST
def event_defend(request: HttpRequest, pk: int) -> HttpResponse:
    answer, character, viewer = _answer_for(request, pk)
    return _step(
        request,
        character,
        viewer,
        lambda: flow.defend_answer(actor=user_of(request), answer=answer, text=request.POST.get("text", "")),
    )


@login_required
@require_POST
def event_close(request: HttpRequest, pk: int) -> HttpResponse:
    answer, character, viewer = _answer_for(request, pk)
    return _step(request, character, viewer, lambda: flow.close_answer(actor=user_of(request), answer=answer))


@login_required
@require_POST
def event_reformulate(request: HttpRequest, pk: int) -> HttpResponse:
    answer, character, viewer = _answer_for(request, pk)
    return _step(
        request,
        character,
        viewer,
        lambda: flow.reformulate_answer(
            actor=user_of(request),
            answer=answer,
            text=request.POST.get("text", ""),
            kind=request.POST.get("kind") or None,
            skill=request.POST.get("skill") or None,
            category=request.POST.get("category") or None,
        ),
    )
