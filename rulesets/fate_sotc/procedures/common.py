"""What several SotC procedures share: characters and wallets as a step reads them, skills resolved from
what a form sends (a key or a name in either language; anything else is refused, never read as +0), the
pickers (characters by name, skills by their name, rolls in words) and the words of the record."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from pydantic import BaseModel, ConfigDict, computed_field

from campaigns import policy
from rulesets.fate_sotc.rolls import skill_key, skill_rating, sotc_settings
from rulesets.fate_sotc.sheet import load_sheet
from rulesets.kit.procedures import Choice, RecordLine
from rulesets.kit.refusals import refuse
from rulesets.kit.table import GM, Actor, CharacterFacts, StoredRoll, Table, in_both
from systems.errors import RulesError
from systems.fate_sotc.consequences import Severity
from systems.fate_sotc.dice import FateDice
from systems.fate_sotc.fate_points import Wallet
from systems.fate_sotc.invocation import RollState
from systems.fate_sotc.ladder import ladder_label
from systems.fate_sotc.resolution import Modifier, ModifierSource
from systems.fate_sotc.settings import FateSotcSettings
from systems.fate_sotc.sheet import FateSotcSheet
from systems.registry import Names

SEVERITY = {
    Severity.LEVE: gettext_lazy("leve"),
    Severity.MODERADA: gettext_lazy("moderada"),
    Severity.SEVERA: gettext_lazy("severa"),
}


class Params(BaseModel):
    """Step and opening params: unknown fields are refused (a typo never passes silently)."""

    model_config = ConfigDict(extra="forbid")


def settings_of(table: Table) -> FateSotcSettings:
    return sotc_settings(table.settings)


def sheet_of(character: CharacterFacts) -> FateSotcSheet:
    return load_sheet(character.sheet)


def wallet_of(character: CharacterFacts) -> Wallet:
    return sheet_of(character).wallet()


def language() -> str:
    return translation.get_language() or "es"


def ladder(value: int) -> str:
    """A rating or an effort on the ladder, in the active language: "Bueno (+3)"."""
    return ladder_label(value, language())


def fate_points_words(count: int) -> str:
    return translation.ngettext("%(n)d punto de destino", "%(n)d puntos de destino", count) % {"n": count}


def line(render: Any, *, gm_only: bool = False, rolls: Sequence[int] = ()) -> RecordLine:
    """A record line from a function that renders it in the active language."""
    return RecordLine(in_both(render), gm_only=gm_only, rolls=tuple(rolls))


# --- Skills --------------------------------------------------------------------------------------


def resolve_skill(value: str, settings: FateSotcSettings, field: str = "skill") -> str:
    """A skill's catalogue key from its key or name (``rulesets.fate_sotc.rolls.skill_key``)."""
    return skill_key(value, settings, field)


def skill_name(settings: FateSotcSettings, key: str) -> str:
    return settings.skill_label(key, language()) if key else ""


def skill_choices(settings: FateSotcSettings, character: CharacterFacts | None = None) -> list[Choice]:
    """Every skill by its name; with a character, its rating from the sheet too, best first."""
    ratings = (character.sheet.get("skills") or {}) if character is not None else {}
    skills = sorted(settings.skill_catalogue, key=lambda s: (-int(ratings.get(s.key, 0)), skill_name(settings, s.key)))
    if character is None:
        return [Choice(s.key, skill_name(settings, s.key)) for s in skills]
    return [Choice(s.key, f"{skill_name(settings, s.key)}: {ladder(int(ratings.get(s.key, 0)))}") for s in skills]


def rating_of(character: CharacterFacts, skill: str) -> int:
    return skill_rating(character.sheet, skill)


# --- Characters ----------------------------------------------------------------------------------


def approved(table: Table) -> list[CharacterFacts]:
    return sorted((c for c in table.characters.values() if c.approved), key=lambda c: c.name.casefold())


def character_choices(table: Table) -> list[Choice]:
    return [Choice(str(c.id), c.name) for c in approved(table)]


def own_character_choices(table: Table, viewer: policy.Viewer) -> list[Choice]:
    """The characters this viewer speaks for (their own; NPCs for a GM)."""
    return [Choice(str(c.id), c.name) for c in approved(table) if policy.controls_character(viewer, c)]


def only_own_character(table: Table, viewer: policy.Viewer) -> CharacterFacts | None:
    mine = [c for c in approved(table) if policy.controls_character(viewer, c) and not c.is_npc]
    return mine[0] if len(mine) == 1 else None


def not_your_character(es: str, en: str) -> RulesError:
    return refuse("not_your_character", es, en)


# --- Rolls in words ------------------------------------------------------------------------------


def roll_words(roll: StoredRoll, table: Table) -> str:
    """A stored roll as a picker shows it: "Ana: Puños Bueno (+3), mensaje n.º 12" (its post's number in the
    thread, never an id)."""
    first = (roll.result.get("sides") or [{}])[0]
    owner = table.characters.get(roll.character_id) if roll.character_id is not None else None
    who = owner.name if owner is not None else _("Sin personaje")
    skill = skill_name(settings_of(table), str(roll.request.get("skill") or ""))
    rating = ladder(int(first.get("rating", 0)))
    head = f"{skill} {rating}" if skill else rating
    if roll.post_number:
        return _("%(who)s: %(skill)s, mensaje n.º %(post)d") % {"who": who, "skill": head, "post": roll.post_number}
    return f"{who}: {head}"


# --- One side of a rolled action -----------------------------------------------------------------


class Side(BaseModel):
    """One side of a rolled action: whose roll it is, who speaks for it, and its pure roll state (the dice
    as thrown, the replaced throws, the invoked aspects, the modifiers)."""

    model_config = ConfigDict(extra="ignore")  # ``effort`` is derived: it is dumped, never read back

    roll_id: int
    index: int = 0
    character_id: int | None = None
    name: str = ""
    actor: Actor = GM
    skill: str = ""
    roll: RollState

    @computed_field  # type: ignore[prop-decorator]
    @property
    def effort(self) -> int:
        return self.roll.effort

    def label(self, settings: FateSotcSettings) -> str:
        skill = skill_name(settings, self.skill)
        if self.name and skill:
            return f"{self.name} ({skill})"
        return self.name or skill or "—"


def side_from_roll(roll: StoredRoll, index: int, character: CharacterFacts | None, skill: str) -> Side:
    stored = roll.result["sides"][index]
    dice = stored["dice"]
    modifiers = tuple(
        Modifier(ModifierSource(m["source"]), int(m["value"]), m.get("ref")) for m in stored.get("modifiers", [])
    )
    state = RollState(
        roller_id=str(character.id) if character else "",
        dice=FateDice(tuple(dice.get("d6", ())), tuple(dice["faces"]), int(dice["total"])),
        skill_rating=int(stored["rating"]),
        modifiers=modifiers,
    )
    return Side(
        roll_id=roll.id,
        index=index,
        character_id=character.id if character else None,
        name=character.name if character else "",
        actor=character.actor if character else GM,
        skill=skill,
        roll=state,
    )


def effort_words(side: Side) -> Names:
    return in_both(lambda: ladder(side.effort))
