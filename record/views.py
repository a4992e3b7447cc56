"""Pages of the record: search, the roll log."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from campaigns import selectors as campaign_selectors
from campaigns.models import Campaign
from campaigns.views.common import page_number
from record import selectors
from record.forms import SearchForm
from record.rollchain import GENESIS
from record.selectors import LinkView, roll_log_document, search_choices, search_posts


def _campaign_param(request: HttpRequest) -> int | None:
    try:
        return int(request.GET.get("campaign") or "") or None
    except ValueError:
        return None


@require_GET
def search(request: HttpRequest) -> HttpResponse:
    """Search the posts of every campaign the viewer may read; each result links to the post's permalink."""
    choices = search_choices(request.user, _campaign_param(request))
    form = SearchForm(
        request.GET if "q" in request.GET else None,
        campaigns=choices.campaigns,
        scenes=choices.scenes,
        characters=choices.characters,
    )
    results = None
    if form.is_bound and form.is_valid():
        results = search_posts(request.user, form.criteria(), page_number(request.GET.get("page")))
    query = request.GET.copy()
    query.pop("page", None)
    context = {"form": form, "results": results, "query": query.urlencode()}
    return render(request, "record/search.html", context)


def _roll_log_json(campaign: Campaign, links: list[LinkView]) -> JsonResponse:
    response = JsonResponse(roll_log_document(campaign, links), json_dumps_params={"ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="tintero-tiradas-{campaign.pk}.json"'
    return response


@require_GET
def roll_log(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's roll chain, for anyone who may read the campaign (``?format=json``: the download)."""
    campaign, viewer = campaign_selectors.campaign_for(request.user, pk)
    links = selectors.roll_log(viewer, campaign)
    if request.GET.get("format") == "json":
        return _roll_log_json(campaign, links)
    language = get_language() or "es"
    rows = [(link, _roll_summary(link, language)) for link in links]
    context = {"campaign": campaign, "rows": rows, "head": links[-1].hash if links else GENESIS}
    return render(request, "record/roll_log.html", context)


def _roll_summary(link: LinkView, language: str) -> str:
    roll = link.roll
    if roll is None:
        return ""
    return roll.summary_en if language.startswith("en") and roll.summary_en else roll.summary_es
