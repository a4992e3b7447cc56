"""Presagios words for its templates: the three characteristics by the campaign's names (A-AMB-05), in the
page's language (the source's default names are translated; a campaign's own names are kept)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import get_language

from characters.models import Character
from rulesets.presagios import selectors
from rulesets.presagios.rolls import characteristic_label
from rulesets.presagios.selectors import FailedChallenge
from systems.presagios.sheet import CHAR_KEYS

register = template.Library()


@register.simple_tag
def characteristic_names(settings: Any) -> tuple[str, ...]:
    """``{% characteristic_names settings as names %}`` then ``names.0``..``names.2``."""
    language = get_language() or "es"
    return tuple(characteristic_label(key, settings, language) for key in CHAR_KEYS)


@register.simple_tag
def failed_challenges(character: Character) -> list[FailedChallenge]:
    """``{% failed_challenges character as challenges %}``: what the GM's lock picker offers."""
    return selectors.failed_challenges(character)
