"""What Fate Accelerated's procedures share: the sheet read from the table, its aspects named with the one
FATE reference grammar (``rulesets.fate``), who is who, and the words of the record (ladder and outcomes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from django.core.exceptions import PermissionDenied
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from pydantic import ValidationError

from campaigns import policy
from rulesets.fate.aspects import AspectRef, SheetAspect
from rulesets.fate_accelerated.rolls import outcome_words
from rulesets.fate_accelerated.sheet import stored_grants
from rulesets.kit.refusals import refuse
from rulesets.kit.table import GM, CharacterFacts, Table, in_both
from systems.errors import RulesError
from systems.fate_accelerated.actions import ACTION_NAMES, APPROACH_NAMES, Action, Approach
from systems.fate_accelerated.aspects import SEVERITY_NAMES, Aspect, AspectKind
from systems.fate_accelerated.ladder import ladder_label
from systems.fate_accelerated.settings import FaeSettings, settings_or_default
from systems.fate_accelerated.sheet import FaeSheet
from systems.registry import Names

if TYPE_CHECKING:
    from campaigns.policy import Viewer


def fae_settings(table: Table) -> FaeSettings:
    return table.settings if isinstance(table.settings, FaeSettings) else settings_or_default(None)


def sheet_of(table: Table, character: CharacterFacts) -> FaeSheet:
    try:
        return FaeSheet.model_validate(character.sheet, context={"settings": fae_settings(table)})
    except ValidationError:
        raise refuse(
            "sheet_incomplete",
            f"La hoja de {character.name} no está completa para Fate Acelerado.",
            f"{character.name}'s sheet is not complete for Fate Accelerated.",
        ) from None


# --- Aspects: the shared grammar <-> the pure rules' keys --------------------------------------------


def ref_of_pure(character_id: int, aspect: Aspect) -> AspectRef:
    """The shared reference of one of a sheet's pure aspects (``12:trouble`` -> ``character:12:trouble``)."""
    if aspect.kind is AspectKind.CONSEQUENCE and aspect.severity is not None:
        return AspectRef.consequence(character_id, aspect.severity.value)
    return AspectRef.character(character_id, aspect.key.split(":", 1)[1])


def pure_aspects(table: Table, character: CharacterFacts) -> list[tuple[AspectRef, Aspect]]:
    """A character's aspects as the pure rules see them, with every free invocation on them (a
    consequence's live in its slot; the others' in the campaign's rules state)."""
    found: list[tuple[AspectRef, Aspect]] = []
    try:
        sheet = sheet_of(table, character)
    except RulesError:
        return found  # a sheet still being written has no aspects to pick
    for aspect in sheet.aspects(str(character.id)):
        if aspect.kind is not AspectKind.CONSEQUENCE:
            aspect = aspect.model_copy(update={"grants": stored_grants(table.rules_state, aspect.key)})
        found.append((ref_of_pure(character.id, aspect), aspect))
    return found


def pure_aspect(table: Table, ref: AspectRef) -> Aspect:
    character = table.character(ref.character_id)
    for found, aspect in pure_aspects(table, character):
        if found == ref:
            return aspect
    raise refuse("aspect_unknown", "No conoces ese aspecto.", "You do not know that aspect.")


def aspects_of(character: CharacterFacts, table: Table) -> list[SheetAspect]:
    """FAE's sheet aspects for the shared pickers (``rulesets.fate.pickers``)."""
    shown = []
    for ref, aspect in pure_aspects(table, character):
        severity = SEVERITY_NAMES[aspect.severity].get(get_language() or "es") if aspect.severity else ""
        shown.append(
            SheetAspect(
                ref=ref,
                text=aspect.text,
                hidden=aspect.hidden,
                known_by=frozenset(int(k) for k in aspect.known_by if k.isdigit()),
                free_invocations=sum(g.remaining for g in aspect.grants),
                severity=severity.lower(),
                holders=tuple(sorted({party_name(table, g.holder) for g in aspect.grants if g.remaining > 0})),
            )
        )
    return shown


# --- Who --------------------------------------------------------------------------------------------


def require_controls(viewer: Viewer, character: CharacterFacts) -> None:
    if not policy.controls_character(viewer, character):
        raise PermissionDenied(_("Ese personaje no es tuyo."))


def party_name(table: Table, party: str) -> str:
    """The name of a pure party (a character id, or ``"gm"``) in the current language."""
    if party == GM:
        return _("El DJ")
    character = table.characters.get(int(party)) if party.isdigit() else None
    return character.name if character is not None else party


def conflict_of(table: Table) -> str:
    """[P] a conflict is scene-scoped here: consequences count for a concession within the same scene."""
    return f"scene-{table.scene_id}"


# --- Words --------------------------------------------------------------------------------------------


def language() -> str:
    return get_language() or "es"


def ladder(value: int) -> str:
    """A value on FAE's ladder in the current language: «Grande (+3)» (spec §6.7.3)."""
    return ladder_label(value, language())


def outcome(outcome_key: str, shifts: int | None) -> str:
    return outcome_words(outcome_key, shifts, language())


def action_name(action: Action) -> str:
    return ACTION_NAMES[action].get(language())


def approach_name(approach: Approach) -> str:
    return APPROACH_NAMES[approach].get(language())


def words(render: Callable[[], str]) -> Names:
    """A record or waiting line in both languages, from the catalogue."""
    return in_both(render)
