"""The policy in templates: a template reads what ``campaigns.policy`` answers, it never decides itself.

``{% load policy %}`` then ``{% if viewer|may:"read_campaign_ledger" %}`` (the viewer-only questions listed
below) or ``{% if character|editable_by:viewer %}``.
"""

from __future__ import annotations

from collections.abc import Callable

from django import template

from campaigns import policy
from campaigns.policy import Viewer
from characters.models import Character

register = template.Library()

# The questions about a viewer alone that templates may ask, by name.
_VIEWER_QUESTIONS: dict[str, Callable[[Viewer], bool]] = {
    "read_campaign_ledger": policy.may_read_campaign_ledger,
    "see_roll_controls": policy.may_see_roll_controls,
    "manage_campaign": policy.may_manage_campaign,
    "see_hidden_aspects": policy.may_see_hidden_aspect,
    "apply_any_operation": policy.may_apply_any_operation,
    "approve_characters": policy.may_approve_character,
    "export_campaign": policy.may_export_campaign,
    "archive_campaign": policy.may_archive_campaign,
    "reopen_campaign": policy.may_reopen_campaign,
}


@register.filter
def may(viewer: Viewer | None, question: str) -> bool:
    if viewer is None:
        return False
    return _VIEWER_QUESTIONS[question](viewer)


@register.filter
def editable_by(character: Character, viewer: Viewer | None) -> bool:
    return viewer is not None and policy.may_edit_character(viewer, character)


@register.filter
def private_parts_for(character: Character, viewer: Viewer | None) -> bool:
    """Whether the viewer reads the character's sheet because the GM opened sheets to the table (not as its
    owner or a GM): the sheet then says so."""
    return (
        viewer is not None
        and policy.may_see_private_parts(viewer, character, character.campaign.sheets_open)
        and not policy.may_edit_character(viewer, character)
    )
