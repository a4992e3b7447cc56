"""Presagios reads for its pages: the challenges a character failed, to lock one by name (never by typing
its identifier).

A challenge procedure names its challenge ``reto:<slug of its name>`` (``procedures.challenge``); a plain
challenge roll from the composer is named the same way from its label, so locking it also locks the
procedure of the same name. A challenge already locked is not offered again.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.text import slugify
from django.utils.translation import gettext as _

from characters.models import Character
from rolls.models import Flow, Roll
from rulesets.presagios.rolls import CHALLENGE


@dataclass(frozen=True)
class FailedChallenge:
    challenge_id: str
    label: str


def roll_challenge_id(roll: Roll) -> str:
    """The challenge a plain challenge roll stands for: its label's, or its own when it has none."""
    slug = slugify(roll.label)[:100]
    return f"reto:{slug}" if slug else f"tirada:{roll.pk}"


def failed_challenges(character: Character) -> list[FailedChallenge]:
    """The challenges this character failed and that are not locked yet, newest first (two queries)."""
    locked = set(character.sheet.get("challenge_locks") or ())
    found: dict[str, FailedChallenge] = {}
    flows = (
        Flow.objects.filter(
            campaign_id=character.campaign_id,
            kind=CHALLENGE,
            state__character_id=character.pk,
            state__outcome="failure",
        )
        .select_related("scene")
        .order_by("-id")
    )
    for flow in flows:
        challenge_id = str((flow.state.get("machine") or {}).get("challenge_id") or "")
        name = str(flow.state.get("name") or "") or _("reto sin nombre")
        if challenge_id:
            found.setdefault(challenge_id, FailedChallenge(challenge_id, f"{name} ({flow.scene.title})"))
    rolls = (
        Roll.objects.filter(
            character=character, kind=CHALLENGE, flow__isnull=True, result__outcome="failure", post__isnull=False
        )
        .select_related("scene")
        .order_by("-id")
    )
    for roll in rolls:
        name = roll.label or _("reto sin nombre")
        found.setdefault(
            roll_challenge_id(roll), FailedChallenge(roll_challenge_id(roll), f"{name} ({roll.scene.title})")
        )
    return [challenge for challenge_id, challenge in found.items() if challenge_id not in locked]
