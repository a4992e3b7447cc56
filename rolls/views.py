"""Rolls and flows in the thread: the GM's reveal button, the scene's open flows, flow steps (htmx in place).

Every action is a POST that re-renders its own fragment: a roll (``rolls/_roll.html``), a flow
(``rolls/_flow.html``) or the scene's open flows (``rolls/_scene_flows.html``). Refusals (RulesError,
ValidationError, PermissionDenied from the services) are shown inside that fragment, in the request's
language; without htmx the page redirects back with a message. Lookups that fail the policy are 404.

The shaping of rolls and flows for a viewer lives in ``rolls.selectors`` (shared with the API).
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from campaigns import policy
from campaigns import selectors as campaign_selectors
from campaigns.models import Scene
from campaigns.policy import Viewer
from campaigns.views.common import is_htmx, user_of
from rolls import runner
from rolls.models import Flow
from rolls.runner import IdempotencyConflict
from rolls.selectors import flow_for, flow_views, opening_choices, roll_for, scene_flows
from rolls.services import reveal_roll
from rulesets import registry
from systems.errors import RulesError

# Fields of a step or start form that are not the step's params.
_RESERVED = frozenset({"csrfmiddlewaretoken", "idempotency_key", "next"})


def language() -> str:
    return get_language() or "es"


def error_text(error: Exception, lang: str) -> str:
    """A refusal as one sentence, in ``lang``."""
    if isinstance(error, RulesError):
        return error.message(lang)
    if isinstance(error, ValidationError):
        return " ".join(error.messages)
    return str(error) or _("No puedes hacer eso.")


def form_params(data: QueryDict) -> dict[str, Any]:
    """A step or start form's fields as the step's params: strings (lists for repeated names or names
    ending in ``[]``). Handlers validate them (pydantic's lax mode turns "3" into 3)."""
    params: dict[str, Any] = {}
    for key in data:
        if key in _RESERVED:
            continue
        values = data.getlist(key)
        if key.endswith("[]"):
            params[key[:-2]] = values
        else:
            params[key] = values if len(values) > 1 else values[0]
    return params


# --- Reads ----------------------------------------------------------------------------------------


def scene_flows_context(
    scene: Scene, viewer: Viewer, may_write: bool, error: str = "", has_open: bool | None = None
) -> dict[str, Any]:
    """What ``rolls/_scene_flows.html`` needs. The thread page may merge it into its context to render the
    open flows with the page; without it the fragment loads itself with htmx. ``has_open``: False when the
    caller already knows the scene has no open flow (no query then)."""
    return {
        "scene": scene,
        "viewer": viewer,
        "flow_views": flow_views(viewer, scene_flows(scene), language()) if has_open is not False else [],
        "may_start_flows": may_write,
        "start_template": registry.plugin(scene.campaign.ruleset).templates.start or "rolls/_empty.html",
        "openings": opening_choices(scene, viewer) if may_write else {},
        "flows_error": error,
        "new_idempotency_key": uuid.uuid4,  # called once per form as the template renders
    }


def _flow_context(flow: Flow, viewer: Viewer, error: str = "") -> dict[str, Any]:
    return {
        "view": flow_views(viewer, [flow], language())[0],
        "viewer": viewer,
        "flow_error": error,
        "new_idempotency_key": uuid.uuid4,
    }


def _back(request: HttpRequest, scene: Scene, error: str | None, done: str) -> HttpResponse:
    if error:
        messages.error(request, error)
    else:
        messages.success(request, done)
    return redirect(scene.get_absolute_url())


@require_GET
def scene_flows_fragment(request: HttpRequest, pk: int) -> HttpResponse:
    """The scene's open flows, listed above the composer (also the live region's source)."""
    scene, viewer, readers, writers = campaign_selectors.scene_for(request.user, pk)
    may_write = policy.may_write_scene(viewer, scene, readers, writers)
    return render(request, "rolls/_scene_flows.html", scene_flows_context(scene, viewer, may_write))


@require_GET
def flow_fragment(request: HttpRequest, pk: int) -> HttpResponse:
    flow, _scene, viewer, _readers, _writers = flow_for(request.user, pk)
    return render(request, "rolls/_flow.html", _flow_context(flow, viewer))


@require_GET
def roll_fragment(request: HttpRequest, pk: int) -> HttpResponse:
    view, viewer = roll_for(request.user, pk, language())
    return render(request, "rolls/_roll.html", {"view": view, "viewer": viewer})


# --- Actions --------------------------------------------------------------------------------------


@login_required
@require_POST
def roll_reveal(request: HttpRequest, pk: int) -> HttpResponse:
    """A GM reveals a secret roll (``include_secret``: its secret difficulty too). Players get 403."""
    view, viewer = roll_for(request.user, pk, language())
    error = None
    try:
        reveal_roll(actor=user_of(request), roll=view.roll, include_secret=request.POST.get("include_secret") == "1")
    except (ValidationError, PermissionDenied, RulesError) as exc:
        error = error_text(exc, language())
    if not is_htmx(request):
        if error:
            messages.error(request, error)
        else:
            messages.success(request, _("Tirada revelada."))
        return redirect(view.roll.post) if view.roll.post_id else redirect(view.roll.scene.get_absolute_url())
    view, viewer = roll_for(request.user, pk, language())
    return render(request, "rolls/_roll.html", {"view": view, "viewer": viewer, "roll_error": error})


@login_required
@require_POST
def flow_start(request: HttpRequest, pk: int, kind: str) -> HttpResponse:
    """Open a flow of the campaign's ruleset in this scene; re-render the scene's open flows."""
    scene, viewer, readers, writers = campaign_selectors.scene_for(request.user, pk)
    error = None
    try:
        runner.start_procedure(actor=user_of(request), scene=scene, kind=kind, params=form_params(request.POST))
    except (ValidationError, PermissionDenied, RulesError) as exc:
        error = error_text(exc, language())
    if not is_htmx(request):
        return _back(request, scene, error, _("Procedimiento abierto."))
    may_write = policy.may_write_scene(viewer, scene, readers, writers)
    context = scene_flows_context(scene, viewer, may_write, error or "")
    return render(request, "rolls/_scene_flows.html", context)


@login_required
@require_POST
def flow_step(request: HttpRequest, pk: int, step: str) -> HttpResponse:
    """Take one step. The form's hidden ``idempotency_key`` (a uuid made when it rendered) makes a double
    submit one step; the flow fragment comes back either way."""
    flow, scene, viewer, _readers, _writers = flow_for(request.user, pk)
    error = None
    try:
        flow = runner.take_step(
            actor=user_of(request),
            flow=flow,
            step=step,
            params=form_params(request.POST),
            idempotency_key=request.POST.get("idempotency_key", "").strip(),
        )
    except (ValidationError, PermissionDenied, RulesError, IdempotencyConflict) as exc:
        error = error_text(exc, language())
    if not is_htmx(request):
        return _back(request, scene, error, _("Hecho."))
    flow, _scene, viewer, _readers, _writers = flow_for(request.user, pk)
    return render(request, "rolls/_flow.html", _flow_context(flow, viewer, error or ""))
