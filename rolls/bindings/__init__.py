"""The roll binding of every ruleset (see base.py). Each module ``rolls.bindings.<module>`` exposes ``BINDING``."""

from __future__ import annotations

from rolls.bindings.base import RollBinding
from systems.registry import import_ruleset_part


def roll_binding_for(ruleset_key: str) -> RollBinding:
    return import_ruleset_part("rolls.bindings", ruleset_key).BINDING  # type: ignore[no-any-return]
