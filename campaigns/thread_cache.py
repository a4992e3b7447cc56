"""Whole thread pages kept in each process for the views that repeat: a reload, a return to the thread.

A kept page is found under a digest of everything the page shows or decides from, so nothing is ever
invalidated by hand and a page that changed is rendered afresh:

- the scene, and the request's host and full path (the page number; the language form links back to it);
- the campaign's last numbered event. Every service that changes what a campaign shows logs an event in
  the change's own transaction (``campaigns.events.publish``), and the log row is numbered right after
  commit, in the order of numbering. While a committed change still waits for its number, its campaign's
  pages are rendered and not kept. The number is read with the scene, before anything the page shows, so
  what is kept under a number is never older than it;
- the version of the accounts' public profiles (``accounts.models.ProfilesVersion``): names and avatars
  beside posts and in the composer's whisper list are not campaign events;
- the viewer: who they are, their role and whether they may write, their read marker (the unread badges),
  what the header shows of them, their language and time zone.

A scene with open roll requests is rendered and not kept: requests are made and withdrawn without a
campaign event, and while one is open the composer comes pre-filled to answer it.

What differs between two requests for the same page is filled in per request: the session's CSRF token, the
time live updates start from, and a new idempotency key for each procedure form. A page with flash messages,
a quoted post or the inline roll builder is rendered and not kept.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import astuple
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import get_language

from campaigns.models import Scene
from campaigns.policy import Viewer
from tintero.fragments import digest

PAGE_CACHE = "pages"
# Rendered where the page's CSRF token, live-since time and procedure forms' keys go, and replaced in every
# response. Random per process: a post that spelled one out would otherwise show the reader's CSRF token.
_SLOT_MARK = secrets.token_hex(12)
CSRF_SLOT = f"tintero-csrf-{_SLOT_MARK}"
LIVE_SINCE_SLOT = f"tintero-live-since-{_SLOT_MARK}"
IDEMPOTENCY_SLOT = f"tintero-idempotency-{_SLOT_MARK}"
# Query parameters whose pages are made for one request (a quote in the composer, the no-JavaScript
# builder): rendered, never kept.
ONE_OFF_PARAMETERS = ("quote", "builder")


def page_key(request: HttpRequest, scene: Scene, viewer: Viewer, may_write: bool) -> str | None:
    """The key of this view of the thread page, or None when this view must not be kept.

    ``scene`` comes from ``selectors.scene_for(..., for_thread=True)``, which reads the marks with it.
    """
    if not settings.THREAD_PAGE_CACHE_ENTRIES:
        return None
    if any(name in request.GET for name in ONE_OFF_PARAMETERS) or len(messages.get_messages(request)):
        return None
    if scene.has_unnumbered_events or scene.has_open_roll_requests:  # type: ignore[attr-defined]
        return None
    user = request.user
    header: tuple[Any, ...] = ()
    if user.is_authenticated:
        header = (user.pk, user.public_name, getattr(user, "_tintero_runs_campaigns", None))
    inputs: tuple[Any, ...] = (
        "thread-page",
        scene.pk,
        request.get_host(),
        request.is_secure(),
        request.get_full_path(),
        scene.campaign_seq,  # type: ignore[attr-defined]
        scene.profiles_version,  # type: ignore[attr-defined]
        astuple(viewer),
        may_write,
        scene.viewer_last_read,  # type: ignore[attr-defined]
        header,
        get_language(),
        timezone.get_current_timezone_name(),
    )
    return "thread:" + digest(inputs)


def kept_page(key: str | None) -> str | None:
    """The kept page (with its slots) under ``key``, if this process has it.

    Nothing else happens on a kept view: the view that rendered the page moved the read marker up to its
    last post, and the key holds the marker as it was before that view, so a kept view needs no move."""
    if key is None:
        return None
    kept: str | None = caches[PAGE_CACHE].get(key)
    return kept


def render_thread_page(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    *,
    key: str | None,
    read_at: float,
    status: int = 200,
) -> HttpResponse:
    """Render the page with its per-request slots, keep it under ``key`` (if any) and answer it."""
    slots = {"csrf_token": CSRF_SLOT, "live_since": LIVE_SINCE_SLOT, "new_idempotency_key": IDEMPOTENCY_SLOT}
    page = render_to_string(template, {**context, **slots}, request)
    if key is not None:
        caches[PAGE_CACHE].set(key, page)
    return respond(request, page, read_at=read_at, status=status)


def respond(request: HttpRequest, page: str, *, read_at: float, status: int = 200) -> HttpResponse:
    """The page with this request's CSRF token (which also sets the cookie, as the tag would), the time its
    marks were read (``read_at``, before the scene was read: live updates replay what was logged since, so
    nothing logged while this request ran is missed) and a new idempotency key in each procedure form (a
    step sent twice from one form is taken once; two forms never share a key)."""
    html = page.replace(CSRF_SLOT, get_token(request)).replace(LIVE_SINCE_SLOT, str(int(read_at)))
    if IDEMPOTENCY_SLOT in html:
        parts = html.split(IDEMPOTENCY_SLOT)
        html = "".join(part + str(uuid.uuid4()) for part in parts[:-1]) + parts[-1]
    return HttpResponse(html, status=status)
