"""Spec §8.3: danger, damage and script protection (vectors presagios-25..39)."""

from __future__ import annotations

import pytest

from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.presagios import challenge as ch
from systems.presagios import conflict as cf
from systems.presagios.damage import apply_damage
from systems.presagios.operations import SpendOvercomeParams, spend_overcome
from systems.presagios.points import ThreatGainReason, Use, confirm_threat_gain
from systems.presagios.settings import DEFAULT_SETTINGS, PresagiosSettings, ProtectionCheckTime
from systems.presagios.sheet import Kind, Status
from systems.presagios.table import Table
from systems.presagios.threat import protection_active
from systems.presagios.traits import NamedTrait
from tests.systems.test_presagios_fixtures import npc, principal, table, with_c1
from tests.systems.vectors import vector

AT_ROLL = PresagiosSettings(protection_check_time=ProtectionCheckTime.AT_ROLL)


def _challenge(state: Table, difficulty: int, dangerous: bool = True) -> tuple[ch.ChallengeFlow, Table]:
    flow = ch.open_challenge("Y", "ana", "c1", difficulty=difficulty)
    if dangerous:
        flow, state = ch.declare_dangerous(flow, state)
    return ch.confirm_setup(flow), state


@vector("presagios-25", "presagios-28")
def test_declaring_a_challenge_dangerous(vector_id: str) -> None:
    before, after = {"presagios-25": (5, 4), "presagios-28": (8, 8)}[vector_id]
    flow, state = _challenge(table(before, ana=principal()), 5)
    assert flow.dangerous and state.threat == after


@vector("presagios-26")
def test_danger_with_no_threat_is_rejected(vector_id: str) -> None:
    state = table(0, ana=principal())
    flow = ch.open_challenge("Y", "ana", "c1", difficulty=5)
    with pytest.raises(RulesError) as err:
        ch.declare_dangerous(flow, state)
    assert err.value.code == "NO_THREAT"
    assert state.threat == 0 and not flow.dangerous


@vector("presagios-26")
def test_danger_after_the_roll_is_rejected(vector_id: str) -> None:
    flow, state = _challenge(table(5, ana=principal()), 5, dangerous=False)
    flow, state = ch.roll_challenge(flow, state, ScriptedDice([2, 3, 4]))
    with pytest.raises(RulesError) as err:
        ch.declare_dangerous(flow, state)
    assert err.value.code == "DANGER_AFTER_ROLL"


@vector("presagios-27")
def test_conflict_against_a_monster_is_free(vector_id: str) -> None:
    state = table(0, a=principal(), m=npc(Kind.MONSTRUO))
    flow = cf.open_conflict("k", cf.Participant.of(state, "a", "c1"), cf.Participant.of(state, "m", "c1"))
    flow, state = cf.declare_dangerous(flow, state)
    assert flow.dangerous and not flow.danger_paid and state.threat == 0


@vector("presagios-29", "presagios-30")
def test_failed_dangerous_challenge_damage_and_optional_protection(vector_id: str) -> None:
    protect = vector_id == "presagios-30"
    flow, state = _challenge(table(5, ana=with_c1(principal(overcome=3), 3)), 5)
    assert state.threat == 4
    flow, state = ch.roll_challenge(flow, state, ScriptedDice([1, 2, 4]))
    assert flow.last.roll is not None and flow.last.roll.total == 4 and flow.last.success is False
    assert state.threat == 4  # 1 omen: 2 < 4
    flow, state = ch.finalize(flow, state)
    assert flow.stage is ch.ChallengeStage.DAMAGE_PENDING
    flow, state = ch.settle_damage(flow, state, protect=protect)
    assert flow.stage is ch.ChallengeStage.CLOSED and flow.damage[0].amount == 2
    ana = state.character("ana")
    expected = (3, 2, 5) if protect else (1, 3, 4)
    assert (ana.current_of("c1"), ana.overcome, state.threat) == expected
    assert "Y" in ana.challenge_locks


@vector("presagios-31", "presagios-32", "presagios-33")
def test_damage_that_would_take_a_principal_out(vector_id: str) -> None:
    start, overcome = {"presagios-31": (5, 2), "presagios-32": (8, 2), "presagios-33": (5, 0)}[vector_id]
    flow, state = _challenge(table(start, ana=with_c1(principal(overcome=overcome), 1)), 3)
    flow, state = ch.roll_challenge(flow, state, ScriptedDice([1]))
    assert flow.last.roll is not None and flow.last.roll.total == 1 and flow.last.roll.omens == 1
    assert state.threat == (8 if vector_id == "presagios-32" else 4)  # no omen change
    flow, state = ch.finalize(flow, state)
    flow, state = ch.settle_damage(flow, state)  # the player chooses nothing
    outcome, ana = flow.damage[0], state.character("ana")
    assert outcome.amount == 2
    if vector_id == "presagios-31":  # mandatory protection
        assert outcome.protected and outcome.mandatory
        assert (ana.current_of("c1"), ana.overcome, state.threat) == (1, 1, 5)
        assert ana.status is Status.IN_STORY
        return
    assert ana.current_of("c1") == -1 and ana.status is Status.OUT_OF_STORY
    assert outcome.out_of_story and outcome.threat_gain_proposed and not outcome.protected
    before = state.threat
    assert confirm_threat_gain(state, ThreatGainReason.CHARACTER_OUT).threat == before + 1
    if vector_id == "presagios-32":
        assert before + 1 == 9


def _monster_conflict(settings: PresagiosSettings) -> tuple[cf.ConflictFlow, Table]:
    state = table(7, a=with_c1(principal(overcome=2), 4), m=npc(Kind.MONSTRUO))
    flow = cf.open_conflict("k", cf.Participant.of(state, "a", "c1"), cf.Participant.of(state, "m", "c1"))
    flow, state = cf.declare_dangerous(flow, state, settings)
    assert state.threat == 7
    flow = cf.confirm_setup(flow)
    flow, state = cf.post_roll(flow, state, "a", ScriptedDice([1, 1, 3, 2]), settings)
    flow, state = cf.post_roll(flow, state, "m", ScriptedDice([1, 1, 5]), settings)
    return cf.finalize(flow, state)


@vector("presagios-34")
def test_protection_is_checked_when_damage_lands(vector_id: str) -> None:
    flow, state = _monster_conflict(DEFAULT_SETTINGS)
    a_roll, m_roll = flow.pairs[-1]
    assert (a_roll.total, a_roll.omens, m_roll.total, m_roll.omens) == (3, 2, 5, 2)
    assert flow.winner == "b" and state.threat == 8
    with pytest.raises(RulesError) as err:
        cf.settle_damage(flow, state, protect=True)
    assert err.value.code == "PROTECTION_INACTIVE"
    done, after = cf.settle_damage(flow, state)
    assert done.damage[0].amount == 3 and not done.damage[0].protected
    assert (after.character("a").current_of("c1"), after.character("a").overcome) == (1, 2)
    # under at_roll the threat before the roll (7) decides: the player could have paid
    flow, state = _monster_conflict(AT_ROLL)
    done, after = cf.settle_damage(flow, state, AT_ROLL, protect=True)
    assert (after.character("a").current_of("c1"), after.character("a").overcome, after.threat) == (4, 1, 9)


@vector("presagios-35")
def test_protection_payment_reaching_8_ends_protection(vector_id: str) -> None:
    state = table(7, ana=principal(overcome=3))
    state = spend_overcome(state, SpendOvercomeParams(character_id="ana", use=Use.PROTECTION), None)
    assert (state.overcome("ana"), state.threat) == (2, 8)
    assert not protection_active(state.threat, DEFAULT_SETTINGS)
    with pytest.raises(RulesError) as err:
        apply_damage(state, "ana", "c1", 1, DEFAULT_SETTINGS, protect=True)
    assert err.value.code == "PROTECTION_INACTIVE"


@vector("presagios-36")
def test_retry_discards_pending_damage(vector_id: str) -> None:
    flow, state = _challenge(table(4, ana=with_c1(principal(overcome=2), 2)), 5)
    assert state.threat == 3
    flow, state = ch.roll_challenge(flow, state, ScriptedDice([1, 4]))
    assert flow.last.success is False and state.threat == 3
    flow, state = ch.pay_retry(flow, state)
    assert (state.overcome("ana"), state.threat) == (1, 4)
    flow, state = ch.roll_challenge(flow, state, ScriptedDice([6, 2]))
    assert flow.last.success is True and flow.last.omens == 0
    flow, state = ch.finalize(flow, state)
    assert flow.stage is ch.ChallengeStage.CLOSED and flow.damage == ()
    ana = state.character("ana")
    assert (ana.current_of("c1"), ana.overcome, state.threat) == (2, 1, 4)
    assert len(flow.attempts) == 2  # the failed roll stays in the log


def _secondary_conflict(threat: int, a_current: int, a_faces: list[int], b_faces: list[int], trait: int = 0):  # type: ignore[no-untyped-def]
    state = table(threat, a=with_c1(principal(), a_current), s=npc(Kind.SECUNDARIO, (2, 2, 2)))
    flow = cf.open_conflict("k", cf.Participant.of(state, "a", "c1"), cf.Participant.of(state, "s", "c2"))
    flow, state = cf.declare_dangerous(flow, state)
    assert state.threat == threat - 1
    flow = cf.confirm_setup(flow)
    traits = (NamedTrait("Valiente", trait),) if trait else ()
    flow, state = cf.post_roll(flow, state, "a", ScriptedDice(a_faces), traits=traits)
    flow, state = cf.post_roll(flow, state, "b", ScriptedDice(b_faces))
    if trait:
        assert flow.stage is cf.ConflictStage.REVEALED
        flow, state = cf.judge_traits(flow, state, "a", {"Valiente"})
    flow, state = cf.finalize(flow, state)
    return flow, state


@vector("presagios-37")
def test_conflict_loser_takes_one_plus_winner_omens(vector_id: str) -> None:
    flow, state = _secondary_conflict(5, 3, [2, 6, 6], [1, 4], trait=1)
    a_roll, s_roll = flow.pairs[-1]
    assert (a_roll.total, a_roll.omens, s_roll.total, s_roll.omens) == (8, 0, 4, 1)
    assert flow.winner == "a" and state.threat == 4
    flow, state = cf.settle_damage(flow, state)
    assert flow.damage[0].amount == 1
    assert state.character("s").current_of("c2") == 1


@vector("presagios-38")
def test_secondary_has_no_protection_and_leaves_the_story(vector_id: str) -> None:
    flow, state = _secondary_conflict(5, 3, [1, 1, 6], [4, 4])
    assert flow.winner == "a" and state.threat == 5
    with pytest.raises(RulesError) as err:
        cf.settle_damage(flow, state, protect=True)
    assert err.value.code == "NO_PROTECTION_FOR_SECONDARY"
    flow, state = cf.settle_damage(flow, state)
    s = state.character("s")
    assert flow.damage[0].amount == 3 and s.current_of("c2") == -1 and s.status is Status.OUT_OF_STORY
    assert flow.damage[0].threat_gain_proposed
    assert confirm_threat_gain(state, ThreatGainReason.CHARACTER_OUT).threat == 6


@vector("presagios-39")
def test_gm_protects_a_monster_with_threat(vector_id: str) -> None:
    state = table(6, a=with_c1(principal(), 2), m=npc(Kind.MONSTRUO))
    flow = cf.open_conflict("k", cf.Participant.of(state, "a", "c1"), cf.Participant.of(state, "m", "c1"))
    flow, state = cf.declare_dangerous(flow, state)
    flow = cf.confirm_setup(flow)
    flow, state = cf.post_roll(flow, state, "a", ScriptedDice([1, 6]))
    flow, state = cf.post_roll(flow, state, "b", ScriptedDice([2, 3, 4]))
    assert flow.winner == "a" and state.threat == 6  # combined 1: 2 < 6
    flow, state = cf.finalize(flow, state)
    flow, state = cf.settle_damage(flow, state, protect=True)
    assert flow.damage[0].amount == 2 and flow.damage[0].protected
    assert state.threat == 5 and state.character("m").current_of("c1") == 3


def test_alternative_every_failed_roll_hurts_before_a_retry() -> None:
    rules = PresagiosSettings(retry_discards_pending_damage=False)
    flow, state = _challenge(table(4, ana=with_c1(principal(overcome=3), 3)), 6)
    flow, state = ch.roll_challenge(flow, state, ScriptedDice([2, 3, 4]), rules)
    with pytest.raises(RulesError) as err:
        ch.pay_retry(flow, state, rules)
    assert err.value.code == "DAMAGE_NOT_SETTLED"
    flow, state = ch.settle_damage(flow, state, rules)
    assert state.character("ana").current_of("c1") == 2 and flow.stage is ch.ChallengeStage.RESPONSE
    flow, state = ch.pay_retry(flow, state, rules)
    flow, state = ch.roll_challenge(flow, state, ScriptedDice([2, 3]), rules)
    flow, state = ch.finalize(flow, state)
    flow, state = ch.settle_damage(flow, state, rules)
    assert state.character("ana").current_of("c1") == 1 and len(flow.damage) == 2


def test_cancelling_before_the_roll_refunds_danger() -> None:
    flow, state = _challenge(table(5, ana=principal()), 5)
    assert state.threat == 4
    flow, state = ch.cancel(flow, state)
    assert flow.stage is ch.ChallengeStage.CANCELLED and state.threat == 5
    with pytest.raises(RulesError) as err:
        ch.roll_challenge(flow, state, ScriptedDice([1]))
    assert err.value.code == "WRONG_STEP"


def test_out_of_story_characters_cannot_roll() -> None:
    ana = principal().model_copy(update={"status": Status.OUT_OF_STORY})
    flow, state = _challenge(table(5, ana=ana), 5, dangerous=False)
    with pytest.raises(RulesError) as err:
        ch.roll_challenge(flow, state, ScriptedDice([1, 2, 3]))
    assert err.value.code == "NOT_IN_STORY"
