"""Recovering from and renaming consequences (spec §5.7, §5.8, A-15 - A-17)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from systems.errors import RulesError
from systems.fate_accelerated.aspects import Aspect, Severity
from systems.fate_accelerated.settings import FaeSettings, settings_or_default
from systems.fate_accelerated.sheet import FaeSheet


class TimeEventKind(StrEnum):
    SCENE_END = "scene_end"
    SESSION_END = "session_end"
    ADVENTURE_END = "adventure_end"


@dataclass(frozen=True, slots=True)
class TimeEvent:
    """A GM-triggered end of a scene, session or adventure; indexes grow through the campaign."""

    kind: TimeEventKind
    adventure: int
    session: int
    scene: int


def consequence_clearable(consequence: Aspect, event: TimeEvent, *, rest_available: bool = False) -> bool:
    """Whether enough time has passed at ``event`` (the story conditions are judged by people).

    ``rest_available``: for a mild consequence, whether the character had a chance to rest in that
    scene (a GM/player decision given as input, A-15).
    """
    taken = consequence.taken
    if taken is None or consequence.severity is None:
        return False
    if consequence.severity is Severity.MILD:
        return event.kind is TimeEventKind.SCENE_END and rest_available
    if consequence.severity is Severity.MODERATE:
        return event.kind is TimeEventKind.SESSION_END and event.session >= taken.session + 1
    return event.kind is TimeEventKind.ADVENTURE_END and event.adventure >= taken.adventure


def clearable_consequences(sheet: FaeSheet, event: TimeEvent, *, rest_available: bool = False) -> tuple[Severity, ...]:
    """The slots to offer for recovery at ``event``."""
    return tuple(
        a.severity
        for a in sheet.consequences.filled()
        if a.severity is not None and consequence_clearable(a, event, rest_available=rest_available)
    )


def recover_consequence(
    sheet: FaeSheet,
    severity: Severity,
    event: TimeEvent,
    *,
    justification: str,
    gm_confirms: bool,
    rest_available: bool = False,
) -> FaeSheet:
    """Empty a slot: enough time passed, the player explained how, and the GM says it makes sense.
    Free invocations left on the consequence disappear with it."""
    aspect = sheet.consequences.get(severity)
    if aspect is None:
        raise RulesError(
            "consequence_slot_empty",
            "Ese espacio de consecuencia está vacío.",
            "That consequence slot is empty.",
        )
    if not consequence_clearable(aspect, event, rest_available=rest_available):
        raise RulesError(
            "consequence_not_clearable",
            "Todavía no ha pasado tiempo suficiente para recuperarse de esa consecuencia.",
            "Not enough time has passed to recover from that consequence.",
        )
    if not justification.strip():
        raise RulesError(
            "recovery_justification_required",
            "Explica cómo se recupera el personaje.",
            "Explain how the character recovers.",
        )
    if not gm_confirms:
        raise RulesError(
            "recovery_not_confirmed",
            "El DJ debe confirmar que la recuperación tiene sentido en la historia.",
            "The GM must confirm that the recovery makes sense in the story.",
        )
    return sheet.with_changes(consequences=sheet.consequences.replace(severity, None))


def rename_consequence(
    sheet: FaeSheet, severity: Severity, new_text: str, settings: FaeSettings | None = None
) -> FaeSheet:
    """New text for a lasting consequence: same slot, same clear point, same free invocations (A-17)."""
    s = settings_or_default(settings)
    if severity is Severity.MILD and not s.allow_rename_mild:
        raise RulesError(
            "rename_mild_disabled",
            "Solo se cambia el nombre de las consecuencias moderadas y graves.",
            "Only moderate and severe consequences can be renamed.",
        )
    aspect = sheet.consequences.get(severity)
    if aspect is None:
        raise RulesError(
            "consequence_slot_empty",
            "Ese espacio de consecuencia está vacío.",
            "That consequence slot is empty.",
        )
    text = new_text.strip()
    if not text or len(text) > 200:
        raise RulesError(
            "invalid_aspect_text",
            "El nuevo nombre debe tener entre 1 y 200 caracteres.",
            "The new name must be 1 to 200 characters long.",
        )
    renamed = aspect.model_copy(update={"text": text, "rename_history": (*aspect.rename_history, aspect.text)})
    return sheet.with_changes(consequences=sheet.consequences.replace(severity, renamed))
