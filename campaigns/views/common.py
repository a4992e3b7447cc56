"""Helpers shared by the page views."""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import get_language

from accounts.models import User
from campaigns import policy
from campaigns.models import Post, PostKind
from campaigns.policy import Viewer
from campaigns.post_fragments import attach_kept_parts
from rolls.roll_fragments import keep_roll_views
from rolls.selectors import record_views, rolls_for_posts


def user_of(request: HttpRequest) -> User:
    """The logged-in user (views call this only behind ``login_required``)."""
    return cast(User, request.user)


def is_htmx(request: HttpRequest) -> bool:
    return bool(getattr(request, "htmx", False))


def page_number(value: str | None) -> int:
    try:
        return max(1, int(value or 1))
    except ValueError:
        return 1


def flash_validation_error(request: HttpRequest, error: ValidationError) -> None:
    """For one-button actions without a form: show the service's reasons as messages."""
    for message in error.messages:
        messages.error(request, message)


def decorate_posts(
    viewer: Viewer,
    posts: Iterable[Post],
    first_unread_id: int | None = None,
    *,
    last_read_id: int | None = None,
    may_write: bool | None = None,
) -> None:
    """Attach what the viewer may do with each post (policy answers, no queries) and its rolls (one query
    for the whole page, one more when it holds procedure records). Unread: from ``first_unread_id``, or
    after ``last_read_id`` (the viewer's read marker). With ``may_write`` (the page's answer, for the quote
    link), the posts' kept parts too (campaigns.post_fragments)."""
    posts = list(posts)
    language = get_language() or "es"
    rolls = rolls_for_posts(viewer, [post.pk for post in posts], language)
    record_ids = [post.pk for post in posts if post.kind == PostKind.PROCEDURE]
    records = record_views(viewer, record_ids, language) if record_ids else {}
    for post in posts:
        post.roll_views = rolls.get(post.pk, [])  # type: ignore[attr-defined]
        post.record = records.get(post.pk)  # type: ignore[attr-defined]
        post.may_edit = policy.may_edit_post(viewer, post)  # type: ignore[attr-defined]
        post.may_delete = policy.may_delete_post(viewer, post)  # type: ignore[attr-defined]
        post.may_see_revisions = policy.may_see_revisions(viewer, post)  # type: ignore[attr-defined]
        unread = (first_unread_id is not None and post.pk >= first_unread_id) or (
            viewer.user_id is not None and last_read_id is not None and post.pk > last_read_id
        )
        post.is_unread = unread  # type: ignore[attr-defined]
    if may_write is not None:
        attach_kept_parts(posts, may_write=may_write)
        keep_roll_views(viewer, posts)
