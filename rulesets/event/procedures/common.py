"""What Event's procedures share: the campaign's rules, the one case of refusal codes, the character
pickers and the words the record uses for the game's outcomes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from django.utils.translation import gettext as _

from campaigns import policy
from rulesets.event.rolls import settings_of
from rulesets.kit.procedures import Choice
from rulesets.kit.refusals import refuse
from rulesets.kit.table import CharacterFacts, Table
from systems.errors import RulesError
from systems.event.ladder import Outcome
from systems.event.settings import EventSettings
from systems.event.sheet import EventSheet

T = TypeVar("T")


def rules_of(table: Table) -> EventSettings:
    return settings_of(table.settings)


def by_the_rules(run: Callable[[], T]) -> T:
    """Run a pure rule of ``systems.event``; its refusal keeps its words and takes the API's one code case
    (the spec's ``AUTOMATIC_OUTCOME`` is ``automatic_outcome`` here)."""
    try:
        return run()
    except RulesError as refused:
        raise refuse(refused.code.lower(), refused.message_es, refused.message_en, **refused.details) from None


def sheet_of(character: CharacterFacts, rules: EventSettings) -> EventSheet:
    return by_the_rules(lambda: EventSheet.model_validate(character.sheet or {}, context={"settings": rules}))


def own_characters(table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    """The characters this viewer acts for (a player's own; every approved one for a GM), by name."""
    mine = [c for c in table.characters.values() if c.approved and policy.controls_character(viewer, c)]
    return {"character": [Choice(str(c.id), c.name) for c in mine]}


def reactions_off() -> RulesError:
    return refuse(
        "reactions_disabled",
        "Las reacciones no están activas en esta campaña.",
        "Reactions are off in this campaign.",
    )


def outcome_words(outcome: Outcome | str | None) -> str:
    """An action's outcome in the game's words (translated where it is called, inside ``in_both``)."""
    words = {
        Outcome.ABSOLUTE_SUCCESS: _("éxito absoluto"),
        Outcome.PARTIAL_SUCCESS: _("éxito parcial"),
        Outcome.FAILURE: _("fallo"),
        Outcome.CRITICAL_FAILURE: _("fallo crítico"),
    }
    return words.get(Outcome(outcome), "") if outcome else ""
