"""Hypothesis properties of the Presagios rules: ranges, pools never negative, flows settle once."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import systems.presagios as presagios_rules
from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.presagios import challenge as ch
from systems.presagios import conflict as cf
from systems.presagios.conflict import SideRoll, resolve_conflict
from systems.presagios.damage import apply_damage
from systems.presagios.dice import core_result
from systems.presagios.points import Purpose, Use, activate_quality, pay, spend_overcome
from systems.presagios.qualities import Force, QualityActivation
from systems.presagios.settings import DEFAULT_SETTINGS, OmenFaceValue, OmenThresholdRule, PresagiosSettings
from systems.presagios.sheet import CHAR_KEYS, Kind, QualityKind
from systems.presagios.table import Table
from systems.presagios.threat import omen_check_hits, threat_after_omens
from tests.systems.test_presagios_fixtures import npc, principal

faces = st.lists(st.integers(1, 6), max_size=12)
any_settings = st.builds(
    PresagiosSettings,
    omen_face_value=st.sampled_from(OmenFaceValue),
    omen_threshold_rule=st.sampled_from(OmenThresholdRule),
    omen_check_requires_one=st.booleans(),
)


@given(faces, st.integers(0, 3), any_settings)
def test_core_result_ranges(dice: list[int], trait: int, rules: PresagiosSettings) -> None:
    roll = core_result(tuple(dice), trait, rules)
    assert roll.omens == dice.count(1)
    assert roll.total == roll.dice_result + trait
    if not dice:
        assert roll.dice_result == 0
    else:
        high = max(dice)
        assert high - (1 if high == 1 else 0) <= roll.dice_result <= high + len(dice) - 1
        if high > 1:
            assert roll.dice_result == high + dice.count(high) - 1


@given(st.integers(0, 40), st.integers(0, 20), any_settings)
def test_omen_check_adds_at_most_one(threat: int, omens: int, rules: PresagiosSettings) -> None:
    after = threat_after_omens(threat, omens, rules)
    assert after in (threat, threat + 1)
    if rules.omen_check_requires_one and omens == 0:
        assert after == threat
    # monotone: more omens never un-trigger the check
    if omen_check_hits(omens, threat, rules):
        assert omen_check_hits(omens + 1, threat, rules)


@given(st.integers(0, 5), st.integers(0, 8), st.data())
def test_player_spends_conserve_points_and_never_go_negative(overcome: int, threat: int, data: st.DataObject) -> None:
    state = Table(threat, {"A": principal(overcome=overcome), "B": principal(overcome=1)})
    total = state.overcome("A") + state.overcome("B") + state.threat
    for _ in range(data.draw(st.integers(1, 8))):
        use = data.draw(st.sampled_from([u for u in Use if u is not Use.PROTECTION]))
        try:
            if data.draw(st.booleans()):
                new = pay(state, "A", use, DEFAULT_SETTINGS)
            else:
                new = activate_quality(
                    state, "A", "B", QualityKind.COMPLICATION, Purpose.FORCE_FAILURE, against_owner=True
                )
        except RulesError as err:
            assert err.code == "NO_OVERCOME" and state.overcome("A") == 0
            continue
        assert new.overcome("A") == state.overcome("A") - 1  # the input table is untouched
        state = new
        assert state.overcome("A") >= 0 and state.threat >= 0
        # an overcome point becomes threat or moves to another principal: the sum is conserved
        assert state.overcome("A") + state.overcome("B") + state.threat == total


@given(st.integers(0, 10), st.integers(-2, 5), st.integers(0, 7), st.integers(0, 3), st.booleans())
def test_damage_keeps_pools_non_negative(threat: int, current: int, amount: int, overcome: int, protect: bool) -> None:
    state = Table(threat, {"A": principal(overcome=overcome).with_current("c1", current)})
    try:
        after, outcome = apply_damage(state, "A", "c1", amount, DEFAULT_SETTINGS, protect=protect)
    except RulesError as err:
        assert protect and err.code in ("PROTECTION_INACTIVE", "NO_OVERCOME")
        return
    a = after.character("A")
    assert after.threat >= 0 and a.overcome >= 0
    if outcome.protected:
        assert a.current_of("c1") == current and a.overcome == overcome - 1 and after.threat == threat + 1
    else:
        assert a.current_of("c1") == current - amount
        # (S) mandatory protection: with protection active and a point, nobody leaves the story by damage
        assert not (current - amount < 0 and threat < 8 and overcome >= 1)
    assert state.character("A").current_of("c1") == current  # never mutated


@given(
    st.lists(st.integers(1, 6), min_size=2, max_size=60),
    st.sampled_from(Kind),
    st.sampled_from(Kind),
    st.integers(0, 3),
    st.integers(0, 3),
)
def test_conflict_winner_is_higher_or_wins_tie_by_kind(
    dice: list[int], kind_a: Kind, kind_b: Kind, cur_a: int, cur_b: int
) -> None:
    try:
        result = resolve_conflict(ScriptedDice(dice), SideRoll(kind_a, cur_a), SideRoll(kind_b, cur_b))
    except RulesError as err:
        unbreakable = cur_a == cur_b == 0 and (kind_a is Kind.PRINCIPAL) == (kind_b is Kind.PRINCIPAL)
        assert err.code == ("UNBREAKABLE_TIE" if unbreakable else "dice_exhausted")
        return
    for a, b in result.pairs[:-1]:
        assert a.total == b.total  # only ties are rerolled
    a, b = result.pairs[-1]
    win, lose = (a, b) if result.winner == "a" else (b, a)
    kinds = (kind_a, kind_b) if result.winner == "a" else (kind_b, kind_a)
    assert win.total >= lose.total
    if win.total == lose.total:
        assert kinds[0] is Kind.PRINCIPAL and kinds[1] is not Kind.PRINCIPAL


CHALLENGE_STEPS = ("roll", "retry", "force_s", "force_f", "finalize", "settle", "settle_protect", "danger", "cancel")


@settings(max_examples=150)
@given(
    st.lists(st.sampled_from(CHALLENGE_STEPS), max_size=14),
    st.lists(st.integers(1, 6), min_size=40, max_size=40),
    st.integers(0, 9),
    st.integers(0, 3),
    st.integers(1, 12),
    st.booleans(),
)
def test_challenge_flow_never_settles_twice(
    steps: list[str], faces: list[int], threat: int, overcome: int, difficulty: int, dangerous: bool
) -> None:
    state = Table(threat, {"A": principal(overcome=overcome), "B": principal(overcome=2)})
    flow = ch.open_challenge("X", "A", "c1", difficulty)
    if dangerous and threat > 0:
        flow, state = ch.declare_dangerous(flow, state)
    flow = ch.confirm_setup(flow)
    dice = ScriptedDice(faces)
    closed = False
    for step in steps:
        before_stage = flow.stage
        try:
            if step == "roll":
                flow, state = ch.roll_challenge(flow, state, dice)
            elif step == "retry":
                flow, state = ch.pay_retry(flow, state)
            elif step in ("force_s", "force_f"):
                act = QualityActivation("A", QualityKind.HITO, step == "force_f", activator_id="B")
                flow, state = ch.force_outcome(flow, state, Force.SUCCESS if step == "force_s" else Force.FAILURE, act)
            elif step == "finalize":
                flow, state = ch.finalize(flow, state)
            elif step == "danger":
                flow, state = ch.declare_dangerous(flow, state)
            elif step == "cancel":
                flow, state = ch.cancel(flow, state)
            else:
                flow, state = ch.settle_damage(flow, state, protect=step == "settle_protect")
        except RulesError:
            assert flow.stage is before_stage
            continue
        assert not closed, "a closed challenge accepted another step"
        closed = flow.stage in (ch.ChallengeStage.CLOSED, ch.ChallengeStage.CANCELLED)
        assert state.threat >= 0 and all(state.overcome(c) >= 0 for c in ("A", "B"))
        assert len(flow.damage) <= 1  # one damage settlement at most (retry discards pending damage)
        assert all(a.forced is None or a.success is not None for a in flow.attempts)


@settings(max_examples=100)
@given(
    st.lists(st.integers(1, 6), min_size=60, max_size=60),
    st.sampled_from(Kind),
    st.integers(0, 9),
    st.booleans(),
)
def test_conflict_flow_settles_once(faces: list[int], kind_b: Kind, threat: int, protect: bool) -> None:
    other = principal(overcome=1) if kind_b is Kind.PRINCIPAL else npc(kind_b)
    state = Table(threat, {"A": principal(overcome=1), "B": other})
    flow = cf.open_conflict("k", cf.Participant.of(state, "A", "c1"), cf.Participant.of(state, "B", "c2"))
    try:
        flow, state = cf.declare_dangerous(flow, state)
    except RulesError as err:
        assert err.code == "NO_THREAT"
        return
    flow = cf.confirm_setup(flow)
    dice = ScriptedDice(faces)
    flow, state = cf.post_roll(flow, state, "a", dice)
    flow, state = cf.post_roll(flow, state, "b", dice)
    while flow.stage is cf.ConflictStage.TIE_REROLL:
        try:
            flow, state = cf.reroll(flow, state, dice)
        except RulesError:
            return  # scripted faces ran out in a long run of ties
    flow, state = cf.finalize(flow, state)
    try:
        flow, state = cf.settle_damage(flow, state, protect=protect)
    except RulesError as err:
        assert protect and err.code in (
            "PROTECTION_INACTIVE",
            "NO_PROTECTION_FOR_SECONDARY",
            "NO_THREAT",
            "NO_OVERCOME",
        )
        flow, state = cf.settle_damage(flow, state)
    assert flow.stage is cf.ConflictStage.CLOSED and len(flow.damage) == 1
    assert state.threat >= 0 and state.overcome("A") >= 0
    for step in (lambda: cf.settle_damage(flow, state), lambda: cf.finalize(flow, state)):
        try:
            step()
        except RulesError as err:
            assert err.code == "WRONG_STEP"
        else:
            raise AssertionError("a closed conflict settled twice")


def test_every_characteristic_key_is_a_track() -> None:

    assert {t.key for t in presagios_rules.RULESET.tracks} == set(CHAR_KEYS)


def test_spend_overcome_refuses_npcs() -> None:
    state = Table(3, {"S": npc(Kind.SECUNDARIO)})
    try:
        spend_overcome(state, "S")
    except RulesError as err:
        assert err.code == "NOT_A_PRINCIPAL"
    else:
        raise AssertionError("a secondary has no overcome points")
    assert pay(state, "S", Use.HURRY, DEFAULT_SETTINGS).threat == 2  # A-AMB-29: GM threat instead
