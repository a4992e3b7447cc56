"""fate-sotc §8.16 remaining source examples and helpers; plus the registry and sheet validation."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

import systems.fate_sotc as fate_sotc_rules
from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.fate_sotc.combine import combine_modifier
from systems.fate_sotc.ladder import ladder_label, skill_line
from systems.fate_sotc.minions import MinionGroup, apply_minion_hit, minion_group_count
from systems.fate_sotc.movement import range_band
from systems.fate_sotc.resolution import quality_after, resolve_simple
from systems.fate_sotc.settings import DEFAULT_SETTINGS, Enforcement, FateSotcSettings
from systems.fate_sotc.sheet import FateSotcSheet, creation_problems, new_character, validate_creation
from tests.systems.vectors import vector


@vector("fate-sotc-154")
def test_sheet_lines(vector_id: str) -> None:
    assert skill_line(DEFAULT_SETTINGS.skill_label("pilot"), 3) == "Piloto: Bueno (+3)"
    assert skill_line(DEFAULT_SETTINGS.skill_label("academics"), -1) == "Educación: Pobre (-1)"
    npc = FateSotcSheet(name="x", kind="npc", skills={"pilot": 3, "academics": -1})
    assert npc.skill_lines() == ["Piloto: Bueno (+3)", "Educación: Pobre (-1)"]


@vector("fate-sotc-155")
def test_two_steps_above(vector_id: str) -> None:
    out = resolve_simple(5, 3)
    assert (out.success, out.shifts) == (True, 2)


@vector("fate-sotc-156")
def test_germ_theory_to_a_dark_god(vector_id: str) -> None:
    assert combine_modifier(4, [(2, "restrict")]) == -1
    assert combine_modifier(4, [(5, "restrict")]) == 0


@vector("fate-sotc-157")
def test_minion_groups_per_opponent(vector_id: str) -> None:
    assert (minion_group_count(12, 3), minion_group_count(12, 2)) == (3, 2)


@vector("fate-sotc-158")
def test_range_band(vector_id: str) -> None:
    assert [range_band(d) for d in (0, 1, 2, 3)] == ["touch", "throw", "shoot", "shoot"]


@vector("fate-sotc-159")
def test_shifts_raise_quality(vector_id: str) -> None:
    quality = quality_after(1, 2)
    assert (quality, ladder_label(quality)) == (3, "Bueno (+3)")


@vector("fate-sotc-160")
def test_minion_group_takes_a_hit(vector_id: str) -> None:
    group = MinionGroup(quality=1, size=5)
    assert group.rating == 3
    after, out = apply_minion_hit(group, 3)
    assert (out, after.size, after.rating) == (3, 2, 2)


# --- Registry and sheet ---


def test_ruleset_is_registered() -> None:
    ruleset = fate_sotc_rules.RULESET
    assert {k.key for k in ruleset.roll_kinds} == {
        "effort",
        "simple",
        "opposed",
        "attack",
        "maneuver",
        "block",
        "sprint",
    }
    assert all(k.request_model is not None for k in ruleset.roll_kinds)
    assert {p.key for p in ruleset.pools} == {"fate_points", "fate_points_pending"}
    assert {t.key for t in ruleset.tracks} == {"health", "composure", "consequences"}
    assert isinstance(ruleset.default_settings(), FateSotcSettings)
    result = ruleset.resolve("simple", {"skill_rating": 3, "difficulty": 3}, ScriptedDice([5, 6, 3, 1]))
    assert result.outcome.shifts == 1
    with pytest.raises(RulesError):
        ruleset.resolve("nope", {}, ScriptedDice([]))


def test_operations_apply_generically() -> None:
    ruleset = fate_sotc_rules.RULESET
    sheet = FateSotcSheet(name="x", fate_points=2)
    op = ruleset.operation("declaration")
    with pytest.raises(RulesError) as err:
        op.apply(sheet, op.params_model(), None)
    assert err.value.code == "gm_approval_required"
    after = op.apply(sheet, op.params_model.model_validate({"gm_approved": True}), None)
    assert (sheet.fate_points, after.fate_points) == (2, 1)
    hit = ruleset.operation("take_hit")
    marked = hit.apply(sheet, hit.params_model.model_validate({"track": "health", "hit": 2}), None)
    assert marked.stress.health[1] and not sheet.stress.health[1]
    buy_off = ruleset.operation("compel_buy_off")
    with pytest.raises(RulesError) as err:
        buy_off.apply(sheet, buy_off.params_model(amount=3), None)
    assert err.value.code == "compel_not_refusable"


def test_sheet_validation() -> None:
    with pytest.raises(ValidationError):
        FateSotcSheet(name="x", fate_points=-1)
    with pytest.raises(ValidationError):
        FateSotcSheet(name="x", skills={"pilot": -1})  # PCs cannot store negative skills
    pyramid = {"a": 5, "b": 4, "c": 4, "d": 3, "e": 3, "f": 3, "g": 2, "h": 2, "i": 2, "j": 2}
    pyramid |= {"k": 1, "l": 1, "m": 1, "n": 1, "o": 1}
    full = FateSotcSheet(
        name="x",
        skills=pyramid,
        aspects=tuple({"id": f"a{i}", "text": f"Aspecto {i}"} for i in range(10)),
        stunts=tuple({"name": f"Virtud {i}"} for i in range(5)),
    )
    assert creation_problems(full) == ()
    sparse = FateSotcSheet(name="x", skills={"pilot": 6})
    assert set(validate_creation(sparse)) >= {"skill_pyramid_mismatch", "skill_above_creation_max"}
    with pytest.raises(RulesError):
        validate_creation(sparse, FateSotcSettings(skill_pyramid_enforcement=Enforcement.STRICT))
    created = new_character("Opie", skills={"endurance": 5}, aspects=[{"id": "a", "text": "Motero"}])
    assert len(created.stress.health) == 8 and created.fate_points == 1
