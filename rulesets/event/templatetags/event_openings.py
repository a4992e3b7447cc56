"""``{{ openings.desafio|desafio_seat:choice.value }}``: what the desafío's opening form offers for one
participant (the skills of their sheet, and whether the GM may set an NPC's pool instead)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django import template

from rulesets.kit.procedures import Choice

register = template.Library()


@dataclass(frozen=True)
class SeatChoices:
    skills: Sequence[Choice]
    npc: bool


@register.filter
def desafio_seat(openings: Mapping[str, Sequence[Choice]], value: str) -> SeatChoices:
    npcs = {choice.value for choice in openings.get("npc", ())}
    return SeatChoices(skills=openings.get(f"skill_{value}", ()), npc=str(value) in npcs)
