"""fate-sotc invariants as hypothesis properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.fate_sotc.combine import combine_modifier
from systems.fate_sotc.compels import (
    SETTLED,
    CompelKind,
    accept_compel,
    buy_off_compel,
    decline_compel,
    escalate_compel,
    offer_compel,
)
from systems.fate_sotc.conflict import rotating_order
from systems.fate_sotc.consequences import TAKEN_OUT, next_consequence
from systems.fate_sotc.dice import roll_4df
from systems.fate_sotc.fate_points import FpKind, Wallet, credit, credit_pending, release_pending, spend, spend_up_to
from systems.fate_sotc.ladder import ladder_label, parse_ladder
from systems.fate_sotc.movement import sprint_reach
from systems.fate_sotc.resolution import resolve_attack, resolve_opposed, resolve_simple
from systems.fate_sotc.settings import CombineRule, FateSotcSettings
from systems.fate_sotc.stress import Marked, NeedConsequence, NoEffect, TakenOut, apply_hit

d6 = st.integers(1, 6)
level = st.integers(-12, 20)


@given(st.lists(d6, min_size=4, max_size=4))
def test_4df_total_in_range(faces: list[int]) -> None:
    r = roll_4df(ScriptedDice(faces))
    assert -4 <= r.total <= 4
    assert r.total == sum(r.faces)
    assert all(f in (-1, 0, 1) for f in r.faces)


@given(level)
def test_ladder_label_round_trips(value: int) -> None:
    assert parse_ladder(ladder_label(value)) == value


@given(level, level)
def test_simple_outcome_is_consistent(eff: int, difficulty: int) -> None:
    out = resolve_simple(eff, difficulty)
    assert out.shifts >= 0 and out.failure_margin >= 0
    assert out.success == (eff >= difficulty)
    assert out.shifts - out.failure_margin == eff - difficulty
    assert out.critical == (out.shifts >= 3)


@given(level, level)
def test_opposed_is_antisymmetric(a: int, b: int) -> None:
    ab, ba = resolve_opposed(a, b), resolve_opposed(b, a)
    assert ab.shifts == ba.shifts == abs(a - b)
    assert {ab.winner, ba.winner} == ({"a", "b"} if a != b else {None})
    attack = resolve_attack(a, b)
    assert attack.hit == max(0, a - b)
    assert not (attack.hit and attack.defender_spin)


@given(
    st.integers(-5, 10),
    st.lists(st.tuples(st.integers(-5, 10), st.sampled_from(["modify", "complement", "restrict"])), max_size=6),
    st.sampled_from(list(CombineRule)),
)
def test_combine_modifier_is_capped(primary: int, secondaries: list[tuple[int, str]], rule: CombineRule) -> None:
    assert combine_modifier(primary, secondaries, FateSotcSettings(combine_rule=rule)) in (-1, 0, 1)


@given(st.lists(st.booleans(), min_size=1, max_size=10), st.integers(-2, 12), st.booleans())
def test_apply_hit_marks_at_most_one_box_at_or_above_the_hit(track: list[bool], hit: int, severe: bool) -> None:
    before = tuple(track)
    result, after = apply_hit(before, hit, severe_held=severe)
    assert len(after) == len(before)
    assert all(a or not b for a, b in zip(after, before, strict=True))  # never unmarks
    changed = [i + 1 for i, (a, b) in enumerate(zip(after, before, strict=True)) if a != b]
    if isinstance(result, Marked):
        assert changed == [result.box] and result.box >= hit
    else:
        assert changed == []
        assert isinstance(result, NoEffect | NeedConsequence | TakenOut)
        assert isinstance(result, NoEffect) == (hit <= 0)


@given(st.sets(st.sampled_from(["leve", "moderada", "severa"])))
def test_next_consequence_never_duplicates(held: set[str]) -> None:
    nxt = next_consequence(held)
    assert nxt == TAKEN_OUT if "severa" in held else nxt not in held


@given(st.lists(st.text(min_size=1, max_size=3), min_size=1, max_size=8, unique=True), st.integers(1, 30))
def test_rotating_order_is_a_permutation(order: list[str], exchange: int) -> None:
    assert sorted(rotating_order(order, exchange)) == sorted(order)


@given(st.integers(-3, 12), st.lists(st.integers(0, 3), max_size=8), st.integers(0, 3))
def test_sprint_never_exceeds_the_path(shifts: int, path: list[int], weight: int) -> None:
    assert 0 <= sprint_reach(shifts, path, weight) <= len(path)


operations = st.lists(
    st.tuples(st.sampled_from(["spend", "spend_up_to", "credit", "pending", "release"]), st.integers(0, 4)),
    max_size=30,
)


@given(st.integers(0, 10), operations)
def test_wallet_never_negative_and_ledger_balances(start: int, ops: list[tuple[str, int]]) -> None:
    wallet = Wallet.opening(start)
    for op, amount in ops:
        try:
            if op == "spend":
                wallet = spend(wallet, amount, FpKind.DECLARATION)
            elif op == "spend_up_to":
                wallet = spend_up_to(wallet, amount, FpKind.CONCESSION_REFUSED_PENALTY)
            elif op == "credit":
                wallet = credit(wallet, amount, FpKind.COMPEL_ACCEPTED)
            elif op == "pending" and amount:
                wallet = credit_pending(wallet, amount, FpKind.TAG_COMPENSATION)
            else:
                wallet = release_pending(wallet)
        except RulesError as err:
            assert err.code == "insufficient_fate_points"
        assert wallet.fate_points >= 0 and wallet.pending >= 0
        assert wallet.applied_sum() == wallet.fate_points
        assert wallet.pending_sum() == wallet.pending


steps = st.lists(st.sampled_from(["accept", "decline", "escalate", "buy_off"]), max_size=12)


@given(st.integers(0, 5), steps, st.sampled_from(list(CompelKind)))
def test_compel_settles_once(fp: int, moves: list[str], kind: CompelKind) -> None:
    compel, wallet = offer_compel(kind), Wallet.opening(fp)
    settlements = 0
    for move in moves:
        was_settled = compel.status in SETTLED
        try:
            if move == "accept":
                compel, wallet = accept_compel(compel, wallet)
            elif move == "decline":
                compel = decline_compel(compel, wallet)
            elif move == "escalate":
                compel = escalate_compel(compel)
            else:
                compel, wallet = buy_off_compel(compel, wallet)
        except RulesError:
            continue
        assert not was_settled, "a settled compel must refuse every step"
        settlements += compel.status in SETTLED
        assert wallet.fate_points >= 0
        assert compel.stake <= 3
    assert settlements <= 1


def test_out_of_order_compel_step_is_refused() -> None:
    with pytest.raises(RulesError) as err:
        buy_off_compel(offer_compel(), Wallet.opening(3))
    assert err.value.code == "out_of_order"
