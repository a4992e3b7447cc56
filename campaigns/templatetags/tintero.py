"""Template helpers of the browser surface."""

from __future__ import annotations

from django import template

from campaigns.models import Role
from campaigns.models import role_in_sentence as _role_in_sentence

register = template.Library()


@register.filter
def role_label(value: str | None) -> str:
    """The translated label of a stored role value (``my_role`` annotations are raw values)."""
    if value in Role.values:
        return str(Role(value).label)
    return ""


@register.filter
def role_in_sentence(value: str | None) -> str:
    """A stored role value as a word inside a sentence («como jugador»)."""
    return _role_in_sentence(value or "")


@register.filter
def runs_campaigns(user: object) -> bool:
    """Whether the user is GM of at least one campaign (the header's dashboard link; one query a page)."""
    from campaigns.dashboard import runs_campaigns as _runs_campaigns

    return _runs_campaigns(user)  # type: ignore[arg-type]


@register.filter
def initials(name: str | None) -> str:
    """Up to two initials for a monogram avatar ("Brunilda la Roja" -> "BR"); "?" for an empty name."""
    words = [word for word in (name or "").split() if word[:1].isalnum()]
    if not words:
        return "?"
    letters = words[0][0] + (words[-1][0] if len(words) > 1 else "")
    return letters.upper()


@register.filter
def avatar_hue(seed: object) -> int:
    """One of eight monogram colours, stable for a person or character (classes avatar-hue-0..7)."""
    text = str(seed)
    return sum(text.encode()) % 8


@register.simple_tag
def field_groups(form: object, fields: object) -> str:
    """The form's ``fields``, each in its field div; an unbound form's kept (tintero.field_fragments)."""
    from tintero.field_fragments import field_groups as _field_groups

    return _field_groups(form, fields)  # type: ignore[arg-type]
