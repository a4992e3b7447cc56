"""The GM dashboard: every campaign the user runs on one page, each panel an htmx fragment of its own.

``/dashboard/`` renders every panel of every campaign; ``/dashboard/<panel>/?campaign=<id>`` renders one
panel of one campaign (what a panel fetches when a live event says it changed, or after an action in it).
Reads go through ``campaigns.dashboard`` (a constant number of queries per panel, whatever the number of
campaigns); every button posts to the view that already does that action elsewhere.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from campaigns import dashboard as selectors
from campaigns import policy
from campaigns import selectors as campaign_selectors
from campaigns.dashboard import CampaignDashboard
from campaigns.forms import AspectForm
from campaigns.views.common import user_of
from campaigns.waiting import player_waiting
from characters.views import pools_template, sheet_context
from rulesets import registry


def _language() -> str:
    return get_language() or "es"


def _pools_html(request: HttpRequest, entry: CampaignDashboard) -> str:
    """The campaign pools fragment with the GM's controls, as the campaign page shows it."""
    assert entry.pools is not None
    campaign = entry.campaign
    context = {
        "campaign": campaign,
        "viewer": entry.viewer,
        "state": entry.pools.state,
        "pools": entry.pools.pools,
        "pools_visible": True,
        "gm_ops": {op.key for op in registry.rules(campaign.ruleset).operations},
        "operation_error": None,
        "pools_template": pools_template(campaign.ruleset),
    }
    return render_to_string("characters/_pools.html", context, request=request)


def _decorate(request: HttpRequest, entries: list[CampaignDashboard], panels: set[str]) -> None:
    """Attach what the templates render from other apps' fragments: pools, NPC sheets, aspect forms."""
    for entry in entries:
        if "pools" in panels and entry.pools is not None:
            # A ruleset without campaign pools (generic) has nothing to show or to control here.
            has_template = pools_template(entry.campaign.ruleset) != "characters/_pools_default.html"
            entry.has_pools = has_template or bool(entry.pools.pools)  # type: ignore[attr-defined]
            entry.pools_html = _pools_html(request, entry)  # type: ignore[attr-defined]
        if "npcs" in panels:
            entry.npc_sheets = [  # type: ignore[attr-defined]
                (
                    npc,
                    render_to_string(
                        "characters/_sheet.html",
                        sheet_context(npc, entry.viewer, campaign=entry.campaign),
                        request=request,
                    ),
                )
                for npc in entry.npcs
            ]
        if "aspects" in panels:
            entry.aspect_blocks = [  # type: ignore[attr-defined]
                (block.scene, block.aspects, AspectForm(auto_id=f"id_dash{block.scene.pk}_%s"))
                for block in entry.aspect_scenes
            ]


def _context(entries: list[CampaignDashboard]) -> dict[str, Any]:
    return {"entries": entries, "new_idempotency_key": uuid.uuid4}


@login_required
@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    """What waits for the user: a summary first, then what waits for them as a player (procedures, whispers,
    scenes where it is their turn), then every campaign they run with all its panels."""
    user = user_of(request)
    campaigns = selectors.gm_campaigns(user)
    entries = selectors.dashboard(user, campaigns, language=_language())
    _decorate(request, entries, set(selectors.PANELS))
    context = _context(entries)
    context["player"] = player_waiting(user, _language())
    context["gm_pending"] = sum(entry.pending_count for entry in entries)
    return render(request, "campaigns/dashboard.html", context)


@login_required
@require_GET
def dashboard_panel(request: HttpRequest, panel: str) -> HttpResponse:
    """One panel of one campaign (``?campaign=<id>``): 404 when the campaign is hidden, 403 for non-GMs."""
    if panel not in selectors.PANELS:
        raise Http404
    try:
        campaign_id = int(request.GET.get("campaign", ""))
    except ValueError:
        raise Http404 from None
    campaign, viewer = campaign_selectors.campaign_for(request.user, campaign_id)
    if not policy.may_manage_campaign(viewer):
        raise PermissionDenied(_("Solo un máster de la partida ve su panel."))
    user = user_of(request)
    entries = selectors.dashboard(user, [campaign], panels=[panel], language=_language())
    _decorate(request, entries, {panel})
    context = _context(entries)
    context["entry"] = entries[0]
    return render(request, f"campaigns/dashboard/_{panel}.html", context)
