"""The character sheet (*ficha de personaje*) and the picks that build it (spec §2.1, §2.5, §2.6, §6.2, §6.5)."""

from __future__ import annotations

import re
import unicodedata
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator
from pydantic_core import PydanticCustomError

from systems.errors import RulesError
from systems.event.settings import DEFAULT_SETTINGS, EventSettings, rule_violation


def normalize_name(name: str) -> str:
    """Case-folded, accents stripped, whitespace trimmed and collapsed: detects exact duplicates (§2.1)."""
    decomposed = unicodedata.normalize("NFKD", name)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(stripped.casefold().split())


class Origin(StrEnum):
    CREATION = "CREATION"
    PROGRESS = "PROGRESS"


class Question(StrEnum):
    WHO_AM_I = "WHO_AM_I"  # ¿Quién soy?
    APPEARANCE = "APPEARANCE"  # ¿Qué aspecto tengo?
    ABILITIES = "ABILITIES"  # ¿Qué soy capaz de hacer?
    PROGRESS = "PROGRESS"


class PickKind(StrEnum):
    NEW_SKILL = "NEW_SKILL"
    IMPROVEMENT = "IMPROVEMENT"


class SheetStatus(StrEnum):
    CREATING = "CREATING"
    ACTIVE = "ACTIVE"
    RETIRED = "RETIRED"


class Skill(BaseModel):
    """A *habilidad*; each improvement (*mejora*, a "+") adds one die (§3.3)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=80)
    improvements: int = Field(0, ge=0)
    origin: Origin = Origin.CREATION
    progress_improvements: int = Field(0, ge=0)  # improvements added by progress, not creation picks
    category: str | None = None
    improvable: bool = True

    @property
    def normalized_name(self) -> str:
        return normalize_name(self.name)

    @property
    def display(self) -> str:
        """`Atletismo++`: the name followed by one "+" per improvement [SRC]."""
        return self.name.strip() + "+" * self.improvements

    @property
    def dice(self) -> int:
        """Dice this skill adds to a pool, on top of the base die."""
        return 1 + self.improvements

    @property
    def creation_picks(self) -> int:
        if self.origin is Origin.PROGRESS:
            return 0
        return 1 + self.improvements - self.progress_improvements


class EventSheet(BaseModel):
    """A character's answers to the three questions, plus the talent and the progress token.

    Validation (from untrusted JSON) enforces the creation rules: no duplicate skills, the per-skill
    improvement cap, at most ``max_picks`` creation picks, house-rule categories, a talent that is one of
    the character's skills. Pass ``context={"settings": EventSettings(...)}`` for a campaign's settings.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: SheetStatus = SheetStatus.CREATING
    handle: str = Field("", max_length=80)
    who_am_i: str = ""
    appearance: str = ""
    skills: tuple[Skill, ...] = ()
    talent: str | None = None  # normalized name of the *talento* (§6.2)
    progress_window: int | None = None  # id of the GM-opened progress window whose token this holds
    progress_used: bool = False

    @property
    def creation_picks(self) -> int:
        return sum(s.creation_picks for s in self.skills)

    @property
    def total_picks(self) -> int:
        return sum(1 + s.improvements for s in self.skills)

    def skill(self, name: str) -> Skill | None:
        key = normalize_name(name)
        for s in self.skills:
            if s.normalized_name == key:
                return s
        return None

    @model_validator(mode="after")
    def _creation_rules(self, info: ValidationInfo) -> EventSheet:
        settings = (info.context or {}).get("settings", DEFAULT_SETTINGS) if info else DEFAULT_SETTINGS
        try:
            check_sheet(self, settings)
        except RulesError as error:
            raise rule_violation(error) from None
        return self


def check_sheet(sheet: EventSheet, settings: EventSettings) -> None:
    """Whole-sheet rules (CV4, CV5, CV7, CV8, CV11); raises RulesError."""
    seen: set[str] = set()
    for s in sheet.skills:
        if s.normalized_name in seen:
            raise duplicate_skill(s.name)
        seen.add(s.normalized_name)
        if s.improvements > settings.core.max_improvements_per_skill:
            raise improvement_cap(s.name, settings.core.max_improvements_per_skill)
        if s.progress_improvements > s.improvements:
            raise RulesError(
                "SHEET_INVALID",
                f"«{s.name}» tiene más mejoras de progreso que mejoras.",
                f"'{s.name}' has more progress improvements than improvements.",
            )
    if sheet.creation_picks > settings.max_picks:
        raise sheet_complete(settings.max_picks)
    for cat in settings.house_rules.skill_categories:
        in_cat = [s for s in sheet.skills if s.category == cat.key]
        if cat.max_per_character is not None and len(in_cat) > cat.max_per_character:
            raise category_limit(cat.key, cat.max_per_character)
    if sheet.talent is not None and sheet.skill(sheet.talent) is None:
        raise unknown_skill(sheet.talent)


# --- errors shared by sheet transitions --------------------------------------------------------------


def duplicate_skill(name: str) -> RulesError:
    return RulesError(
        "DUPLICATE_SKILL",
        f"Ya tienes la habilidad «{name.strip()}»: añade una mejora en su lugar.",
        f"You already have the skill '{name.strip()}': add an improvement instead.",
    )


def improvement_cap(name: str, cap: int) -> RulesError:
    return RulesError(
        "IMPROVEMENT_CAP",
        f"«{name}» ya tiene el máximo de {cap} mejoras.",
        f"'{name}' already has the maximum of {cap} improvements.",
    )


def sheet_complete(max_picks: int) -> RulesError:
    return RulesError(
        "SHEET_COMPLETE",
        f"La ficha ya tiene sus {max_picks} habilidades o mejoras.",
        f"The sheet already has its {max_picks} skills or improvements.",
    )


def category_limit(key: str, limit: int) -> RulesError:
    return RulesError(
        "CATEGORY_LIMIT",
        f"Solo se permiten {limit} habilidades de la categoría «{key}».",
        f"Only {limit} skills of category '{key}' are allowed.",
    )


def unknown_skill(name: str) -> RulesError:
    return RulesError(
        "UNKNOWN_SKILL",
        f"La ficha no tiene la habilidad «{name}».",
        f"The sheet has no skill '{name}'.",
    )


# --- Q1 / Q2 -----------------------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"[.!?]+(?=\s*\S)")


class AnswerParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    text: str = Field(max_length=2000)


def answer_warnings(text: str) -> tuple[str, ...]:
    """CS1: more than one sentence is a soft warning, never a rejection (vetoes decide, §8 A-35)."""
    return ("MULTI_SENTENCE",) if _SENTENCE_END.search(text.strip()) else ()


def check_answer_text(text: str) -> str:
    """CV3: Q1 and Q2 answers must not be empty."""
    cleaned = text.strip()
    if not cleaned:
        raise RulesError(
            "EMPTY_ANSWER",
            "La respuesta no puede estar vacía.",
            "The answer cannot be empty.",
        )
    return cleaned


def answer_who_am_i(sheet: EventSheet, params: AnswerParams, settings: EventSettings | None = None) -> EventSheet:
    """Record the accepted answer to *¿Quién soy?*"""
    return sheet.model_copy(update={"who_am_i": check_answer_text(params.text)})


def answer_appearance(sheet: EventSheet, params: AnswerParams, settings: EventSettings | None = None) -> EventSheet:
    """Record the accepted answer to *¿Qué aspecto tengo?*"""
    return sheet.model_copy(update={"appearance": check_answer_text(params.text)})


# --- Q3 and progress picks ---------------------------------------------------------------------------


class Pick(BaseModel):
    """One answer to *¿Qué soy capaz de hacer?* (or a progress pick): a new skill or an improvement."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: PickKind
    skill: str = Field(min_length=1, max_length=80)
    category: str | None = None
    round: int | None = Field(None, ge=1)

    @model_validator(mode="after")
    def _name_not_blank(self) -> Pick:
        if not self.skill.strip():
            raise PydanticCustomError(
                "EMPTY_ANSWER", "The skill name cannot be empty.", {"message_es": "Falta la habilidad."}
            )
        return self


def check_pick(sheet: EventSheet, pick: Pick, settings: EventSettings, origin: Origin) -> None:
    """CV4, CV5, CV6, CV8, checked when the answer is submitted (before its veto window)."""
    if origin is Origin.CREATION and sheet.creation_picks >= settings.max_picks:
        raise sheet_complete(settings.max_picks)  # CV6
    house = settings.house_rules
    existing = sheet.skill(pick.skill)
    if pick.kind is PickKind.NEW_SKILL:
        if existing is not None:
            raise duplicate_skill(pick.skill)  # CV4
        for cat in house.skill_categories:
            if pick.round is not None and pick.round in cat.rounds and pick.category != cat.key:
                raise RulesError(
                    "CATEGORY_REQUIRED",
                    f"En la ronda {pick.round} la habilidad debe ser de la categoría «{cat.key}».",
                    f"In round {pick.round} the skill must be of category '{cat.key}'.",
                )
        chosen = house.category(pick.category)
        if pick.category is not None and chosen is None:
            raise RulesError(
                "UNKNOWN_CATEGORY",
                f"No hay ninguna categoría «{pick.category}» en las reglas de la casa.",
                f"There is no house-rule category '{pick.category}'.",
            )
        if chosen is not None and chosen.max_per_character is not None:
            have = sum(1 for s in sheet.skills if s.category == chosen.key)
            if have >= chosen.max_per_character:
                raise category_limit(chosen.key, chosen.max_per_character)  # CV8
        return
    if existing is None:
        raise unknown_skill(pick.skill)
    if not existing.improvable:
        raise RulesError(
            "NOT_IMPROVABLE",
            f"«{existing.name}» no admite mejoras.",
            f"'{existing.name}' cannot be improved.",
        )
    if existing.improvements >= settings.core.max_improvements_per_skill:
        raise improvement_cap(existing.name, settings.core.max_improvements_per_skill)  # CV5
    for cat in house.skill_categories:
        if pick.round is not None and pick.round in cat.rounds and existing.category != cat.key:
            raise RulesError(
                "CATEGORY_REQUIRED",
                f"En la ronda {pick.round} la elección debe ser de la categoría «{cat.key}».",
                f"In round {pick.round} the pick must be of category '{cat.key}'.",
            )


def apply_pick(
    sheet: EventSheet, pick: Pick, settings: EventSettings | None = None, origin: Origin = Origin.CREATION
) -> EventSheet:
    """Add an accepted pick: a new line with 0 improvements, or one more "+" (§2.3)."""
    settings = settings or DEFAULT_SETTINGS
    check_pick(sheet, pick, settings, origin)
    if pick.kind is PickKind.NEW_SKILL:
        cat = settings.house_rules.category(pick.category)
        skill = Skill(
            name=" ".join(pick.skill.split()),
            origin=origin,
            category=pick.category,
            improvable=cat.improvable if cat is not None else True,
        )
        return sheet.model_copy(update={"skills": (*sheet.skills, skill)})
    key = normalize_name(pick.skill)
    skills = tuple(
        s.model_copy(
            update={
                "improvements": s.improvements + 1,
                "progress_improvements": s.progress_improvements + (origin is Origin.PROGRESS),
            }
        )
        if s.normalized_name == key
        else s
        for s in sheet.skills
    )
    return sheet.model_copy(update={"skills": skills})


def add_creation_pick(sheet: EventSheet, params: Pick, settings: EventSettings | None = None) -> EventSheet:
    return apply_pick(sheet, params, settings, Origin.CREATION)


def finish_creation(sheet: EventSheet, params: None = None, settings: EventSettings | None = None) -> EventSheet:
    """All three questions answered and exactly ``max_picks`` creation picks (CV7): the sheet goes ACTIVE."""
    settings = settings or DEFAULT_SETTINGS
    if sheet.status is not SheetStatus.CREATING:
        raise RulesError(
            "NOT_CREATING",
            "Este personaje ya no está en creación.",
            "This character is no longer being created.",
        )
    if not sheet.who_am_i or not sheet.appearance or sheet.creation_picks != settings.max_picks:
        raise RulesError(
            "CREATION_INCOMPLETE",
            f"Faltan respuestas: las dos frases y {settings.max_picks} habilidades o mejoras.",
            f"Answers are missing: both sentences and {settings.max_picks} skills or improvements.",
        )
    return sheet.model_copy(update={"status": SheetStatus.ACTIVE})


# --- talent (§6.2) -----------------------------------------------------------------------------------


class TalentParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    skill: str = Field(min_length=1, max_length=80)


def choose_talent(sheet: EventSheet, params: TalentParams, settings: EventSettings | None = None) -> EventSheet:
    """CV11: at most one talent, one of the character's skills, fixed once chosen."""
    settings = settings or DEFAULT_SETTINGS
    if not settings.talent_enabled:
        raise RulesError(
            "TALENT_DISABLED",
            "La regla de talento destacado no está activa.",
            "The highlighted talent rule is off.",
        )
    if sheet.status is SheetStatus.CREATING and sheet.creation_picks < settings.max_picks:
        raise RulesError(
            "TALENT_TOO_EARLY",
            "El talento se elige cuando termina la pregunta 3.",
            "The talent is chosen once question 3 has ended.",
        )
    if sheet.talent is not None:
        raise RulesError(
            "TALENT_ALREADY_CHOSEN",
            "El talento ya está elegido y no se puede cambiar.",
            "The talent is already chosen and cannot change.",
        )
    skill = sheet.skill(params.skill)
    if skill is None:
        raise unknown_skill(params.skill)
    return sheet.model_copy(update={"talent": skill.normalized_name})


def is_talent(sheet: EventSheet, skill_name: str | None) -> bool:
    return skill_name is not None and sheet.talent is not None and normalize_name(skill_name) == sheet.talent


# --- character progress (§6.5) -----------------------------------------------------------------------


class ProgressWindowParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    window: int = Field(ge=1)


def open_progress(sheet: EventSheet, params: ProgressWindowParams, settings: EventSettings | None = None) -> EventSheet:
    """The GM opens progress: the character gets one pick token for this window."""
    settings = settings or DEFAULT_SETTINGS
    if not settings.optional.progress.enabled:
        raise RulesError(
            "PROGRESS_DISABLED",
            "La regla de progreso de personajes no está activa.",
            "The character progress rule is off.",
        )
    return sheet.model_copy(update={"progress_window": params.window, "progress_used": False})


def expire_progress(sheet: EventSheet, params: None = None, settings: EventSettings | None = None) -> EventSheet:
    """The next session starts: an unused progress token expires."""
    return sheet.model_copy(update={"progress_window": None, "progress_used": False})


def add_progress_pick(sheet: EventSheet, params: Pick, settings: EventSettings | None = None) -> EventSheet:
    """Apply an accepted progress pick: not limited by ``max_picks``, but by the per-skill cap (§8 A-32)."""
    settings = settings or DEFAULT_SETTINGS
    if sheet.progress_window is None:
        raise RulesError(
            "NO_PROGRESS_TOKEN",
            "No hay ninguna ventana de progreso abierta para este personaje.",
            "There is no open progress window for this character.",
        )
    if sheet.progress_used:
        raise RulesError(
            "PROGRESS_ALREADY_USED",
            "Ya has hecho tu elección de progreso en esta ventana.",
            "You already made your progress pick in this window.",
        )
    grown = apply_pick(sheet, params, settings, Origin.PROGRESS)
    return grown.model_copy(update={"progress_used": True})


def check_progress_pick(sheet: EventSheet, pick: Pick, settings: EventSettings | None = None) -> None:
    """Validate a progress pick at submission, before its veto window (§6.5)."""
    settings = settings or DEFAULT_SETTINGS
    if sheet.progress_window is None or sheet.progress_used:
        add_progress_pick(sheet, pick, settings)  # raises the precise error
    check_pick(sheet, pick, settings, Origin.PROGRESS)
