"""Outcome labels the server posts (the difficulty itself is never among them)."""

from __future__ import annotations

SUCCESS_LABEL = {"es": "Éxito", "en": "Success"}
FAILURE_LABEL = {"es": "Fallo", "en": "Failure"}
UNSETTLING_LABEL = {"es": "Algo inquietante ocurre", "en": "Something unsettling happens"}


def outcome_label(success: bool, language: str = "es") -> str:
    labels = SUCCESS_LABEL if success else FAILURE_LABEL
    return labels["en"] if language.startswith("en") else labels["es"]
