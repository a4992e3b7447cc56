"""Scenes: the thread page, GM scene management and scene aspects (htmx in place)."""

from __future__ import annotations

import time

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaigns import policy, selectors, services, thread_cache
from campaigns.forms import AspectForm, PostForm, SceneForm, add_service_errors
from campaigns.models import Membership, Scene, SceneAspect, SceneStatus, Voice
from campaigns.policy import Viewer
from campaigns.quoting import quotable, quote_markdown
from campaigns.views.common import decorate_posts, flash_validation_error, is_htmx, page_number, user_of
from characters.models import CharacterStatus
from characters.selectors import scene_panel
from characters.services import campaign_settings
from notifications.selectors import composer_initial
from rolls.views import scene_flows_context
from rulesets import registry


def composer_form(
    viewer: Viewer, scene: Scene, data: object = None, memberships: list[Membership] | None = None
) -> PostForm:
    """The composer for this viewer: the characters they may speak as and the members they may whisper to."""
    characters = [
        c
        for c in selectors.load_campaign_characters(scene.campaign)
        if policy.may_post_with_voice(viewer, Voice.CHARACTER, c) and c.status != CharacterStatus.RETIRED
    ]
    if memberships is None:
        memberships = list(selectors.members(scene.campaign))
    # A roll the GM asked of one of the viewer's characters: the empty composer comes pre-filled to answer it.
    roll_request, initial = composer_initial(viewer, scene) if data is None else (None, {})
    form = PostForm(
        data or None,
        initial=initial,
        characters=characters,
        memberships=memberships,
        powers=policy.composer_powers(viewer),
        roll_powers=policy.roll_powers(viewer),
        user_id=viewer.user_id,
        ruleset=scene.campaign.ruleset,
        rules_settings=campaign_settings(scene.campaign),
    )
    form.roll_request = roll_request  # type: ignore[attr-defined]
    return form


def thread_context(
    request: HttpRequest,
    scene: Scene,
    viewer: Viewer,
    may_write: bool,
    page_no: int,
    form: PostForm | None = None,
) -> dict[str, object]:
    """Everything the thread page shows (a constant number of queries, whatever the thread's length)."""
    # The read marker came with the scene (selectors.scene_for): a post after it is unread.
    last_read = getattr(scene, "viewer_last_read", None)
    # A writer's composer lists the members; the same list names the page's whispers' recipients.
    memberships = list(selectors.members(scene.campaign)) if may_write and form is None else None
    known_users = {m.user_id: m.user for m in memberships} if memberships else None
    page = selectors.thread_page(viewer, scene, page_no, known_users=known_users)
    decorate_posts(viewer, page.posts, last_read_id=last_read, may_write=may_write)
    if page.posts and request.user.is_authenticated:
        # Viewing a page is reading it: the marker moves up to the last post shown (never back).
        services.mark_scene_read(
            user=user_of(request), scene=scene, up_to_post_id=max(p.pk for p in page.posts), last_read=last_read
        )
    may_manage = policy.may_manage_campaign(viewer)
    plugin = registry.plugin(scene.campaign.ruleset)
    if may_write and form is None:
        form = composer_form(viewer, scene, memberships=memberships)
    return {
        "scene": scene,
        "campaign": scene.campaign,
        "viewer": viewer,
        "page": page,
        "may_manage": may_manage,
        "may_write": may_write,
        "plugin": plugin,
        "aspects": list(selectors.scene_aspects(viewer, scene)) if plugin.scene_aspects else [],
        "scene_panel_template": plugin.templates.scene_panel,
        "panel": scene_panel(scene, viewer) if plugin.templates.scene_panel else None,
        "form": form if may_write else None,
        "aspect_form": AspectForm() if may_manage else None,
        # The scene's open flows render with the page (what each waits for, and from whom).
        **scene_flows_context(scene, viewer, may_write, has_open=getattr(scene, "has_open_flows", None)),
    }


@require_GET
def scene_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The thread: 25 posts a page, aspects, and the composer when the viewer may write. A view that repeats
    one this process already rendered is answered from the kept page (campaigns.thread_cache)."""
    read_at = time.time()
    scene, viewer, reader_ids, writer_ids = selectors.scene_for(request.user, pk, for_thread=True)
    may_write = policy.may_write_scene(viewer, scene, reader_ids, writer_ids)
    key = thread_cache.page_key(request, scene, viewer, may_write)
    kept = thread_cache.kept_page(key)
    if kept is not None:
        return thread_cache.respond(request, kept, read_at=read_at)
    form = _composer_with_quote(request, viewer, scene) if may_write else None
    context = thread_context(request, scene, viewer, may_write, page_number(request.GET.get("page")), form)
    context["builder_inline"] = request.GET.get("builder") == "1"  # the no-JavaScript way to the builder
    return thread_cache.render_thread_page(request, "campaigns/scene.html", context, key=key, read_at=read_at)


def _composer_with_quote(request: HttpRequest, viewer: Viewer, scene: Scene) -> PostForm | None:
    """``?quote=<post>`` (the quote link without JavaScript): the composer starts with that post quoted,
    if this viewer may read it; otherwise the composer starts empty."""
    quoted = request.GET.get("quote", "")
    if not quoted.isdigit() or len(quoted) > 18:
        return None
    try:
        post, _scene, _viewer = selectors.post_for(request.user, int(quoted))
    except Http404:
        return None
    if not quotable(post):
        return None
    form = composer_form(viewer, scene)
    form.initial["body"] = quote_markdown(post, request.build_absolute_uri(post.get_absolute_url()))
    return form


@login_required
@require_GET
def roll_builder(request: HttpRequest, pk: int) -> HttpResponse:
    """The composer's ruleset roll builder for this viewer, fetched when the writer opens it: the thread
    page does not render it on every view."""
    scene, viewer, reader_ids, writer_ids = selectors.scene_for(request.user, pk)
    if not policy.may_write_scene(viewer, scene, reader_ids, writer_ids):
        raise PermissionDenied(_("No puedes escribir en esta escena."))
    form = composer_form(viewer, scene)
    if form.builder is None:
        return HttpResponse("")
    return render(request, "campaigns/_roll_builder.html", {"form": form, "scene": scene, "viewer": viewer})


@login_required
@require_GET
def scene_first_unread(request: HttpRequest, pk: int) -> HttpResponse:
    """Jump to the first post of the scene this user has not read (or to its last page)."""
    scene, viewer, _readers, _writers = selectors.scene_for(request.user, pk)
    post_id = selectors.first_unread_post_id(viewer, scene)
    if post_id is None:
        page = selectors.thread_page(viewer, scene, 1).num_pages
        return redirect(f"{scene.get_absolute_url()}?page={page}")
    return redirect("campaigns:post", post_id)


def _managed_scene(request: HttpRequest, pk: int) -> tuple[Scene, Viewer, list[int], list[int]]:
    scene, viewer, reader_ids, writer_ids = selectors.scene_for(request.user, pk)
    if not policy.may_manage_campaign(viewer):
        raise PermissionDenied(_("Solo un máster puede gestionar escenas."))
    return scene, viewer, reader_ids, writer_ids


def _scene_service_kwargs(form: SceneForm) -> dict[str, object]:
    data = dict(form.cleaned_data)
    if "access" in data:
        data["reader_ids"] = data.pop("readers")
        data["writer_ids"] = data.pop("writers")
    return data


_SCENE_ERROR_ALIASES = {"reader_ids": "readers", "writer_ids": "writers"}


@login_required
@require_http_methods(["GET", "POST"])
def scene_create(request: HttpRequest, pk: int) -> HttpResponse:
    campaign, viewer = selectors.campaign_for(request.user, pk)
    if not policy.may_manage_campaign(viewer):
        raise PermissionDenied(_("Solo un máster puede crear escenas."))
    form = SceneForm(request.POST or None, memberships=list(selectors.members(campaign)))
    if request.method == "POST" and form.is_valid():
        try:
            scene = services.create_scene(actor=user_of(request), campaign=campaign, **_scene_service_kwargs(form))
        except ValidationError as error:
            add_service_errors(form, error, _SCENE_ERROR_ALIASES)
        else:
            messages.success(request, _("Escena creada."))
            return redirect(scene)
    return render(request, "campaigns/scene_form.html", {"form": form, "campaign": campaign, "scene": None})


@login_required
@require_http_methods(["GET", "POST"])
def scene_edit(request: HttpRequest, pk: int) -> HttpResponse:
    scene, _viewer, _readers, _writers = _managed_scene(request, pk)
    reader_ids, writer_ids = selectors.scene_lists(scene)
    campaign = scene.campaign
    initial = {
        "title": scene.title,
        "description": scene.description,
        "access": scene.access,
        "readers": reader_ids,
        "writers": writer_ids,
    }
    form = SceneForm(
        request.POST or None,
        initial=initial,
        memberships=list(selectors.members(campaign)),
        offtopic=scene.is_offtopic,
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.update_scene(actor=user_of(request), scene=scene, **_scene_service_kwargs(form))  # type: ignore[arg-type]
        except ValidationError as error:
            add_service_errors(form, error, _SCENE_ERROR_ALIASES)
        else:
            messages.success(request, _("Escena guardada."))
            return redirect(scene)
    return render(request, "campaigns/scene_form.html", {"form": form, "campaign": campaign, "scene": scene})


@login_required
@require_POST
def scene_status(request: HttpRequest, pk: int) -> HttpResponse:
    scene, _viewer, _readers, _writers = _managed_scene(request, pk)
    status = request.POST.get("status", "")
    try:
        services.set_scene_status(actor=user_of(request), scene=scene, status=status)
    except ValidationError as error:
        flash_validation_error(request, error)
    else:
        if status == SceneStatus.CLOSED:
            messages.info(request, _("Escena cerrada: los jugadores ya no pueden escribir."))
        else:
            messages.success(request, _("Escena reabierta."))
    return redirect(scene)


@login_required
@require_POST
def scene_move(request: HttpRequest, pk: int) -> HttpResponse:
    """Move a scene one place up or down in its campaign's list."""
    scene, viewer, _readers, _writers = _managed_scene(request, pk)
    ids = list(selectors.readable_scenes(viewer).values_list("id", flat=True))  # a GM reads every scene
    index = ids.index(scene.pk)
    target = index - 1 if request.POST.get("direction") == "up" else index + 1
    if 0 <= target < len(ids):
        ids[index], ids[target] = ids[target], ids[index]
        services.reorder_scenes(actor=user_of(request), campaign=scene.campaign, scene_ids=ids)
    return redirect(f"{scene.campaign.get_absolute_url()}#scenes")


# --- Aspects --------------------------------------------------------------------------------------


def _aspects_response(
    request: HttpRequest, scene: Scene, viewer: Viewer, form: AspectForm | None = None
) -> HttpResponse:
    context = {
        "scene": scene,
        "aspects": list(selectors.scene_aspects(viewer, scene)),
        "may_manage": True,
        "aspect_form": form or AspectForm(),
    }
    # 200 even with errors: htmx swaps only successful responses, and the errors must show in place.
    return render(request, "campaigns/_aspects.html", context)


def _managed_aspect(request: HttpRequest, pk: int, aspect_id: int) -> tuple[SceneAspect, Scene, Viewer]:
    scene, viewer, _readers, _writers = selectors.scene_for(request.user, pk)
    aspect = selectors.scene_aspects(viewer, scene).filter(pk=aspect_id).first()
    if aspect is None:
        raise Http404  # a hidden aspect does not exist for a player
    if not policy.may_manage_campaign(viewer):
        raise PermissionDenied(_("Solo un máster puede editar aspectos de escena."))
    aspect.scene = scene
    return aspect, scene, viewer


@login_required
@require_POST
def aspect_add(request: HttpRequest, pk: int) -> HttpResponse:
    scene, viewer, _readers, _writers = _managed_scene(request, pk)
    form = AspectForm(request.POST)
    if form.is_valid():
        try:
            services.add_scene_aspect(actor=user_of(request), scene=scene, **form.cleaned_data)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            if is_htmx(request):
                return _aspects_response(request, scene, viewer)
            return redirect(f"{scene.get_absolute_url()}#aspects")
    if is_htmx(request):
        return _aspects_response(request, scene, viewer, form)
    return render(request, "campaigns/aspect_form.html", {"scene": scene, "form": form, "aspect": None}, status=400)


@login_required
@require_http_methods(["GET", "POST"])
def aspect_edit(request: HttpRequest, pk: int, aspect_id: int) -> HttpResponse:
    aspect, scene, _viewer = _managed_aspect(request, pk, aspect_id)
    initial = {"text": aspect.text, "hidden": aspect.hidden, "free_invocations": aspect.free_invocations}
    form = AspectForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            services.update_scene_aspect(actor=user_of(request), aspect=aspect, **form.cleaned_data)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            return redirect(f"{scene.get_absolute_url()}#aspects")
    return render(request, "campaigns/aspect_form.html", {"scene": scene, "form": form, "aspect": aspect})


@login_required
@require_POST
def aspect_delete(request: HttpRequest, pk: int, aspect_id: int) -> HttpResponse:
    aspect, scene, viewer = _managed_aspect(request, pk, aspect_id)
    services.delete_scene_aspect(actor=user_of(request), aspect=aspect)
    if is_htmx(request):
        return _aspects_response(request, scene, viewer)
    return redirect(f"{scene.get_absolute_url()}#aspects")


@login_required
@require_POST
def aspect_invocations(request: HttpRequest, pk: int, aspect_id: int) -> HttpResponse:
    """One more or one fewer free invocation; htmx swaps the aspect in place."""
    aspect, scene, _viewer = _managed_aspect(request, pk, aspect_id)
    delta = 1 if request.POST.get("delta") == "+1" else -1
    try:
        aspect = services.update_scene_aspect(
            actor=user_of(request), aspect=aspect, free_invocations=aspect.free_invocations + delta
        )
    except ValidationError as error:
        if not is_htmx(request):
            flash_validation_error(request, error)
    if is_htmx(request):
        return render(request, "campaigns/_aspect.html", {"aspect": aspect, "may_manage": True})
    return redirect(f"{scene.get_absolute_url()}#aspects")
