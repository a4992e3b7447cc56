"""Absorbing a hit: one stress box plus any empty consequence slots, or being taken out (spec §5.2-5.5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from systems.errors import RulesError
from systems.fate_accelerated.aspects import SLOT_VALUES, Aspect, AspectKind, FreeInvocationGrant, Moment, Severity
from systems.fate_accelerated.settings import FaeSettings, settings_or_default
from systems.fate_accelerated.sheet import STRESS_VALUES, FaeSheet, SceneStatus

MAX_ABSORPTION = max(STRESS_VALUES) + sum(SLOT_VALUES.values())  # 3 + 2 + 4 + 6 = 15


@dataclass(frozen=True, slots=True)
class AbsorptionOption:
    box: int | None
    slots: tuple[Severity, ...]
    absorbed: int


def _unavailable(what: str, es: str, en: str) -> RulesError:
    return RulesError(what, es, en)


def validate_absorption(
    sheet: FaeSheet,
    shifts: int,
    boxes: Sequence[int],
    slots: Sequence[Severity],
    settings: FaeSettings | None = None,
) -> int:
    """Shifts the choice absorbs; raises on an illegal choice (an insufficient one included)."""
    s = settings_or_default(settings)
    if len(boxes) > 1:
        raise _unavailable(
            "one_stress_box_per_hit",
            "Solo puedes tachar una casilla de estrés por impacto.",
            "Only one stress box per hit.",
        )
    if not boxes and not slots:
        raise _unavailable(
            "absorption_empty",
            "Elige una casilla o una consecuencia, o queda derrotado.",
            "Choose a box or a consequence, or be taken out.",
        )
    for b in boxes:
        if b not in STRESS_VALUES or sheet.box_checked(b):
            raise _unavailable(
                "stress_box_unavailable",
                f"La casilla de estrés {b} no está disponible.",
                f"Stress box {b} is not available.",
            )
    if len(set(slots)) != len(slots):
        raise _unavailable("duplicate_slot", "Consecuencia repetida.", "Duplicate consequence slot.")
    for slot in slots:
        if sheet.consequences.get(Severity(slot)) is not None:
            raise _unavailable(
                "consequence_slot_unavailable",
                "Ese espacio de consecuencia ya está ocupado.",
                "That consequence slot is already filled.",
            )
    parts = [*boxes, *(SLOT_VALUES[Severity(x)] for x in slots)]
    absorbed = sum(parts)
    if absorbed < shifts:
        raise _unavailable(
            "absorption_insufficient",
            f"Esa elección absorbe {absorbed} de {shifts} aumentos.",
            f"That choice absorbs {absorbed} of {shifts} shifts.",
        )
    if s.require_minimal_absorption and any(absorbed - p >= shifts for p in parts):
        raise _unavailable(
            "absorption_not_minimal",
            "Sobra una parte de la elección: quítala.",
            "Part of the choice is unnecessary: remove it.",
        )
    return absorbed


def absorption_options(sheet: FaeSheet, shifts: int, minimal_only: bool = True) -> list[AbsorptionOption]:
    """Every legal (box, slots) choice; ``minimal_only`` drops those with a removable part.
    An empty list means the hit can only take the character out."""
    free_boxes = [b for b in STRESS_VALUES if not sheet.box_checked(b)]
    free_slots = [x for x in Severity if sheet.consequences.get(x) is None]
    options = []
    for box in [None, *free_boxes]:
        for k in range(len(free_slots) + 1):
            for chosen in combinations(free_slots, k):
                if box is None and not chosen:
                    continue
                parts = ([box] if box else []) + [SLOT_VALUES[x] for x in chosen]
                total = sum(parts)
                if total < shifts or (minimal_only and any(total - p >= shifts for p in parts)):
                    continue
                options.append(AbsorptionOption(box, tuple(chosen), total))
    return options


@dataclass(frozen=True, slots=True)
class HitResult:
    sheet: FaeSheet
    absorbed: int
    taken_out: bool
    consequences: tuple[Aspect, ...]  # new consequences, each with 1 free invocation for the attacker


def take_out(sheet: FaeSheet) -> FaeSheet:
    """Taken out: nothing is marked (A-07); the character cannot act until the scene ends."""
    return sheet.with_changes(scene_status=SceneStatus.TAKEN_OUT)


def apply_hit(
    sheet: FaeSheet,
    owner: str,
    attacker: str,
    shifts: int,
    *,
    boxes: Sequence[int] = (),
    slots: Sequence[Severity] = (),
    texts: Mapping[Severity, str] | None = None,
    taken_out: bool = False,
    moment: Moment | None = None,
    source: str | None = None,
    settings: FaeSettings | None = None,
) -> HitResult:
    """Absorb a hit of ``shifts`` with the defender's choice, or be taken out (by choice, A-07)."""
    if shifts < 1:
        raise RulesError("no_harm", "Un impacto tiene al menos un aumento.", "A hit has at least one shift.")
    if taken_out:
        return HitResult(take_out(sheet), 0, True, ())
    absorbed = validate_absorption(sheet, shifts, boxes, slots, settings)
    texts = texts or {}
    stress = list(sheet.stress)
    for b in boxes:
        stress[STRESS_VALUES.index(b)] = True
    slots_now = sheet.consequences
    created = []
    for raw in slots:
        severity = Severity(raw)
        text = texts.get(severity, "").strip()
        if not text:
            raise RulesError(
                "consequence_text_required",
                "Escribe el aspecto de la consecuencia.",
                "Write the consequence aspect.",
                severity=severity.value,
            )
        aspect = Aspect(
            key=f"{owner}:{severity.value}:{source or 'hit'}",
            text=text,
            kind=AspectKind.CONSEQUENCE,
            character=owner,
            severity=severity,
            taken=moment,
            inflicted_by=attacker,
            # the attacker gets one free invocation on each new consequence
            grants=(FreeInvocationGrant(holder=attacker, remaining=1, source=source),),
        )
        created.append(aspect)
        slots_now = slots_now.replace(severity, aspect)
    new = sheet.with_changes(stress=tuple(stress), consequences=slots_now)
    return HitResult(new, absorbed, False, tuple(created))
