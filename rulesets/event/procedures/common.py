"""What Event's procedures share: the campaign's rules, the one case of refusal codes, the character
pickers and the words the record uses for the game's outcomes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from campaigns import policy
from rulesets.event.refusals import by_the_rules
from rulesets.event.rolls import settings_of
from rulesets.kit.procedures import Choice
from rulesets.kit.refusals import refuse
from rulesets.kit.table import CharacterFacts, Table
from systems.errors import RulesError
from systems.event.settings import EventSettings
from systems.event.sheet import EventSheet


def rules_of(table: Table) -> EventSettings:
    return settings_of(table.settings)


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


__all__ = ["by_the_rules", "own_characters", "reactions_off", "rules_of", "sheet_of"]
