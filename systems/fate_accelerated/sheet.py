"""The character sheet (Hoja de personaje, spec §2.2-2.10): pydantic, validated from untrusted JSON.

Validation reads the campaign settings from the pydantic context
(``FaeSheet.model_validate(data, context={"settings": settings})``); without one the defaults apply.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from systems.errors import RulesError
from systems.fate_accelerated.actions import Approach
from systems.fate_accelerated.aspects import Aspect, AspectKind, Severity
from systems.fate_accelerated.settings import FaeSettings, settings_or_default
from systems.fate_accelerated.stunts import Stunt

STRESS_VALUES = (1, 2, 3)  # Casilla 1/2/3 absorb 1/2/3 shifts


class CharacterKind(StrEnum):
    PC = "pc"
    NPC_MAIN = "npc_main"
    NPC_MOOK = "npc_mook"
    NPC_GROUP = "npc_group"


class SceneStatus(StrEnum):
    ACTIVE = "active"
    TAKEN_OUT = "taken_out"
    CONCEDED = "conceded"


class Approaches(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    careful: int
    clever: int
    sneaky: int
    flashy: int
    quick: int
    forceful: int

    def rating(self, approach: Approach) -> int:
        return int(getattr(self, approach.value))

    def values(self) -> tuple[int, ...]:
        return tuple(self.rating(a) for a in Approach)


class SheetAspect(BaseModel):
    """A character aspect beyond high concept and trouble; the GM may hide NPC aspects (§4.2)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(min_length=1, max_length=200)
    hidden: bool = False
    known_by: frozenset[str] = frozenset()


class ConsequenceSlots(BaseModel):
    """Exactly three slots; each holds at most one consequence aspect of its own severity."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mild: Aspect | None = None
    moderate: Aspect | None = None
    severe: Aspect | None = None

    def get(self, severity: Severity) -> Aspect | None:
        slot: Aspect | None = getattr(self, severity.value)
        return slot

    def replace(self, severity: Severity, aspect: Aspect | None) -> ConsequenceSlots:
        return self.model_copy(update={severity.value: aspect})

    def filled(self) -> tuple[Aspect, ...]:
        return tuple(a for s in Severity if (a := self.get(s)) is not None)

    @model_validator(mode="after")
    def _slot_matches(self) -> ConsequenceSlots:
        for s in Severity:
            a = self.get(s)
            if a is not None and (a.kind is not AspectKind.CONSEQUENCE or a.severity is not s or not a.active):
                raise ValueError(f"the {s.value} slot holds only an active {s.value} consequence")
        return self


def expected_refresh(stunt_count: int, refresh_bonus: int, settings: FaeSettings) -> int:
    """[P] §6.7.2: refresh_base − 1 per stunt beyond the free ones (+1 per major milestone)."""
    return settings.refresh_base + refresh_bonus - max(0, stunt_count - settings.stunts_free)


class FaeSheet(BaseModel):
    """A Fate Accelerated character: creation rules, invariants and the live state (FP, stress, slots)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    kind: CharacterKind = CharacterKind.PC
    description: str = Field("", max_length=5000)
    approaches: Approaches
    high_concept: str = Field(min_length=1, max_length=200)
    trouble: str = Field(min_length=1, max_length=200)
    other_aspects: tuple[SheetAspect, ...] = ()
    stunts: tuple[Stunt, ...] = ()
    refresh: int
    refresh_bonus: int = Field(0, ge=0)  # major milestones (§6.7.9)
    approach_raises: int = Field(0, ge=0)  # significant milestones (§6.7.9)
    fate_points: int = Field(ge=0)  # never negative; no maximum (the seed states none)
    stress: tuple[bool, bool, bool] = (False, False, False)
    consequences: ConsequenceSlots = ConsequenceSlots()
    scene_status: SceneStatus = SceneStatus.ACTIVE

    @field_validator("other_aspects", mode="before")
    @classmethod
    def _plain_strings(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return tuple({"text": v} if isinstance(v, str) else v for v in value)
        return value

    @model_validator(mode="after")
    def _creation_rules(self, info: ValidationInfo) -> FaeSheet:
        settings = settings_or_default((info.context or {}).get("settings") if info else None)
        _check_approaches(self, settings)
        if len(self.other_aspects) > settings.other_aspects_max:
            raise ValueError(f"at most {settings.other_aspects_max} other character aspects")
        if len(self.stunts) > settings.stunts_max:
            raise ValueError(f"at most {settings.stunts_max} stunts")
        if len({s.key for s in self.stunts}) != len(self.stunts):
            raise ValueError("stunt keys must be unique")
        if self.refresh_bonus and not settings.advancement_enabled:
            raise ValueError("refresh_bonus needs advancement_enabled")
        want = expected_refresh(len(self.stunts), self.refresh_bonus, settings)
        if want < settings.refresh_min:
            raise ValueError(f"too many stunts: refresh would drop below {settings.refresh_min}")
        if self.refresh != want:
            raise ValueError(f"refresh must be {want} with {len(self.stunts)} stunts")
        return self

    # --- reading ----------------------------------------------------------------------------------
    def rating(self, approach: Approach) -> int:
        return self.approaches.rating(approach)

    def box_checked(self, box: int) -> bool:
        return self.stress[STRESS_VALUES.index(box)]

    def stunt(self, key: str) -> Stunt:
        for s in self.stunts:
            if s.key == key:
                return s
        raise RulesError(
            "unknown_stunt",
            f"{self.name} no tiene la proeza «{key}».",
            f"{self.name} has no stunt '{key}'.",
        )

    def aspects(self, owner: str) -> tuple[Aspect, ...]:
        """The sheet's aspects as invocable values; ``owner`` is the character's id."""
        base = (
            Aspect(key=f"{owner}:high_concept", text=self.high_concept, kind=AspectKind.HIGH_CONCEPT, character=owner),
            Aspect(key=f"{owner}:trouble", text=self.trouble, kind=AspectKind.TROUBLE, character=owner),
        )
        others = tuple(
            Aspect(
                key=f"{owner}:aspect:{i}",
                text=a.text,
                kind=AspectKind.CHARACTER,
                character=owner,
                hidden=a.hidden,
                known_by=a.known_by,
            )
            for i, a in enumerate(self.other_aspects)
        )
        return base + others + self.consequences.filled()

    def with_changes(self, **changes: Any) -> FaeSheet:
        """A new sheet with ``changes`` (transitions check their own rules; the input is never mutated)."""
        return self.model_copy(update=changes)


def _check_approaches(sheet: FaeSheet, settings: FaeSettings) -> None:
    values = sheet.approaches.values()
    if sheet.approach_raises and not settings.advancement_enabled:
        raise ValueError("approach_raises needs advancement_enabled")
    top = settings.approach_max_after_advancement if sheet.approach_raises else settings.approach_max
    if any(not settings.approach_min <= v <= top for v in values):
        raise ValueError(f"every approach must be between {settings.approach_min} and +{top}")
    if sheet.kind is not CharacterKind.PC:
        return  # [P] NPCs are not bound to the PC creation array
    if sheet.approach_raises == 0:
        if sorted(values) != sorted(settings.approach_creation_array):
            raise ValueError("approaches must use the creation array " + str(list(settings.approach_creation_array)))
    elif sum(values) != sum(settings.approach_creation_array) + sheet.approach_raises:
        raise ValueError("approaches must be the creation array plus one point per milestone raise")


def validate_sheet(data: dict[str, Any], settings: FaeSettings | None = None) -> FaeSheet:
    """Validate untrusted sheet JSON with the campaign's settings."""
    return FaeSheet.model_validate(data, context={"settings": settings_or_default(settings)})


def new_character(data: dict[str, Any], settings: FaeSettings | None = None) -> FaeSheet:
    """Create a character: refresh from the stunt count, starting FP equal to refresh (§2.8)."""
    s = settings_or_default(settings)
    stunts = data.get("stunts", ())
    refresh = expected_refresh(len(stunts), 0, s)
    return validate_sheet({"refresh": refresh, "fate_points": refresh, **data}, s)
