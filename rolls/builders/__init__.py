"""The composer's roll builder of each ruleset, filled from the character's sheet.

Each module ``rolls.builders.<module>`` exposes ``RollBuilderForm(data=None, *, prefix="roll",
characters=[...], is_gm=False, settings=None)`` (a Django form) with ``roll_specs() -> list[RollSpec]``
(empty when the writer asked for no roll), and a template ``rolls/builders/<module>.html``.
Dice notation is always available besides, in the composer itself.
"""

from __future__ import annotations

from typing import Any

from systems.registry import import_ruleset_part, ruleset_module


def builder_for(ruleset_key: str) -> tuple[type[Any], str] | None:
    """The builder form class and its template, or None (generic games, or a builder not written yet)."""
    if ruleset_key == "generic":
        return None  # dice notation is in the composer itself
    module = import_ruleset_part("rolls.builders", ruleset_key, optional=True)
    if module is None:
        return None
    return module.RollBuilderForm, f"rolls/builders/{ruleset_module(ruleset_key)}.html"
