"""Posts: write (htmx or plain POST), permalink, edit with revisions, soft delete."""

from __future__ import annotations

import time

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget

from accounts.write_limits import WriteLimited
from campaigns import policy, selectors, services, thread_cache
from campaigns.forms import PostEditForm, add_service_errors
from campaigns.markdown import MarkdownRefused, render_markdown
from campaigns.quoting import quotable, quote_markdown
from campaigns.views.common import decorate_posts, is_htmx, page_number, user_of
from campaigns.views.scenes import composer_form, thread_context
from rolls.services import create_post_with_rolls
from systems.errors import RulesError


def _thread_url(scene_url: str, page: int, post_id: int | None = None) -> str:
    url = f"{scene_url}?page={page}"
    return f"{url}#post-{post_id}" if post_id else url


@login_required
@require_POST
def post_create(request: HttpRequest, pk: int) -> HttpResponse:
    """The composer posts here. With htmx the new post is appended in place; without, a redirect to it."""
    scene, viewer, reader_ids, writer_ids = selectors.scene_for(request.user, pk)
    if not policy.may_write_scene(viewer, scene, reader_ids, writer_ids):
        raise PermissionDenied(_("No puedes escribir en esta escena."))
    shown_page = page_number(request.POST.get("page"))
    form = composer_form(viewer, scene, request.POST)
    limited: WriteLimited | None = None
    if form.is_valid():
        try:
            post = create_post_with_rolls(
                author=user_of(request),
                scene=scene,
                rolls=form.roll_specs(),
                viewer=viewer,
                **form.service_kwargs(),
            )
        except ValidationError as error:
            add_service_errors(form, error)
        except WriteLimited as refused:  # the composer keeps the text: it can be sent once the window ends
            form.add_error(None, str(refused))
            limited = refused
        except RulesError as error:
            form.add_error("roll_expression" if "notation" in error.code else None, error.message(get_language()))
        else:
            if not is_htmx(request):
                return redirect(post)
            new_page = selectors.page_of_post(viewer, post)
            if new_page != shown_page:
                # The post opened a new page: go there rather than append to the one on screen.
                return HttpResponseClientRedirect(_thread_url(scene.get_absolute_url(), new_page, post.pk))
            shaped = selectors.thread_posts(viewer, scene).get(pk=post.pk)
            decorate_posts(viewer, [shaped])
            context = {
                "post": shaped,
                "scene": scene,
                "viewer": viewer,
                "form": composer_form(viewer, scene),
                "page_number": shown_page,
            }
            return render(request, "campaigns/_post_created.html", context)
    if is_htmx(request):
        context = {"form": form, "scene": scene, "viewer": viewer, "page_number": shown_page}
        response = render(request, "campaigns/_composer.html", context)
        return _refused(reswap(retarget(response, "#composer"), "outerHTML"), limited)
    read_at = time.time()
    context = thread_context(request, scene, viewer, True, shown_page, form)
    # With the writer's input and errors: rendered for this request only, never kept.
    response = thread_cache.render_thread_page(
        request, "campaigns/scene.html", context, key=None, read_at=read_at, status=400
    )
    return _refused(response, limited)


def _refused(response: HttpResponse, limited: WriteLimited | None) -> HttpResponse:
    """A composer refused for its content stays 400; one past the post limit answers 429 with Retry-After."""
    if limited is not None:
        response.status_code = 429
        response["Retry-After"] = str(limited.retry_after)
    return response


@require_GET
def post_permalink(request: HttpRequest, pk: int) -> HttpResponse:
    """``/posts/<id>/``: a stable address for a post, whatever page it is on for this viewer."""
    post, scene, viewer = selectors.post_for(request.user, pk)
    return redirect(_thread_url(scene.get_absolute_url(), selectors.page_of_post(viewer, post), post.pk))


@require_GET
def post_fragment(request: HttpRequest, pk: int) -> HttpResponse:
    """One post as this viewer sees it (a live region's source: a procedure's record refreshes in place)."""
    post, _scene, viewer = selectors.post_for(request.user, pk)
    decorate_posts(viewer, [post])
    return render(request, "campaigns/_post.html", {"post": post, "viewer": viewer})


@login_required
@require_http_methods(["GET", "POST"])
def post_edit(request: HttpRequest, pk: int) -> HttpResponse:
    post, scene, viewer = selectors.post_for(request.user, pk)
    if not policy.may_edit_post(viewer, post):
        raise PermissionDenied(_("Solo su autor puede editar este mensaje."))
    form = PostEditForm(request.POST or None, initial={"body": post.body_source, "notes": post.notes_source})
    if request.method == "POST" and form.is_valid():
        try:
            services.edit_post(actor=user_of(request), post=post, **form.cleaned_data)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(request, _("Mensaje editado."))
            return redirect(post)
    return render(request, "campaigns/post_edit.html", {"form": form, "post": post, "scene": scene})


@login_required
@require_http_methods(["GET", "POST"])
def post_delete(request: HttpRequest, pk: int) -> HttpResponse:
    post, scene, viewer = selectors.post_for(request.user, pk)
    if not policy.may_delete_post(viewer, post):
        raise PermissionDenied(_("No puedes borrar este mensaje."))
    if request.method == "POST":
        page = selectors.page_of_post(viewer, post)
        try:
            services.delete_post(actor=user_of(request), post=post)
        except ValidationError as error:
            for message in error.messages:
                messages.error(request, message)
        else:
            messages.info(request, _("Mensaje borrado."))
        return redirect(_thread_url(scene.get_absolute_url(), page))
    return render(request, "campaigns/post_confirm_delete.html", {"post": post, "scene": scene})


@login_required
@require_GET
def post_revisions(request: HttpRequest, pk: int) -> HttpResponse:
    post, scene, viewer = selectors.post_for(request.user, pk)
    if not policy.may_see_revisions(viewer, post):
        raise PermissionDenied(_("Solo los másters y el autor ven el historial de un mensaje."))
    context = {"post": post, "scene": scene, "revisions": list(selectors.post_revisions(post))}
    return render(request, "campaigns/post_revisions.html", context)


@require_GET
def post_quote(request: HttpRequest, pk: int) -> HttpResponse:
    """The post as a Markdown quote for the composer: only a post this viewer may read (404 otherwise)."""
    post, _scene, _viewer = selectors.post_for(request.user, pk)
    if not quotable(post):
        raise Http404
    text = quote_markdown(post, request.build_absolute_uri(post.get_absolute_url()))
    return HttpResponse(text, content_type="text/plain; charset=utf-8")


@login_required
@require_POST
def post_preview(request: HttpRequest, pk: int) -> HttpResponse:
    """The composer's text rendered by the very renderer a published post goes through (nothing is saved)."""
    scene, viewer, reader_ids, writer_ids = selectors.scene_for(request.user, pk)
    if not policy.may_write_scene(viewer, scene, reader_ids, writer_ids):
        raise PermissionDenied(_("No puedes escribir en esta escena."))
    parts: dict[str, str] = {}
    errors: list[str] = []
    for field in ("body", "notes"):
        source = request.POST.get(field, "").strip()  # as create_post stores it
        if not source:
            continue
        try:
            parts[field] = render_markdown(source)
        except MarkdownRefused as refused:
            errors.append(str(refused))
    return render(request, "campaigns/_preview.html", {"parts": parts, "errors": errors})
