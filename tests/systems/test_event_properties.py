"""Event invariants, checked with hypothesis: results in range, explosions bounded, vetoes counted once,
state machines that never settle twice, pools never negative, scales that always cover 1..N."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from systems.dice import SeededDice
from systems.errors import RulesError
from systems.event.action import (
    ActionStage,
    Choice,
    Gate,
    choose,
    decline_talent,
    finish,
    reckless_roll,
    start_action,
    talent_reroll,
)
from systems.event.bets import BetKind, gm_accept, propose_bet
from systems.event.communal import OpenSessionParams, TakeParams, open_communal_pool, take_communal_die
from systems.event.desafio import (
    Participant,
    Side,
    Stage,
    Verdict,
    commit,
    roll_tiebreak,
    settle_tiebreak,
    start_interaction,
    total_challenge,
)
from systems.event.ladder import Outcome, check_scale, derived_scale, evaluate, level_of
from systems.event.narration import (
    NarrationKind,
    NarrationStatus,
    close_window,
    concede,
    defend,
    propose,
    reformulate,
    vote,
    withdraw_vote,
)
from systems.event.pool import PoolBreakdown
from systems.event.rolling import DiceRules, roll_pool
from systems.event.settings import EventSettings
from systems.event.sheet import EventSheet, Pick, PickKind, apply_pick
from systems.event.veto import Verdict as VetoVerdict
from systems.event.veto import VoteKind, cast, close, open_window, withdraw

FAST = settings(max_examples=200, deadline=None)
ALL_ON = EventSettings.model_validate(
    {
        "optional": {
            "talent": {"enabled": True},
            "exploding_dice": {"enabled": True},
            "reckless_roll": {"enabled": True},
            "wild_die": {"enabled": True},
        }
    }
)


@FAST
@given(st.lists(st.integers(1, 6), min_size=1, max_size=12), st.integers(1, 6))
def test_evaluation_follows_the_ordered_conditions(dice: list[int], difficulty: int) -> None:
    outcome = evaluate(dice, difficulty)
    hits = sum(d >= difficulty for d in dice)
    assert (outcome is Outcome.ABSOLUTE_SUCCESS) == (hits >= 2)
    assert (outcome is Outcome.PARTIAL_SUCCESS) == (hits == 1)
    if outcome is Outcome.CRITICAL_FAILURE:
        assert difficulty >= 2 and set(dice) == {1}
    if difficulty == 2:
        assert outcome is not Outcome.FAILURE
    if len(dice) == 1:
        assert outcome is not Outcome.ABSOLUTE_SUCCESS


@FAST
@given(
    st.integers(1, 8),
    st.integers(6, 20),
    st.booleans(),
    st.booleans(),
    st.integers(0, 5),
    st.integers(0, 2**32),
)
def test_explosions_stay_in_range_and_under_the_cap(
    count: int, sides: int, explode: bool, chain: bool, cap: int, seed: int
) -> None:
    rules = DiceRules(sides=sides, explode=explode, chain=chain, max_extra=cap)
    dice = roll_pool(SeededDice(seed), count, rules)
    assert all(1 <= d <= sides for d in dice)
    extra = len(dice) - count
    assert 0 <= extra <= (cap if explode else 0)
    assert extra <= sum(d == sides for d in dice)  # only a maximum face adds a die
    if not chain:
        assert extra <= sum(d == sides for d in dice[:count])


@FAST
@given(st.integers(0, 11), st.integers(1, 6), st.booleans())
def test_gate_partitions_pool_against_difficulty(skill_dice: int, difficulty: int, wild: bool) -> None:
    state = start_action(PoolBreakdown(skill_dice=skill_dice, wild=int(wild)), difficulty, ALL_ON)
    total = 1 + skill_dice + int(wild)
    assert state.pool.total == total
    if wild:  # forces_roll is on by default: the gate is skipped
        assert state.gate is Gate.FORCED_ROLL and state.offered == (Choice.ROLL,)
    elif total > difficulty:
        assert state.gate is Gate.AUTO_ABSOLUTE and state.outcome is Outcome.ABSOLUTE_SUCCESS and not state.rolled
    elif total == difficulty:
        assert state.gate is Gate.CHOOSE_PARTIAL_OR_ROLL
    else:
        assert state.gate is Gate.CHOOSE_FAILURE_OR_ROLL


@FAST
@given(
    st.integers(1, 6),
    st.integers(1, 6),
    st.booleans(),
    st.lists(st.sampled_from(["reroll", "decline", "reckless", "finish", "choose"]), max_size=8),
    st.integers(0, 2**32),
)
def test_action_never_settles_twice(pool: int, difficulty: int, talent: bool, steps: list[str], seed: int) -> None:
    dice = SeededDice(seed)
    state = start_action(PoolBreakdown(skill_dice=pool - 1, talent_built=talent), difficulty, ALL_ON)
    if state.stage is ActionStage.AWAITING_CHOICE:
        state = choose(state, Choice.ROLL, dice)
    bet = gm_accept(propose_bet(BetKind.RECKLESS, "algo"))
    for step in steps:
        before = state
        try:
            if step == "reroll":
                state = talent_reroll(state, 0, dice)
            elif step == "decline":
                state = decline_talent(state)
            elif step == "reckless":
                state = reckless_roll(state, bet, dice)
            elif step == "finish":
                state = finish(state)
            else:
                state = choose(state, Choice.ROLL, dice)
        except RulesError:
            assert state is before
        if state.rolled:
            assert state.outcome is evaluate(state.dice, difficulty)
        assert len(state.throws) <= 2
        assert state.reckless_used == (len(state.throws) == 2)
    if state.stage is ActionStage.RESOLVED:
        for attempt in (
            lambda: choose(state, Choice.ROLL, dice),
            lambda: finish(state),
            lambda: decline_talent(state),
            lambda: reckless_roll(state, bet, dice),
        ):
            with pytest.raises(RulesError):
                attempt()


VOTERS = ["GM", "A", "B", "C", "D"]
vote_ops = st.lists(st.tuples(st.sampled_from(["veto", "no_veto", "withdraw"]), st.sampled_from(VOTERS)), max_size=15)


@FAST
@given(vote_ops)
def test_veto_count_is_distinct_active_non_author_vetoes(ops: list[tuple[str, str]]) -> None:
    window = open_window("A", VOTERS)
    active: dict[str, str] = {}
    for op, voter in ops:
        try:
            if op == "withdraw":
                window = withdraw(window, voter)
                active.pop(voter)
            else:
                window = cast(window, voter, VoteKind.VETO if op == "veto" else VoteKind.NO_VETO)
                active[voter] = op
        except RulesError as err:
            assert err.code in {"AUTHOR_CANNOT_VOTE", "NO_VOTE"}
    vetoes = {v for v, op in active.items() if op == "veto"}
    closed = close(window)
    assert "A" not in vetoes and closed.vetoes == vetoes
    assert (closed.verdict is VetoVerdict.INVALID) == (len(vetoes) >= 2)
    with pytest.raises(RulesError):
        close(closed)  # a window settles once


@FAST
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["veto", "withdraw", "close", "defend", "reformulate", "concede"]),
            st.sampled_from(VOTERS),
        ),
        max_size=20,
    )
)
def test_narration_one_response_and_final_once(ops: list[tuple[str, str]]) -> None:
    n = propose(NarrationKind.ACTION_ABSOLUTE, "A", "texto", VOTERS, True, outcome=Outcome.ABSOLUTE_SUCCESS)
    responses = 0
    for op, who in ops:
        try:
            if op == "veto":
                n = vote(n, who)
            elif op == "withdraw":
                n = withdraw_vote(n, who)
            elif op == "close":
                n = close_window(n)
            elif op == "defend":
                n = defend(n, "A", "porque sí")
                responses += 1
            elif op == "reformulate":
                n = reformulate(n, "A", "otro texto")
                responses += 1
            else:
                n = concede(n, "A")
                responses += 1
        except RulesError:
            pass
        assert responses <= 1
        assert n.path.count(NarrationStatus.FINAL) <= 1
        assert n.path.count(NarrationStatus.OVERRULED) <= 1
        if n.overruled:
            assert n.narrator == "GM" and n.outcome is Outcome.PARTIAL_SUCCESS
        if NarrationStatus.ACCEPTED in n.path:
            assert not n.overruled and n.narrator == "A"


@FAST
@given(st.lists(st.one_of(st.integers(0, 10), st.none()), max_size=30))
def test_communal_pool_never_negative(ops: list[int | None]) -> None:
    rules = EventSettings.model_validate({"optional": {"communal_pool": {"enabled": True}}})
    remaining = 0
    for op in ops:
        try:
            if op is None:
                remaining = take_communal_die(remaining, TakeParams(), rules)
            else:
                remaining = open_communal_pool(remaining, OpenSessionParams(dice=op), rules)
        except RulesError as err:
            assert err.code == "COMMUNAL_EMPTY" and remaining == 0
        assert remaining >= 0


@FAST
@given(st.integers(6, 60))
def test_derived_scale_covers_every_value(sides: int) -> None:
    scale = derived_scale(sides)
    assert check_scale(scale, sides) == scale
    assert [int(level_of(v, scale)) for v in (1, sides)] == [1, 6]
    levels = [int(level_of(v, scale)) for v in range(1, sides + 1)]
    assert levels == sorted(levels) and set(levels) == {1, 2, 3, 4, 5, 6}
    for v in range(2, sides):
        assert int(level_of(v, scale)) == 2 + (4 * (v - 2)) // (sides - 2)


@FAST
@given(st.lists(st.integers(1, 6), min_size=1, max_size=6), st.lists(st.integers(1, 6), min_size=1, max_size=6))
def test_total_challenge_difference_is_pairs_won(a: list[int], b: list[int]) -> None:
    winners, points = total_challenge({"A": a, "B": b})
    assert (len(winners) == 1) == (points["A"] != points["B"])
    sa, sb = sorted(a, reverse=True), sorted(b, reverse=True)
    won_a = sum(x > y for x, y in zip(sa, sb, strict=False))
    won_b = sum(y > x for x, y in zip(sa, sb, strict=False))
    assert points["A"] - points["B"] == won_a - won_b
    assert points["A"] + points["B"] >= min(len(a), len(b))


splits = st.integers(1, 5).flatmap(lambda pool: st.tuples(st.just(pool), st.integers(0, pool)))


@FAST
@given(st.lists(splits, min_size=2, max_size=4), st.booleans(), st.integers(0, 2**32))
def test_desafio_results_are_consistent(parties: list[tuple[int, int]], total: bool, seed: int) -> None:
    rules = EventSettings.model_validate(
        {"optional": {"total_challenge": {"enabled": total}, "reckless_roll": {"enabled": True}}}
    )
    people = [Participant(f"P{i}", pool, f"P{i}", seat=i) for i, (pool, _) in enumerate(parties)]
    ix = start_interaction(people, rules)
    dice = SeededDice(seed)
    for i, (pool, left) in enumerate(parties):
        assert ix.stage is Stage.COMMITTING
        ix = commit(ix, f"P{i}", left, pool - left)
    while ix.stage in (Stage.LEFT_TIEBREAK, Stage.RIGHT_TIEBREAK):
        assert ix.tiebreak is not None
        ix = roll_tiebreak(ix, dice) if not ix.tiebreak.rolled else settle_tiebreak(ix)
    assert ix.stage is Stage.NARRATION and ix.left is not None and ix.right is not None
    for result, side in ((ix.left, Side.LEFT), (ix.right, Side.RIGHT)):
        counts = dict(result.counts)
        top = max(counts.values())
        assert set(result.winners) <= {p for p, c in counts.items() if c == top}
        assert (len(result.winners) == 1) == (result.verdict is Verdict.WIN)
        if side is Side.LEFT:
            assert result.verdict in (Verdict.WIN, Verdict.DRAW)
        assert set(dict(result.rolls)) <= set(result.winners) | {p for p, c in counts.items() if c == top}
    with pytest.raises(RulesError):
        commit(ix, "P0", parties[0][0], 0)  # the reveal is final


@FAST
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["NEW_SKILL", "IMPROVEMENT"]), st.sampled_from(["Luchar", "luchar ", "Sigilo", "Nadar"])
        ),
        max_size=15,
    )
)
def test_sheets_built_by_picks_stay_valid(picks: list[tuple[str, str]]) -> None:
    sheet = EventSheet()
    for kind, name in picks:
        try:
            sheet = apply_pick(sheet, Pick(kind=PickKind(kind), skill=name))
        except RulesError as err:
            assert err.code in {"DUPLICATE_SKILL", "UNKNOWN_SKILL", "SHEET_COMPLETE", "IMPROVEMENT_CAP"}
    assert sheet.creation_picks <= 6
    assert len({s.normalized_name for s in sheet.skills}) == len(sheet.skills)
    EventSheet.model_validate(sheet.model_dump())
