"""Reads about accounts."""

from __future__ import annotations

from accounts.models import User


def names_beside(user: User) -> list[str]:
    """The names the other members of the user's campaigns show (display name, or handle without one)."""
    if user.pk is None:
        return []
    others = (
        User.objects.filter(memberships__campaign__memberships__user=user)
        .exclude(pk=user.pk)
        .distinct()
        .values_list("display_name", "username")
    )
    return [display or username for display, username in others]
