"""A post's rendered parts, kept: its shared part (face, speaker, badges, body) and its actions.

Rendering 25 posts through the template engine was most of a thread page's time. What a post shows every
reader alike is rendered once per language and time zone and kept (tintero.fragments) under a digest of
everything that template reads: an edit, a renamed author, a new portrait or a changed whisper list makes a
new key. The actions (quote,
edit, history, delete) are kept per post and set of permissions. The unread badge, rolls and game notes
are rendered per request around them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.safestring import mark_safe

from campaigns.models import Post, PostKind
from tintero.fragments import KeptFragments, digest

CORE_TEMPLATE = "campaigns/_post_core.html"
ACTIONS_TEMPLATE = "campaigns/_post_actions.html"
# Where the viewer's unread badge goes in a kept fragment (an HTML comment: harmless if ever left in).
UNREAD_SLOT = "<!--tintero:unread-->"
# Bump when _post_core.html changes in a way its inputs do not show (kept fragments then go unused).
CORE_VERSION = 2


def _file_name(field: Any) -> str:
    return str(field.name) if field else ""


def core_inputs(post: Post) -> tuple[object, ...]:
    """Everything _post_core.html reads from a post, in a fixed order."""
    author = post.shown_author
    character = post.character if post.character_id else None
    whispers = tuple(user.public_name for user in post.whisper_to.all()) if post.recipients == "whisper" else ()
    return (
        CORE_VERSION,
        post.pk,
        post.voice,
        post.recipients,
        post.is_deleted,
        post.body_html,
        post.created_at,
        post.edited_at,
        post.npc_name,
        post.author_id,
        post.imported_author,
        author.public_name,
        author.username,
        _file_name(author.avatar),
        post.character_id,
        character.name if character else "",
        _file_name(character.portrait) if character else "",
        whispers,
    )


def core_key(post: Post, language: str, zone: str) -> str:
    return f"post-core:{post.pk}:{digest((core_inputs(post), language, zone))}"


def actions_key(post: Post, may_write: bool, language: str) -> str:
    flags = "".join(
        "1" if flag else "0"
        for flag in (
            may_write,
            getattr(post, "may_edit", False),
            getattr(post, "may_delete", False),
            getattr(post, "may_see_revisions", False),
            post.is_deleted,
        )
    )
    return f"post-actions:{CORE_VERSION}:{post.pk}:{post.scene_id}:{post.revision_count}:{flags}:{language}"


def attach_kept_parts(posts: Sequence[Post], *, may_write: bool) -> None:
    """Give each story post of a page its shared part (``post.core_html``, with this viewer's unread badge in
    place) and this viewer's actions (``post.actions_html``), and mark it ``kept`` for _post.html: one cache
    read for the page, one render for each part not kept yet. Needs ``decorate_posts``' permissions."""
    story = [post for post in posts if post.kind != PostKind.PROCEDURE]
    if not story:
        return
    language = translation.get_language() or "es"
    zone = timezone.get_current_timezone_name()
    cores = {post.pk: core_key(post, language, zone) for post in story}
    actions = {post.pk: actions_key(post, may_write, language) for post in story}
    fragments = KeptFragments([*cores.values(), *actions.values()])
    badge = ""
    for post in story:
        core = fragments.render(cores[post.pk], CORE_TEMPLATE, {"post": post, "unread_slot": UNREAD_SLOT})
        if getattr(post, "is_unread", False):
            badge = badge or render_to_string("campaigns/_unread_badge.html")
        core = core.replace(UNREAD_SLOT, badge if getattr(post, "is_unread", False) else "", 1)
        # Both rendered by our own templates, with autoescaping.
        post.core_html = mark_safe(core)  # type: ignore[attr-defined]
        post.actions_html = mark_safe(  # type: ignore[attr-defined]
            fragments.render(actions[post.pk], ACTIONS_TEMPLATE, {"post": post, "may_write": may_write})
        )
        post.kept = True  # type: ignore[attr-defined]
    fragments.store()
