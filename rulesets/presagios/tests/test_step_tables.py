"""Invariants of Presagios' step tables over any state (hypothesis): an open procedure always waits for
someone, a pending +1 threat question blocks every other step, nothing is offered once closed, and the GM's
steps are the GM's alone."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rulesets.kit.table import GM
from rulesets.presagios.procedures.challenge import CHALLENGE, ChallengeState
from rulesets.presagios.procedures.common import ThreatGain
from rulesets.presagios.procedures.conflict import CONFLICT, ConflictState, SideFacts
from systems.presagios import challenge as ch
from systems.presagios import conflict as cf
from systems.presagios.dice import CoreRoll
from systems.presagios.qualities import Force
from systems.presagios.sheet import Kind
from systems.registry import Names

LABEL = Names("Acción", "Action")
NO_TABLE: Any = None  # the waiting lines of these tables read the state only
GM_STEPS = {"judge_traits", "declare_danger", "finalize", "cancel", "break_tie", "threat_gain"}
actors = st.sampled_from([GM, 11, 12])
gains = st.none() | st.just(ThreatGain(character_id=1, name="Lucía"))


@st.composite
def attempts(draw: Any) -> ch.Attempt:
    rolled = draw(st.booleans())
    roll = CoreRoll((6, 1), 6, 1, 0, 6) if rolled else None
    return ch.Attempt(
        roll=roll,
        threat_at_roll=0,
        natural_success=draw(st.none() | st.booleans()),
        forced=draw(st.none() | st.sampled_from(list(Force))),
        damage_settled=draw(st.booleans()),
    )


@st.composite
def challenge_states(draw: Any) -> ChallengeState:
    stage = draw(st.sampled_from([s for s in ch.ChallengeStage if s is not ch.ChallengeStage.DRAFT]))
    listed = draw(st.lists(attempts(), min_size=0 if stage is ch.ChallengeStage.AWAITING_ROLL else 1, max_size=3))
    machine = ch.ChallengeFlow(
        "reto:x", "1", "c1", 0, stage=stage, dangerous=draw(st.booleans()), retry_paid=draw(st.booleans()),
        attempts=tuple(listed),
    )  # fmt: skip
    return ChallengeState(
        character_id=1,
        character_name="Lucía",
        characteristic=LABEL,
        roller=draw(actors),
        players=[11, 12],
        locked=draw(st.booleans()),
        discards_damage=draw(st.booleans()),
        machine=machine,
        damage_by=draw(st.none() | actors),
        threat_gain=draw(gains),
    )


def _side(character_id: int, roller: Any, kind: Kind) -> SideFacts:
    return SideFacts(character_id=character_id, name=f"n{character_id}", kind=kind, roller=roller, characteristic=LABEL)


@st.composite
def conflict_states(draw: Any) -> ConflictState:
    stage = draw(st.sampled_from([s for s in cf.ConflictStage if s is not cf.ConflictStage.DRAFT]))
    a = cf.Participant("1", Kind.PRINCIPAL, "c1")
    b = cf.Participant("2", draw(st.sampled_from(list(Kind))), "c1")
    machine = cf.ConflictFlow(
        "conflict:1", a, b, stage=stage, dangerous=draw(st.booleans()),
        forced_winner=draw(st.none() | st.sampled_from(["a", "b"])),
    )  # fmt: skip
    ready = [] if stage is not cf.ConflictStage.AWAITING_ROLLS else draw(st.sampled_from([[], ["a"], ["b"]]))
    return ConflictState(
        a=_side(1, 11, Kind.PRINCIPAL),
        b=_side(2, draw(actors), b.kind),
        players=[11, 12],
        machine=machine,
        ready=ready,
        damage_by=draw(st.none() | actors),
        threat_gain=draw(gains),
    )


def _check(procedure: Any, state: Any, closed: bool) -> None:
    offered = {step.key: who for step, who in procedure.offered(state)}
    waiting = procedure.waiting(state, NO_TABLE)
    if state.threat_gain is not None:
        assert offered == {"threat_gain": {GM}}
    elif closed:
        assert offered == {}
    else:
        assert waiting, "an open procedure waits for someone"
    for key in GM_STEPS & set(offered):
        assert offered[key] == {GM}, key
    assert {w.step for w in waiting} <= set(offered)


@settings(max_examples=300, deadline=None)
@given(challenge_states())
def test_challenge_table_invariants(state: ChallengeState) -> None:
    closed = state.machine.stage in (ch.ChallengeStage.CLOSED, ch.ChallengeStage.CANCELLED)
    _check(CHALLENGE, state, closed)
    assert CHALLENGE.load_state(state.model_dump(mode="json")) == state  # the stored JSON reads back the same


@settings(max_examples=300, deadline=None)
@given(conflict_states())
def test_conflict_table_invariants(state: ConflictState) -> None:
    closed = state.machine.stage in (cf.ConflictStage.CLOSED, cf.ConflictStage.CANCELLED)
    _check(CONFLICT, state, closed)
    dumped = state.model_dump(mode="json")
    assert "threat_at_roll" not in dumped["machine"] and "omen_hit" not in dumped["machine"]
