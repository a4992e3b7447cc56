"""fate-sotc §8.9 initiative and the turn flow of an exchange."""

from __future__ import annotations

import pytest

from systems.errors import RulesError
from systems.fate_sotc.conflict import (
    Participant,
    declare_full_defense,
    end_exchange,
    full_defense_modifier,
    hold_action,
    initiative_order,
    rotating_order,
    start_exchange,
    take_turn,
)
from systems.fate_sotc.resolution import ConflictType
from systems.fate_sotc.settings import FateSotcSettings, InitiativeMode
from tests.systems.vectors import vector


def keys(order: tuple[Participant, ...]) -> list[str]:
    return [p.key for p in order]


@vector("fate-sotc-78")
def test_physical_initiative_by_alertness_then_resolve(vector_id: str) -> None:
    people = [
        Participant("A", {"alertness": 3, "resolve": 1}),
        Participant("B", {"alertness": 3, "resolve": 2}),
        Participant("C", {"alertness": 4, "resolve": 0}),
        Participant("D", {"alertness": 1, "resolve": 5}),
    ]
    assert keys(initiative_order(people, ConflictType.PHYSICAL)) == ["C", "B", "A", "D"]


@vector("fate-sotc-79")
def test_social_initiative_by_empathy(vector_id: str) -> None:
    people = [Participant("A", {"empathy": 2}), Participant("B", {"empathy": 4}), Participant("C", {})]
    assert keys(initiative_order(people, ConflictType.SOCIAL)) == ["B", "A", "C"]


@vector("fate-sotc-80")
def test_gm_final_tiebreak(vector_id: str) -> None:
    people = [Participant("E", {"alertness": 2, "resolve": 2}), Participant("F", {"alertness": 2, "resolve": 2})]
    assert keys(initiative_order(people, ConflictType.PHYSICAL, gm_tiebreak=["F", "E"])) == ["F", "E"]


@vector("fate-sotc-81")
def test_minion_group_initiative(vector_id: str) -> None:
    group = Participant("G", kind="minion_group", quality=3)
    pc = Participant("H", {"alertness": 2})
    assert keys(initiative_order([pc, group], ConflictType.PHYSICAL)) == ["G", "H"]
    led = Participant("G", kind="minion_group", quality=3, leader_skills={"alertness": 4})
    assert led.initiative_value("alertness") == 4


@vector("fate-sotc-82")
def test_rotating_order(vector_id: str) -> None:
    base = ["A", "B", "C", "D"]
    expected = [
        ("A", "B", "C", "D"),
        ("B", "C", "D", "A"),
        ("C", "D", "A", "B"),
        ("D", "A", "B", "C"),
        ("A", "B", "C", "D"),
    ]
    assert [rotating_order(base, n) for n in range(1, 6)] == expected
    state = start_exchange(base, settings=FateSotcSettings(initiative_mode=InitiativeMode.ROTATING))
    assert end_exchange(state).order == ("B", "C", "D", "A")


@vector("fate-sotc-83")
def test_skill_mode_keeps_the_order(vector_id: str) -> None:
    state = start_exchange(["C", "B", "A"])
    for who in ("C", "B", "A"):
        state = take_turn(state, who)
    second = end_exchange(state)
    assert second.exchange_no == 2
    assert second.order == state.order == ("C", "B", "A")


@vector("fate-sotc-84")
def test_held_action(vector_id: str) -> None:
    state = start_exchange(["A", "B", "C"])
    state = hold_action(state, "A")
    with pytest.raises(RulesError) as err:
        take_turn(state, "C")  # C's turn has not come
    assert err.value.code == "not_your_turn"
    state = take_turn(state, "B")
    state = take_turn(state, "A")  # after B's turn ends, before C starts
    state = take_turn(state, "C")
    assert state.turns == ("B", "A", "C")
    assert end_exchange(state).order == ("A", "B", "C")


@vector("fate-sotc-85")
def test_unlisted_alertness_is_zero(vector_id: str) -> None:
    people = [Participant("X", {"resolve": 3}), Participant("Y", {"alertness": 1, "resolve": 0})]
    assert keys(initiative_order(people, ConflictType.PHYSICAL)) == ["Y", "X"]


def test_full_defense_forfeits_the_action_and_lapses() -> None:
    state = start_exchange(["A", "B"])
    state = declare_full_defense(state, "B")
    assert full_defense_modifier(state, "B")[0].value == 2
    state = take_turn(state, "A")
    assert state.next_up is None  # B gave up the action
    with pytest.raises(RulesError):
        declare_full_defense(state, "A")  # already acted
    assert full_defense_modifier(end_exchange(state), "B") == ()
