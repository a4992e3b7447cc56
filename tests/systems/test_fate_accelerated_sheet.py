"""Fate Accelerated: stunts and creation (§9.15), the registry entry and its operations."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

import systems.fate_accelerated as fate_accelerated_rules
from systems.errors import RulesError
from systems.fate_accelerated.actions import Approach
from systems.fate_accelerated.aspects import Severity
from systems.fate_accelerated.operations import GmPool
from systems.fate_accelerated.settings import FaeSettings
from systems.fate_accelerated.sheet import FaeSheet, new_character, validate_sheet
from systems.fate_accelerated.stunts import Stunt
from systems.registry import Scope
from tests.systems.test_fate_accelerated_fixtures import ANA, BRUNO, K1, ana, ana_data, approaches
from tests.systems.vectors import vector

RULESET = fate_accelerated_rules.RULESET


def op(key: str, state: Any, settings: FaeSettings | None = None, **params: Any) -> Any:
    """Apply a registry operation the way a service would: validate params, then apply."""
    operation = RULESET.operation(key)
    assert operation.params_model is not None
    return operation.apply(state, operation.params_model.model_validate(params), settings)


@vector("fate-accelerated-TV-124")
def test_once_per_session_stunt(vector_id: str) -> None:
    sheet = op("use_stunt", ana(), stunt="S2", session=1)
    assert sheet.stunt("S2").last_used_session == 1
    with pytest.raises(RulesError) as err:
        op("use_stunt", sheet, stunt="S2", session=1)
    assert err.value.code == "stunt_already_used"
    assert op("use_stunt", sheet, stunt="S2", session=2).stunt("S2").last_used_session == 2


TEMPLATE_1 = {
    "key": "T",
    "template": "bonus",
    "because": "conozco cada callejón",
    "approach": "sneaky",
    "circumstance": "cuando estoy en el puerto",
}


@vector("fate-accelerated-TV-125")
def test_two_action_stunt_needs_restriction_and_approval(vector_id: str) -> None:
    with pytest.raises(ValidationError):
        Stunt.model_validate({**TEMPLATE_1, "actions": ["create_advantage", "overcome"]})
    ok = Stunt.model_validate(
        {
            **TEMPLATE_1,
            "actions": ["create_advantage", "overcome"],
            "restrictive_circumstance": True,
            "gm_approved": True,
        }
    )
    assert len(ok.actions) == 2
    with pytest.raises(ValidationError):
        Stunt.model_validate({**TEMPLATE_1, "actions": ["attack", "defend"]})


def _new(**over: Any) -> FaeSheet:
    data = ana_data(**over)
    data.pop("refresh")
    data.pop("fate_points")
    return new_character(data)


@vector("fate-accelerated-TV-126")
def test_creation_array_accepted(vector_id: str) -> None:
    sheet = _new(approaches=approaches(3, 2, 2, 1, 1, 0))
    assert sheet.approaches.values() == (3, 2, 2, 1, 1, 0)
    assert sheet.fate_points == sheet.refresh == 3


@vector("fate-accelerated-TV-127")
def test_other_distribution_refused(vector_id: str) -> None:
    with pytest.raises(ValidationError, match="creation array"):
        _new(approaches=approaches(3, 3, 2, 1, 0, 0))


@vector("fate-accelerated-TV-128")
def test_approach_range(vector_id: str) -> None:
    for bad in (approaches(4, 2, 2, 1, 1, 0), approaches(3, 2, 2, 1, 1, -1)):
        with pytest.raises(ValidationError, match="between 0 and"):
            _new(approaches=bad)


def _stunts(n: int) -> list[dict[str, Any]]:
    return [{**TEMPLATE_1, "key": f"T{i}", "actions": ["overcome"]} for i in range(n)]


@vector("fate-accelerated-TV-129")
def test_refresh_from_stunt_count(vector_id: str) -> None:
    assert [_new(stunts=_stunts(n)).refresh for n in (3, 4, 5)] == [3, 2, 1]
    with pytest.raises(ValidationError):
        _new(stunts=_stunts(6))
    with pytest.raises(ValidationError, match="refresh must be 2"):
        validate_sheet(ana_data(stunts=_stunts(4), refresh=3))


@vector("fate-accelerated-TV-130")
def test_required_and_maximum_aspects(vector_id: str) -> None:
    data = ana_data()
    del data["high_concept"]
    with pytest.raises(ValidationError):
        validate_sheet(data)
    with pytest.raises(ValidationError):
        validate_sheet(ana_data(high_concept=""))
    with pytest.raises(ValidationError, match="other character aspects"):
        validate_sheet(ana_data(other_aspects=["a", "b", "c", "d"]))


# --- the registry entry -----------------------------------------------------------------------------


def test_ruleset_contents() -> None:
    assert RULESET.key == "fate-accelerated"
    assert RULESET.sheet_model is FaeSheet and RULESET.settings_model is FaeSettings
    assert {k.key for k in RULESET.roll_kinds} == {"create_advantage", "overcome", "attack", "defend", "fate_dice"}
    assert all(k.request_model is not None for k in RULESET.roll_kinds)
    assert {(p.key, p.scope) for p in RULESET.pools} == {
        ("fate_points", Scope.CHARACTER),
        ("gm_fate_points", Scope.CAMPAIGN),
    }
    assert {(t.key, t.size) for t in RULESET.tracks} == {("stress", 3), ("consequences", 3)}
    assert all(o.params_model is not None for o in RULESET.operations)
    defaults = RULESET.default_settings()
    assert isinstance(defaults, FaeSettings) and defaults.max_helpers == 2 and not defaults.allow_rename_mild


def test_settings_validation() -> None:
    with pytest.raises(ValidationError):
        FaeSettings(refresh_min=4)
    with pytest.raises(ValidationError):
        FaeSettings(unknown_rule=True)  # type: ignore[call-arg]


def test_fate_point_operations_never_go_negative() -> None:
    broke = op("spend_fate_point", ana(), amount=3)
    assert broke.fate_points == 0
    for key, params in (("spend_fate_point", {}), ("refuse_compel", {}), ("adjust_fate_points", {"delta": -1})):
        with pytest.raises(RulesError):
            op(key, broke, **params)
    assert op("accept_compel", broke).fate_points == 1
    assert op("refresh_fate_points", broke).fate_points == 3


def test_absorb_and_recover_operations() -> None:
    hurt = op(
        "absorb_hit",
        ana(),
        owner=ANA,
        attacker=BRUNO,
        shifts=4,
        box=2,
        slots=["mild"],
        texts={"mild": "Torcedura en el tobillo"},
        moment=K1.model_dump(),
    )
    assert hurt.stress == (False, True, False) and hurt.consequences.mild is not None
    healed = op(
        "recover_consequence",
        op("end_scene", hurt),
        severity="mild",
        event="scene_end",
        adventure=1,
        session=1,
        scene=1,
        justification="Venda y reposo",
        gm_confirms=True,
        rest_available=True,
    )
    assert healed.consequences.get(Severity.MILD) is None and healed.stress == (False, False, False)
    conceded = op("concede", hurt, character=ANA, conflict="K1")
    assert conceded.fate_points == 5


def test_gm_pool_operations() -> None:
    on = FaeSettings(gm_fate_point_pool=True)
    with pytest.raises(RulesError) as err:
        op("gm_pool_spend", GmPool(fate_points=1), None)
    assert err.value.code == "gm_pool_disabled"
    pool = op("gm_pool_scene_start", GmPool(), on, pcs_in_scene=3)
    assert pool.fate_points == 3
    pool = op("gm_pool_spend", pool, on, amount=3)
    with pytest.raises(RulesError) as err:
        op("gm_pool_spend", pool, on)
    assert err.value.code == "gm_pool_empty"


def test_sheet_json_round_trip() -> None:
    sheet = ana()
    again = RULESET.sheet_model.model_validate_json(sheet.model_dump_json())  # type: ignore[union-attr]
    assert again == sheet


def test_advanced_sheet() -> None:
    raised = ana_data(approaches=approaches(1, 2, 4, 0, 2, 1), approach_raises=1)
    assert validate_sheet(raised).rating(Approach.SNEAKY) == 4
    with pytest.raises(ValidationError):
        validate_sheet(raised, FaeSettings(advancement_enabled=False))
