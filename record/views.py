"""Pages of the record: search."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from campaigns.views.common import page_number
from record.forms import SearchForm
from record.selectors import search_choices, search_posts


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
