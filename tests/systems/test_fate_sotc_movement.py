"""fate-sotc §8.6 combining skills, §8.7 supplemental actions and movement, §8.8 push and throw."""

from __future__ import annotations

from systems.fate_sotc.combine import combine_modifier
from systems.fate_sotc.movement import (
    disarm_pickup_modifier,
    max_push_zones,
    max_throw_zones,
    push_cost,
    sprint_reach,
    supplemental_modifier,
    supplemental_move_modifier,
    throw_cost,
)
from systems.fate_sotc.resolution import effort, resolve_simple
from systems.fate_sotc.rolls import roll_sprint
from systems.fate_sotc.settings import CombineRule, FateSotcSettings, ThrowCostRule
from tests.systems.test_fate_sotc_support import scripted
from tests.systems.vectors import vector

SUM_CLAMP = FateSotcSettings(combine_rule=CombineRule.SUM_CLAMP)

COMBINE = {
    "fate-sotc-48": (3, [(4, "modify")], 1, None),
    "fate-sotc-49": (3, [(2, "modify")], -1, None),
    "fate-sotc-50": (3, [(3, "modify")], 0, None),
    "fate-sotc-51": (3, [(1, "complement")], 0, None),
    "fate-sotc-52": (3, [(5, "complement")], 1, None),
    "fate-sotc-53": (3, [(5, "restrict")], 0, None),
    "fate-sotc-54": (3, [(1, "restrict")], -1, None),
    "fate-sotc-55": (3, [(2, "restrict"), (4, "complement")], 0, 0),
    "fate-sotc-56": (2, [(4, "complement"), (5, "complement")], 1, None),
    "fate-sotc-57": (4, [(1, "modify"), (2, "restrict")], -1, None),
    "fate-sotc-58": (2, [(4, "complement"), (5, "modify"), (1, "restrict")], 0, 1),
    "fate-sotc-60": (3, [(0, "complement")], 0, None),
}


@vector(*COMBINE)
def test_combine_modifier(vector_id: str) -> None:
    primary, secondaries, expected, expected_sum_clamp = COMBINE[vector_id]
    assert combine_modifier(primary, secondaries) == expected
    if expected_sum_clamp is not None:
        assert combine_modifier(primary, secondaries, SUM_CLAMP) == expected_sum_clamp


@vector("fate-sotc-59")
def test_knife_on_a_rolling_log(vector_id: str) -> None:
    mod = combine_modifier(4, [(2, "restrict")])
    assert mod == -1
    assert effort(4, 0) + mod == 3


SUPPLEMENTAL = {
    "fate-sotc-61": (supplemental_modifier(1), 2),
    "fate-sotc-62": (supplemental_modifier(2), 1),
    "fate-sotc-63": (supplemental_move_modifier(border=2), 0),
}


@vector(*SUPPLEMENTAL)
def test_supplemental_actions(vector_id: str) -> None:
    modifier, expected_effort = SUPPLEMENTAL[vector_id]
    if vector_id == "fate-sotc-63":
        assert modifier == -3
    assert 3 + 0 + modifier == expected_effort


DISARM = {"fate-sotc-64": (2, -3, 0), "fate-sotc-65": (3, -4, -1)}


@vector(*DISARM)
def test_picking_up_a_weapon_after_a_disarm(vector_id: str) -> None:
    shifts, total, expected = DISARM[vector_id]
    mods = [supplemental_modifier(1), disarm_pickup_modifier(shifts)]
    assert mods == [-1, -shifts]
    assert sum(mods) == total
    assert 3 + 0 + sum(mods) == expected  # Puños 3, dice 0


@vector("fate-sotc-66")
def test_disarmed_defense_is_not_penalised(vector_id: str) -> None:
    # Armas is off the table; Atletismo 2 + dice 0, and no disarm modifier applies to defense.
    assert effort(2, 0, ()) == 2


@vector("fate-sotc-67")
def test_carrying_on_a_supplemental_move(vector_id: str) -> None:
    assert supplemental_move_modifier(border=0, carried_weight=2) == -3


@vector("fate-sotc-68")
def test_sprint_reach_from_a_roll(vector_id: str) -> None:
    result = roll_sprint(scripted(1), 2, [0, 0, 0, 0])
    assert result.outcome.shifts == 3
    assert result.zones == 3


SPRINT = {
    "fate-sotc-69": [((4, [0, 2, 0], 0), 2)],
    "fate-sotc-70": [((0, [0, 0], 0), 1), ((0, [1, 0], 0), 0)],
    "fate-sotc-72": [((5, [0, 0, 0], 2), 1)],
}


@vector(*SPRINT)
def test_sprint_reach(vector_id: str) -> None:
    for (shifts, path, weight), reach in SPRINT[vector_id]:
        assert sprint_reach(shifts, path, weight) == reach


@vector("fate-sotc-71")
def test_failed_sprint_still_moves_one_zone(vector_id: str) -> None:
    outcome = resolve_simple(-1, 0)
    assert not outcome.success and outcome.shifts == 0
    assert sprint_reach(outcome.shifts, [0]) == 1
    assert sprint_reach(0, [0], settings=FateSotcSettings(sprint_min_one_zone=False)) == 0


@vector("fate-sotc-73")
def test_throw_a_person_one_zone(vector_id: str) -> None:
    assert throw_cost(2, 1) == 3


@vector("fate-sotc-74")
def test_throw_cost_grows(vector_id: str) -> None:
    assert (throw_cost(2, 2), throw_cost(2, 3)) == (7, 12)
    linear = FateSotcSettings(throw_cost_rule=ThrowCostRule.LINEAR)
    assert (throw_cost(2, 2, linear), throw_cost(2, 3, linear)) == (4, 5)


@vector("fate-sotc-75")
def test_push_cost(vector_id: str) -> None:
    assert (push_cost(2, 1), push_cost(2, 2)) == (3, 4)


@vector("fate-sotc-76")
def test_push_cost_with_border(vector_id: str) -> None:
    assert push_cost(2, 1, borders=[1]) == 4


@vector("fate-sotc-77")
def test_might_attack_by_three(vector_id: str) -> None:
    shifts = 3
    assert push_cost(2, 1) <= shifts and push_cost(2, 2) > shifts
    assert throw_cost(2, 1) <= shifts and throw_cost(2, 2) > shifts
    assert max_push_zones(shifts, 2) == 1
    assert max_throw_zones(shifts, 2) == 1
