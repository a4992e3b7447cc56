"""The one error type of the rules: a stable code plus a message in Spanish and English."""

from __future__ import annotations

from typing import Any


class RulesError(Exception):
    """A request the rules refuse. ``code`` is stable (API clients match on it); messages are for people."""

    def __init__(self, code: str, message_es: str, message_en: str, **details: Any) -> None:
        super().__init__(message_en)
        self.code = code
        self.message_es = message_es
        self.message_en = message_en
        self.details = details

    def message(self, language: str = "es") -> str:
        """The message in ``language`` (``es`` or ``en``; anything else falls back to Spanish)."""
        return self.message_en if language.startswith("en") else self.message_es

    def __repr__(self) -> str:
        return f"RulesError({self.code!r}, {self.message_en!r})"
