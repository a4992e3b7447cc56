"""A roll's shared part (head, dice, summary, record link, follow-ups), rendered once and kept.

In a thread where most posts carry dice, the rolls were a large part of the page's rendering. What a roll
shows everyone allowed to see it is the same for them all in a language: it is kept (tintero.fragments)
under a digest of everything its template reads (a reveal, a follow-up or a renamed actor makes a new
key). The secret difficulty never enters the kept part: its badge and its line are slots filled per viewer,
and the reveal controls stay outside.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import mark_safe

from campaigns.models import Post
from campaigns.policy import Viewer
from rolls.selectors import RollView
from tintero.fragments import KeptFragments, digest

SHARED_TEMPLATE = "rolls/_roll_shared.html"
BADGE_SLOT = "<!--tintero:secret-badge-->"
SECRET_SLOT = "<!--tintero:secret-->"
# Bump when _roll_shared.html changes in a way its inputs do not show.
SHARED_VERSION = 1


def shared_inputs(view: RollView) -> tuple[object, ...]:
    """Everything _roll_shared.html reads from a roll's view, in a fixed order (never its secret)."""
    roll = view.roll
    link = getattr(roll, "chain_link", None)
    character = roll.character if roll.character_id else None
    return (
        SHARED_VERSION,
        roll.pk,
        roll.campaign_id,
        roll.label,
        character.name if character else "",
        view.gm_only,
        view.revealed,
        tuple(dataclasses.astuple(face) for face in view.faces),
        view.summary,
        (link.seq, link.hash) if link else None,
        tuple(
            (f.pk, f.kind, f.actor.public_name if f.actor_id else "", f.summary_es, f.summary_en)
            for f in view.follow_ups
        ),
    )


def shared_key(view: RollView, language: str) -> str:
    return f"roll-shared:{view.roll.pk}:{digest((shared_inputs(view), language))}"


def keep_roll_views(viewer: Viewer, posts: Sequence[Post]) -> None:
    """Give each roll view of a page (``post.roll_views``) its shared part, this viewer's secret slots
    filled: one cache read for the page, one render for each roll not kept yet."""
    views = [view for post in posts for view in getattr(post, "roll_views", [])]
    if not views:
        return
    language = translation.get_language() or "es"
    keys = {view.roll.pk: shared_key(view, language) for view in views}
    fragments = KeptFragments(keys.values())
    slots = {"badge": BADGE_SLOT, "secret": SECRET_SLOT}
    for post in posts:
        roll_views = getattr(post, "roll_views", None)
        if not roll_views:
            continue
        filled = []
        for view in roll_views:
            html = fragments.render(keys[view.roll.pk], SHARED_TEMPLATE, {"view": view, "slots": slots})
            badge = secret = ""
            if view.secret:  # only for those the policy shows it to (rolls.selectors.view_roll)
                context = {"view": view, "viewer": viewer}
                badge = render_to_string("rolls/_roll_secret_badge.html", context)
                secret = render_to_string("rolls/_roll_secret.html", context)
            html = html.replace(BADGE_SLOT, badge, 1).replace(SECRET_SLOT, secret, 1)
            # Rendered by our own templates, with autoescaping.
            filled.append(dataclasses.replace(view, kept_html=mark_safe(html)))
        post.roll_views = filled  # type: ignore[attr-defined]
    fragments.store()
