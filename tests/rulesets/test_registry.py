"""The registry of games: filled at startup from each ruleset app, complete, refusing incomplete plugins."""

from __future__ import annotations

import dataclasses

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.utils import translation

from campaigns.models import Campaign
from rulesets import registry
from rulesets.registry import RulesetTemplates
from systems.errors import RulesError
from tests.rulesets.shipped import SHIPPED_GAMES

GAMES = {"fate-sotc", "fate-accelerated", "event", "presagios", "dont-rest-your-head", "generic"}
assert GAMES == SHIPPED_GAMES


def test_every_game_registers_at_startup_with_its_parts() -> None:
    plugins = registry.plugins()
    assert set(plugins) >= GAMES
    for key, plugin in plugins.items():
        assert plugin.key == key == plugin.rules.key
        assert plugin.rules.names.es and plugin.rules.names.en
        assert plugin.rules.roll_kinds and plugin.rules.resolve is not None, key
        assert plugin.rules.sheet_model is not None and plugin.rules.settings_model is not None, key
        for kind in plugin.rules.roll_kinds:
            assert kind.request_model is not None, (key, kind.key)
        plugin.rules.default_settings()  # the spec's defaults validate


def test_campaign_ruleset_choices_come_from_the_registry() -> None:
    field = Campaign._meta.get_field("ruleset")
    assert {key for key, _label in field.choices} == set(registry.plugins())  # type: ignore[union-attr]
    with translation.override("es"):
        assert Campaign(ruleset="dont-rest-your-head").get_ruleset_display() == "No te Duermas"
    with translation.override("en"):
        assert Campaign(ruleset="dont-rest-your-head").get_ruleset_display() == "Don't Rest Your Head"


def test_unknown_keys_are_refused_clearly() -> None:
    with pytest.raises(RulesError) as exc:
        registry.plugin("dnd5e")
    assert exc.value.code == "unknown_ruleset"
    with pytest.raises(RulesError) as exc:
        registry.plugin("fate-sotc").procedure("fireball")
    assert exc.value.code == "unknown_procedure"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"sheet": None}, "lacks its required part 'sheet'"),
        ({"rolls": None}, "lacks its required part 'rolls'"),
        ({"rules": None}, "lacks its required part 'rules'"),
        ({"sheet_form": object}, "its part 'sheet_form' lacks to_sheet"),
        ({"templates": RulesetTemplates()}, "lacks its part 'templates.builder'"),
    ],
)
def test_an_incomplete_plugin_is_refused_naming_the_part(change: dict[str, object], message: str) -> None:
    plugin = registry.plugin("fate-accelerated")
    parts: dict[str, object] = {"key": "broken-game", "rules": dataclasses.replace(plugin.rules, key="broken-game")}
    broken = dataclasses.replace(plugin, **(parts | change))  # type: ignore[arg-type]
    with pytest.raises(ImproperlyConfigured, match=message):
        registry.register(broken)
    assert "broken-game" not in registry.plugins()


def test_a_procedure_without_its_template_is_refused() -> None:
    plugin = registry.plugin("fate-accelerated")
    templates = dataclasses.replace(plugin.templates, procedures={})
    with pytest.raises(ImproperlyConfigured, match=r"procedure 'action' lacks its part 'templates.procedures"):
        registry.register(dataclasses.replace(plugin, templates=templates))


def test_a_second_plugin_under_a_taken_key_is_refused() -> None:
    twin = dataclasses.replace(registry.plugin("generic"))
    with pytest.raises(ImproperlyConfigured, match="registered twice"):
        registry.register(twin)


def test_the_system_check_names_a_missing_template(capsys: pytest.CaptureFixture[str]) -> None:
    plugin = registry.plugin("generic")
    broken = dataclasses.replace(plugin, templates=RulesetTemplates(sheet="nowhere/sheet.html"))
    registry._PLUGINS["generic"] = broken
    try:
        with pytest.raises(Exception, match=r"nowhere/sheet\.html"):
            call_command("check")
    finally:
        registry._PLUGINS["generic"] = plugin
    call_command("check")  # and the real plugins pass
