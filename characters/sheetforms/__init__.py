"""The creation/edit form of each ruleset's sheet. Each module exposes ``SheetForm`` with
``SheetForm(data=None, *, sheet=None, settings=None, is_npc=False)`` and ``to_sheet() -> dict``."""

from __future__ import annotations

from typing import Any

from systems.registry import import_ruleset_part, ruleset_module


def sheet_form_for(ruleset_key: str) -> type[Any]:
    return import_ruleset_part("characters.sheetforms", ruleset_key).SheetForm  # type: ignore[no-any-return]


def sheetform_template(ruleset_key: str) -> str:
    """The ruleset's own layout for its form, if it has one (else the generic page renders field by field)."""
    return f"characters/sheetforms/{ruleset_module(ruleset_key)}.html"
