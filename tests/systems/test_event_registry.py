"""The Event ruleset as the rest of Tintero sees it: registry contents, settings defaults, operations,
the ``resolve`` dispatcher, and import without Django."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from pydantic import ValidationError

import systems.event as event_rules
from systems.dice import ScriptedDice, SeededDice
from systems.errors import RulesError
from systems.event.action import ActionState, Choice, choose, roll_action, start_action
from systems.event.pool import PoolBreakdown
from systems.event.settings import EventSettings
from systems.event.sheet import EventSheet, Skill
from systems.registry import Scope

ROOT = Path(__file__).resolve().parents[2]

SPEC_DEFAULTS = {
    "core": {
        "narration_veto": False,
        "veto_window_hours": 24,
        "veto_response_hours": 24,
        "veto_voter_scope": "campaign",
        "creation_q12_order": "fixed",
        "max_improvements_per_skill": 6,
    },
    "optional": {
        "skill_cap": {"enabled": False, "max_picks": 6},
        "talent": {"enabled": False, "in_desafio_tiebreaks": True},
        "exploding_dice": {
            "enabled": False,
            "scope": {"actions", "interactions"},
            "chain": True,
            "max_extra_dice": 100,
        },
        "total_challenge": {"enabled": False},
        "progress": {"enabled": False, "trigger": "gm", "subject_to_veto": True},
        "n_sided": {"enabled": False, "sides": 10, "scale": None, "gate_basis": "value"},
        "communal_pool": {"enabled": False, "veto_on_take": False},
        "reactions": {"enabled": False},
        "reckless_roll": {"enabled": False, "allowed_on": {"action_roll", "desafio_tiebreak"}},
        "wild_die": {"enabled": False, "forces_roll": True},
    },
    "interpretations": {
        "empty_left_tie": "draw",
        "empty_right_tie": "joint",
        "same_outcome_order": "seat",
        "overruled_interaction_narration": "gm",
    },
    "house_rules": {"skill_categories": ()},
}


def test_registered_ruleset() -> None:
    ruleset = event_rules.RULESET
    assert ruleset.names.es == "Event" and ruleset.sheet_model is EventSheet
    assert {k.key for k in ruleset.roll_kinds} == {"action", "fist_tiebreak", "order_roll"}
    assert all(k.request_model is not None for k in ruleset.roll_kinds)
    assert [(p.key, p.scope) for p in ruleset.pools] == [("communal", Scope.CAMPAIGN)]
    assert ruleset.extras["veto_threshold"] == 2
    assert "Valerio de Sanctis" in ruleset.extras["credits"].es


def test_import_without_django() -> None:
    code = "import sys, systems.event; systems.event.RULESET; assert 'django' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_settings_defaults_follow_the_spec() -> None:
    settings = EventSettings.model_validate({"ruleset": "event", "ruleset_version": "1.2.181020"})
    assert settings.model_dump(exclude={"ruleset", "ruleset_version"}) == SPEC_DEFAULTS
    assert (settings.sides, settings.max_picks, settings.gate_basis) == (6, 6, "value")
    with pytest.raises(ValidationError):
        EventSettings.model_validate({"optional": {"skill_cap": {"max_picks": 21}}})


def test_operations_apply_through_the_registry() -> None:
    ruleset = event_rules.RULESET
    settings = EventSettings.model_validate({"optional": {"communal_pool": {"enabled": True}}})
    keys = {op.key for op in ruleset.operations}
    assert {"add_creation_pick", "take_communal_die", "value_reaction", "add_progress_pick"} <= keys
    take = ruleset.operation("take_communal_die")
    assert take.target is Scope.CAMPAIGN and take.params_model is not None
    assert take.apply(3, take.params_model.model_validate({}), settings) == 2
    pick = ruleset.operation("add_creation_pick")
    assert pick.params_model is not None
    sheet = pick.apply(EventSheet(), pick.params_model.model_validate({"kind": "NEW_SKILL", "skill": "Luchar"}), None)
    assert sheet.skills == (Skill(name="Luchar"),)


def test_resolve_dispatch_and_errors() -> None:
    ruleset = event_rules.RULESET
    assert ruleset.resolve is not None
    state = ruleset.resolve("action", {"difficulty": 4, "skill_dice": 1}, ScriptedDice([]))
    assert state.offered == (Choice.TAKE_FAILURE, Choice.ROLL)
    with pytest.raises(RulesError) as err:
        ruleset.resolve("nope", {}, ScriptedDice([]))
    assert err.value.code == "unknown_roll_kind"
    with pytest.raises(ValidationError):
        ruleset.resolve("action", {"difficulty": 0}, ScriptedDice([]))


@pytest.mark.parametrize("seed", range(20))
def test_fast_roll_path_equals_the_step_by_step_path(seed: int) -> None:
    settings = EventSettings.model_validate(
        {
            "optional": {
                "talent": {"enabled": True},
                "reckless_roll": {"enabled": True},
                "exploding_dice": {"enabled": True},
            }
        }
    )
    pool = PoolBreakdown(skill_dice=seed % 4, talent_built=seed % 2 == 0)
    difficulty = 6 if seed % 3 else 5
    fast = roll_action(pool, difficulty, SeededDice(seed), settings)
    slow = choose(start_action(pool, difficulty, settings), Choice.ROLL, SeededDice(seed))
    assert fast == slow
    assert set(vars(fast)) == {f.name for f in fields(ActionState)}
