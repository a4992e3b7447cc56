"""The character sheet (spec §2.2-§2.9): a frozen pydantic model validated from untrusted JSON."""

from __future__ import annotations

from collections import Counter
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from systems.fate_sotc.aspects import Aspect
from systems.fate_sotc.consequences import Consequence
from systems.fate_sotc.defeat import Status
from systems.fate_sotc.errors import fate_error
from systems.fate_sotc.fate_points import Wallet, refresh_rate
from systems.fate_sotc.ladder import skill_line
from systems.fate_sotc.resolution import Track
from systems.fate_sotc.settings import DEFAULT_SETTINGS, Enforcement, FateSotcSettings
from systems.fate_sotc.stress import resize_track, track_size


class CharacterKind(StrEnum):
    PC = "pc"
    NPC = "npc"
    MINION_GROUP = "minion_group"


class Stunt(BaseModel):
    """A *virtud*: rules text approved by the GM; some cost a PD per activation (§2.5)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=100)
    description: str = Field(default="", max_length=4000)
    fp_cost: int = Field(default=0, ge=0, le=3)
    linked_skill: str | None = Field(default=None, max_length=40)
    effects: dict[str, Any] | None = None
    approved: bool = False


class StressTracks(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    health: tuple[bool, ...] = Field(default=(False,) * 5, max_length=20)
    composure: tuple[bool, ...] = Field(default=(False,) * 5, max_length=20)

    def get(self, track: Track) -> tuple[bool, ...]:
        return self.health if Track(track) is Track.HEALTH else self.composure


class StressOverride(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    health: int | None = Field(default=None, ge=-5, le=10)
    composure: int | None = Field(default=None, ge=-5, le=10)


class FateSotcSheet(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: CharacterKind = CharacterKind.PC
    name: str = Field(min_length=1, max_length=100)
    skills: dict[str, int] = Field(default_factory=dict, max_length=60)
    aspects: tuple[Aspect, ...] = Field(default=(), max_length=30)
    stunts: tuple[Stunt, ...] = Field(default=(), max_length=30)
    fate_points: int = Field(default=0, ge=0)
    fate_points_pending: int = Field(default=0, ge=0)
    refresh_override: int | None = Field(default=None, ge=0)
    stress: StressTracks = StressTracks()
    stress_bonus_override: StressOverride = StressOverride()
    consequences: tuple[Consequence, ...] = Field(default=(), max_length=3)
    temporary_aspects: tuple[Aspect, ...] = Field(default=(), max_length=50)
    tenacity: int | None = Field(default=None, ge=1, le=2)
    status: Status = Status.ACTIVE
    notes: str = Field(default="", max_length=10000)

    @model_validator(mode="after")
    def _check_rules(self) -> FateSotcSheet:
        texts = [a.text.strip().casefold() for a in self.aspects]
        if len(texts) != len(set(texts)):
            raise ValueError("aspect texts must be unique per character (case-insensitive)")
        held = Counter(c.severity for c in self.consequences)
        if any(n > 1 for n in held.values()):
            raise ValueError("at most one consequence of each severity")
        if self.kind is CharacterKind.PC and any(v < 0 for v in self.skills.values()):
            raise ValueError("player characters cannot have negative skills")
        if any(not -10 <= v <= 20 for v in self.skills.values()):
            raise ValueError("skill ratings must be within -10..+20")
        if self.tenacity is not None and self.kind is CharacterKind.PC:
            raise ValueError("tenacity is for NPCs only")
        return self

    def rating(self, skill: str) -> int:
        """Unlisted skills are Mediocre (0) (§2.3)."""
        return self.skills.get(skill, 0)

    @property
    def refresh_rate(self) -> int:
        return refresh_rate(len(self.aspects), self.refresh_override)

    def wallet(self) -> Wallet:
        return Wallet.opening(self.fate_points, self.fate_points_pending)

    def with_wallet(self, wallet: Wallet) -> FateSotcSheet:
        return self.model_copy(update={"fate_points": wallet.fate_points, "fate_points_pending": wallet.pending})

    def track_size(self, track: Track, settings: FateSotcSettings = DEFAULT_SETTINGS) -> int:
        track = Track(track)
        skill = getattr(settings.stress_skill, track.value)
        override = getattr(self.stress_bonus_override, track.value)
        return track_size(self.rating(skill), settings, override)

    def skill_lines(self, settings: FateSotcSettings = DEFAULT_SETTINGS) -> list[str]:
        ordered = sorted(self.skills.items(), key=lambda kv: (-kv[1], kv[0]))
        return [skill_line(settings.skill_label(k), v) for k, v in ordered]


def normalize_tracks(sheet: FateSotcSheet, settings: FateSotcSettings = DEFAULT_SETTINGS) -> FateSotcSheet:
    """Resize both stress tracks to what Vigor/Coraje and overrides give (truncating from the right)."""
    stress = StressTracks(
        health=resize_track(sheet.stress.health, sheet.track_size(Track.HEALTH, settings)),
        composure=resize_track(sheet.stress.composure, sheet.track_size(Track.COMPOSURE, settings)),
    )
    return sheet.model_copy(update={"stress": stress})


def creation_problems(sheet: FateSotcSheet, settings: FateSotcSettings = DEFAULT_SETTINGS) -> tuple[str, ...]:
    """Codes of the creation rules this sheet breaks (pyramid, maximum, aspect and stunt counts)."""
    problems: list[str] = []
    if settings.skill_pyramid_enforcement is Enforcement.OFF:
        return ()
    listed = Counter(v for v in sheet.skills.values() if v > 0)
    wanted = {k: v for k, v in settings.skill_pyramid.items() if v > 0}
    if dict(listed) != wanted:
        problems.append("skill_pyramid_mismatch")
    if any(v > settings.max_skill_at_creation for v in sheet.skills.values()):
        problems.append("skill_above_creation_max")
    if len(sheet.aspects) != settings.aspects_per_character:
        problems.append("aspect_count_mismatch")
    if len(sheet.stunts) != settings.stunts_per_character:
        problems.append("stunt_count_mismatch")
    return tuple(problems)


def validate_creation(sheet: FateSotcSheet, settings: FateSotcSettings = DEFAULT_SETTINGS) -> tuple[str, ...]:
    """Under ``strict`` a broken rule is refused; under ``warn`` the codes come back as warnings."""
    problems = creation_problems(sheet, settings)
    if problems and settings.skill_pyramid_enforcement is Enforcement.STRICT:
        raise fate_error(problems[0], problems=list(problems))
    return problems


def new_character(
    name: str,
    settings: FateSotcSettings = DEFAULT_SETTINGS,
    **fields: Any,
) -> FateSotcSheet:
    """A validated sheet with tracks sized for its skills and PD equal to its refresh rate."""
    sheet = FateSotcSheet.model_validate({"name": name, **fields})
    if "fate_points" not in fields:
        sheet = sheet.model_copy(update={"fate_points": sheet.refresh_rate})
    if sheet.kind is CharacterKind.PC:
        validate_creation(sheet, settings)
    return normalize_tracks(sheet, settings)
