"""Outcomes (spec §3.5) and the proposed adjective ladder for display (§6.7.3)."""

from __future__ import annotations

from enum import StrEnum

from systems.registry import Names


class Outcome(StrEnum):
    FAIL = "fail"
    TIE = "tie"
    SUCCESS = "success"
    SUCCESS_WITH_STYLE = "success_with_style"


OUTCOME_NAMES = {
    Outcome.FAIL: Names("Fallo", "Fail"),
    Outcome.TIE: Names("Empate", "Tie"),
    Outcome.SUCCESS: Names("Éxito", "Success"),
    Outcome.SUCCESS_WITH_STYLE: Names("Éxito crítico", "Success with style"),
}


def classify(total: int, target: int) -> tuple[Outcome, int]:
    """Outcome and shifts of ``total`` against ``target``.

    Success with style is a special case of success, so it is tested first.
    """
    shifts = total - target
    if shifts < 0:
        return Outcome.FAIL, shifts
    if shifts == 0:
        return Outcome.TIE, 0
    if shifts >= 3:
        return Outcome.SUCCESS_WITH_STYLE, shifts
    return Outcome.SUCCESS, shifts


# [P] Display only: the seed uses plain numbers. Spanish labels from the Spanish Fate Básico.
LADDER: dict[int, Names] = {
    8: Names("Legendario", "Legendary"),
    7: Names("Épico", "Epic"),
    6: Names("Fantástico", "Fantastic"),
    5: Names("Excelente", "Superb"),
    4: Names("Enorme", "Great"),
    3: Names("Grande", "Good"),
    2: Names("Bueno", "Fair"),
    1: Names("Normal", "Average"),
    0: Names("Mediocre", "Mediocre"),
    -1: Names("Malo", "Poor"),
    -2: Names("Terrible", "Terrible"),
}


def ladder_label(value: int, language: str = "es") -> str:
    """Adjective for ``value``; values off the ladder are shown as signed numbers."""
    names = LADDER.get(value)
    signed = f"{value:+d}"
    return f"{names.get(language)} ({signed})" if names else signed
