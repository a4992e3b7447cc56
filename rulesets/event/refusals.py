"""Event's refusals in the API's one code case: the pure rules (``systems.event``) spell their codes as the
spec does (``AUTOMATIC_OUTCOME``); what leaves the game's plugin is lower_snake_case (``automatic_outcome``),
with the same words."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from rulesets.kit.refusals import refuse
from systems.errors import RulesError

T = TypeVar("T")


def by_the_rules(run: Callable[[], T]) -> T:
    """Run a pure rule; its refusal keeps its words and details and takes the one code case."""
    try:
        return run()
    except RulesError as refused:
        raise refuse(refused.code.lower(), refused.message_es, refused.message_en, **refused.details) from None
