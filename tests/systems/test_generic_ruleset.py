"""The ``generic`` ruleset as the rest of Tintero sees it through the registry."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

import systems.generic as generic_rules
from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.generic import GenericSettings, GenericSheet, NotationRequest, RollResult


def test_registered_with_names_and_one_roll_kind() -> None:
    ruleset = generic_rules.RULESET
    assert ruleset.names.es == "Genérico" and ruleset.names.en == "Generic"
    assert [kind.key for kind in ruleset.roll_kinds] == ["notation"]
    assert ruleset.roll_kind("notation").request_model is NotationRequest
    assert ruleset.pools == () and ruleset.tracks == () and ruleset.operations == ()
    assert ruleset.default_settings() == GenericSettings()


def test_resolve_accepts_a_request_model_or_untrusted_json() -> None:
    ruleset = generic_rules.RULESET
    assert ruleset.resolve is not None
    request = NotationRequest(expression="1d20+5", label="ataque")
    result = ruleset.resolve("notation", request, ScriptedDice([12]))
    assert isinstance(result, RollResult)
    assert result.total == 17 and result.label == "ataque"
    result = ruleset.resolve("notation", {"expression": " 4dF "}, ScriptedDice([3, 3, 3, 3]), GenericSettings())
    assert result.total == 4


def test_resolve_refuses_unknown_kinds_and_bad_requests() -> None:
    ruleset = generic_rules.RULESET
    assert ruleset.resolve is not None
    with pytest.raises(RulesError) as caught:
        ruleset.resolve("ladder", {"expression": "1d6"}, ScriptedDice([1]))
    assert caught.value.code == "unknown_roll_kind"
    with pytest.raises(ValidationError):
        ruleset.resolve("notation", {"expression": "1d6", "extra": 1}, ScriptedDice([1]))
    with pytest.raises(RulesError) as caught:
        ruleset.resolve("notation", {"expression": "1d6" * 100}, ScriptedDice([]))
    assert caught.value.code == "notation_too_long"


def test_sheet_is_free_form_notes() -> None:
    sheet = GenericSheet.model_validate({"notes": "  Elfa, arquera.  "})
    assert sheet.notes == "Elfa, arquera."
    assert GenericSheet().notes == ""
    with pytest.raises(ValidationError):
        GenericSheet.model_validate({"notes": "x", "hp": 3})
    with pytest.raises(ValidationError):
        sheet.notes = "otra"  # type: ignore[misc]


def test_settings_are_empty_and_strict() -> None:
    assert GenericSettings().model_dump() == {}
    with pytest.raises(ValidationError):
        GenericSettings.model_validate({"house_rule": True})
