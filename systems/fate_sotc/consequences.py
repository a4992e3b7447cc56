"""Consequences (spec §2.8, §5.4, §5.9): severity slots and recovery."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from systems.fate_sotc.resolution import Track
from systems.fate_sotc.settings import DEFAULT_SETTINGS, ConsequenceAssignment, FateSotcSettings


class Severity(StrEnum):
    LEVE = "leve"
    MODERADA = "moderada"
    SEVERA = "severa"


class DurationGrade(StrEnum):
    LEVE = "leve"
    MODERADA = "moderada"
    SEVERA = "severa"
    NONE = "none"


ORDER: tuple[Severity, ...] = (Severity.LEVE, Severity.MODERADA, Severity.SEVERA)
TAKEN_OUT = "TAKEN_OUT"


class Consequence(BaseModel):
    """A consequence is a temporary, public aspect written under the track that took the hit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    severity: Severity
    track: Track
    text: str = Field(min_length=1, max_length=120)
    duration_grade: DurationGrade | None = None  # None = same as severity
    taken_in_scene: str | None = None
    exchange_no: int | None = None

    @property
    def grade(self) -> DurationGrade:
        return self.duration_grade or DurationGrade(self.severity.value)


def next_consequence(held: Iterable[Severity | str], settings: FateSotcSettings = DEFAULT_SETTINGS) -> Severity | str:
    """The severity the next consequence takes, or ``TAKEN_OUT`` if a severe one is held (A4)."""
    severities = {Severity(s) for s in held}
    if Severity.SEVERA in severities:
        return TAKEN_OUT
    allowed = ORDER[: settings.max_consequences]
    if settings.consequence_assignment is ConsequenceAssignment.ESCALATING:
        top = max((ORDER.index(s) for s in severities), default=-1)
        return ORDER[top + 1] if top + 1 < len(allowed) else TAKEN_OUT
    for s in allowed:
        if s not in severities:
            return s
    return TAKEN_OUT


def severities(consequences: Iterable[Consequence]) -> set[Severity]:
    return {c.severity for c in consequences}


# --- Recovery (§5.9). Each returns the consequences still held. ---

_STEP_DOWN = {
    DurationGrade.SEVERA: DurationGrade.MODERADA,
    DurationGrade.MODERADA: DurationGrade.LEVE,
    DurationGrade.LEVE: DurationGrade.NONE,
}


def after_scene_close(consequences: tuple[Consequence, ...], no_breather: bool = False) -> tuple[Consequence, ...]:
    """Mild (by duration) consequences go at a scene's end, unless the next follows without a breather."""
    if no_breather:
        return consequences
    return tuple(c for c in consequences if c.grade not in (DurationGrade.LEVE, DurationGrade.NONE))


def after_rest(
    consequences: tuple[Consequence, ...],
    hours: float,
    suitable: bool,
    settings: FateSotcSettings = DEFAULT_SETTINGS,
) -> tuple[Consequence, ...]:
    """Moderate ones go after >= 6 h of restful downtime that the GM judges suitable."""
    if not suitable or hours < settings.moderate_rest_hours:
        return consequences
    return tuple(
        c for c in consequences if c.grade not in (DurationGrade.MODERADA, DurationGrade.LEVE, DurationGrade.NONE)
    )


def after_new_adventure(consequences: tuple[Consequence, ...]) -> tuple[Consequence, ...]:
    """A new adventure means days or weeks out of circulation: every consequence has healed (A22)."""
    return ()


def at_back_to_back_session(consequences: tuple[Consequence, ...]) -> tuple[Consequence, ...]:
    """Back-to-back sessions: each consequence recovers one step lower; mild ones go now (A23).

    Only ``duration_grade`` changes: the severity slot stays taken.
    """
    kept: list[Consequence] = []
    for c in consequences:
        grade = _STEP_DOWN[c.grade] if c.grade is not DurationGrade.NONE else DurationGrade.NONE
        if grade is DurationGrade.NONE:
            continue
        kept.append(c.model_copy(update={"duration_grade": grade}))
    return tuple(kept)
