"""The binding of every ruleset (see base.py). Each module ``characters.bindings.<module>`` exposes ``BINDING``."""

from __future__ import annotations

from characters.bindings.base import Binding
from systems.registry import import_ruleset_part


def binding_for(ruleset_key: str) -> Binding:
    return import_ruleset_part("characters.bindings", ruleset_key).BINDING  # type: ignore[no-any-return]
