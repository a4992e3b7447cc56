"""Home (campaign lists and my invitations) and 'Novedades' (unread scenes across my campaigns)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from campaigns import selectors
from campaigns.models import Visibility
from campaigns.views.common import page_number, user_of

CAMPAIGNS_PER_PAGE = 25


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    public = selectors.visible_campaigns(request.user).filter(visibility=Visibility.PUBLIC)
    page = Paginator(public, CAMPAIGNS_PER_PAGE).get_page(page_number(request.GET.get("page")))
    context: dict[str, object] = {"public_page": page, "mine": [], "invitations": []}
    if request.user.is_authenticated:
        user = user_of(request)
        context["mine"] = list(selectors.campaigns_of(user))
        context["invitations"] = list(selectors.invitations_for(user))
    return render(request, "campaigns/home.html", context)


@login_required
@require_GET
def unread(request: HttpRequest) -> HttpResponse:
    return render(request, "campaigns/unread.html", {"items": selectors.unread_scenes(user_of(request))})
