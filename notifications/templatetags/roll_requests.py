"""``{% roll_requests scene viewer %}``: the open roll requests of a scene (a GM's with the form to ask for
one and to withdraw; a player's own), as ``notifications.selectors`` and ``campaigns.policy`` answer."""

from __future__ import annotations

from typing import Any

from django import template

from campaigns import policy
from campaigns.models import Scene
from campaigns.policy import Viewer
from campaigns.selectors import load_campaign_characters
from characters.models import Character, CharacterStatus
from notifications import selectors

register = template.Library()


@register.inclusion_tag("notifications/_roll_requests.html")
def roll_requests(scene: Scene, viewer: Viewer | None) -> dict[str, Any]:
    if viewer is None or not viewer.is_member:
        return {"show": False, "member": False}
    asks = policy.may_request_roll(viewer)
    requests = selectors.scene_roll_requests(viewer, scene)
    characters: list[Character] = []
    if asks:
        # The campaign's characters as the page already read them (the composer's list), filtered here.
        characters = [
            c for c in load_campaign_characters(scene.campaign) if not c.is_npc and c.status == CharacterStatus.APPROVED
        ]
    return {
        "member": True,
        "show": asks or bool(requests),
        "asks": asks,
        "requests": requests,
        "characters": characters,
        "scene": scene,
    }
