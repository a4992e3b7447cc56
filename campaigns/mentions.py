"""Who a post names: ``@username`` of a member, or ``@CharacterName`` (spaces dropped) of a player's approved
character, which names its player. Notifications tell them; the posts service refuses a post naming more
people than ``LIMIT_MENTIONS_PER_POST``."""

from __future__ import annotations

import re

from campaigns.models import Membership
from characters.models import Character, CharacterStatus

MENTION_RE = re.compile(r"(?<![\w@])@([\w.+-]{1,150})")


def mention_handle(name: str) -> str:
    """How a character is mentioned: its name without spaces (``@LucíaVega`` for "Lucía Vega")."""
    return "".join(name.split())


def mentioned_user_ids(text: str, campaign_id: int) -> frozenset[int]:
    """The members named in a post: ``@username``, or ``@CharacterName`` (spaces dropped) of a player's
    character, which names its player. Case-insensitive; unknown names are plain text."""
    names = {m.lower() for m in MENTION_RE.findall(text)}
    if not names:
        return frozenset()
    rows = Membership.objects.filter(campaign_id=campaign_id).values_list("user_id", "user__username")
    members = {uid for uid, _username in rows}
    named = {uid for uid, username in rows if username.lower() in names}
    characters = Character.objects.filter(
        campaign_id=campaign_id, is_npc=False, status=CharacterStatus.APPROVED, owner_id__in=members
    ).values_list("owner_id", "name")
    named |= {owner for owner, name in characters if owner is not None and mention_handle(name).lower() in names}
    return frozenset(named)
