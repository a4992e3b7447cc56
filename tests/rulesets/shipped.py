"""The games Tintero ships (the ruleset apps under ``rulesets/``), as opposed to test-only plugins."""

from __future__ import annotations

import importlib

from django.apps import apps


def _shipped() -> frozenset[str]:
    keys = set()
    for config in apps.get_app_configs():
        if config.name.startswith("rulesets.") and config.name.count(".") == 1:
            keys.add(importlib.import_module(f"{config.name}.plugin").PLUGIN.key)
    return frozenset(keys)


SHIPPED_GAMES = _shipped()
