"""Home (campaign lists and my invitations) and 'Novedades' (unread scenes across my campaigns)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from campaigns import selectors
from campaigns.forms import DirectoryForm
from campaigns.views.common import page_number, user_of

CAMPAIGNS_PER_PAGE = 25


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The user's own campaigns and invitations, then the directory of public campaigns (not theirs)."""
    directory_form = DirectoryForm(request.GET or None)
    public = selectors.directory(request.user, directory_form.filters())
    page = Paginator(public, CAMPAIGNS_PER_PAGE).get_page(page_number(request.GET.get("page")))
    query = request.GET.copy()
    query.pop("page", None)
    context: dict[str, object] = {
        "public_page": page,
        "directory_form": directory_form,
        "filter_query": query.urlencode(),
        "mine": [],
        "invitations": [],
    }
    if request.user.is_authenticated:
        user = user_of(request)
        context["mine"] = list(selectors.campaigns_of(user))
        context["invitations"] = list(selectors.invitations_for(user))
    return render(request, "campaigns/home.html", context)


@login_required
@require_GET
def unread(request: HttpRequest) -> HttpResponse:
    return render(request, "campaigns/unread.html", {"items": selectors.unread_scenes(user_of(request))})


@require_GET
def unread_count(request: HttpRequest) -> HttpResponse:
    """The header's count of unread posts across the user's campaigns (fetched by the header, refreshed
    when a live event says a post arrived, and every minute on pages without a campaign socket)."""
    count = (
        sum(item.unread_count for item in selectors.unread_scenes(user_of(request)))
        if request.user.is_authenticated
        else 0
    )
    response = render(request, "campaigns/_unread_count.html", {"count": count})
    response["Cache-Control"] = "no-store"
    return response
