"""Fixtures of the rolls tests."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from rulesets import registry
from rulesets.kit.procedures import Procedure
from tests.rolls.duel import DUEL, DuelState


@pytest.fixture
def duel() -> Iterator[Procedure[DuelState]]:
    """The table's game (Presagios) with the duel procedure added, for one test."""
    plugin = registry.plugin("presagios")
    templates = dataclasses.replace(
        plugin.templates, procedures={**plugin.templates.procedures, "duel": "rolls/_empty.html"}
    )
    registry._PLUGINS["presagios"] = dataclasses.replace(
        plugin, procedures={**plugin.procedures, "duel": DUEL}, templates=templates
    )
    try:
        yield DUEL
    finally:
        registry._PLUGINS["presagios"] = plugin
