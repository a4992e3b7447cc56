"""Spec §8.2: the omen threat check (vectors presagios-15..24)."""

from __future__ import annotations

from systems.dice import ScriptedDice
from systems.presagios import challenge as ch
from systems.presagios import conflict as cf
from systems.presagios.settings import DEFAULT_SETTINGS, OmenThresholdRule, PresagiosSettings
from systems.presagios.sheet import Kind
from systems.presagios.threat import threat_after_omens
from tests.systems.test_presagios_fixtures import npc, principal, table, with_c1
from tests.systems.vectors import vector

FLOOR_HALF = PresagiosSettings(omen_threshold_rule=OmenThresholdRule.FLOOR_HALF)

# vector: [(threat before, omens, threat after), ...]
CHECKS = {
    "presagios-15": [(4, 2, 5)],
    "presagios-16": [(5, 2, 5)],
    "presagios-17": [(0, 0, 0)],
    "presagios-18": [(0, 1, 1)],
    "presagios-19": [(1, 1, 2)],
    "presagios-20": [(2, 5, 3)],
    "presagios-21": [(9, 4, 9), (9, 5, 10)],
    "presagios-24": [(8, 3, 8), (8, 4, 9)],
}


@vector(*CHECKS)
def test_omen_check_half_the_threat(vector_id: str) -> None:
    for before, omens, after in CHECKS[vector_id]:
        assert threat_after_omens(before, omens, DEFAULT_SETTINGS) == after


@vector("presagios-16")
def test_floor_half_alternative(vector_id: str) -> None:
    assert threat_after_omens(5, 2, FLOOR_HALF) == 6


@vector("presagios-15")
def test_challenge_roll_runs_the_check_once(vector_id: str) -> None:
    flow = ch.confirm_setup(ch.open_challenge("x", "ana", "c1", difficulty=3))
    flow, state = ch.roll_challenge(flow, table(4, ana=with_c1(principal(), 3)), ScriptedDice([1, 1, 5]))
    assert flow.last.omen_hit and state.threat == 5


def _conflict(state, a_faces, b_faces):  # type: ignore[no-untyped-def]
    a = cf.Participant.of(state, "a", "c1")
    b = cf.Participant.of(state, "b", "c1")
    flow = cf.confirm_setup(cf.open_conflict("k", a, b))
    flow, state = cf.post_roll(flow, state, "a", ScriptedDice(a_faces))
    assert flow.public()["pending"][0] == {"sealed": True}  # type: ignore[index]
    return cf.post_roll(flow, state, "b", ScriptedDice(b_faces))


@vector("presagios-22")
def test_conflict_combines_both_sides_omens_once(vector_id: str) -> None:
    state = table(4, a=with_c1(principal(), 3), b=npc(Kind.MONSTRUO))
    flow, state = _conflict(state, [1, 4, 6], [1, 2, 5])
    assert flow.counted_omens() == (1, 1)
    assert flow.winner == "a"
    assert state.threat == 5  # one check for the whole conflict: +1, not +2


@vector("presagios-23")
def test_conflict_combined_below_half(vector_id: str) -> None:
    state = table(3, a=with_c1(principal(), 2), b=npc(Kind.SECUNDARIO, (2, 2, 2)))
    flow, state = _conflict(state, [1, 5], [3, 4])
    assert sum(flow.counted_omens()) == 1
    assert not flow.omen_hit and state.threat == 3
