"""Fate Accelerated: hypothesis properties of the invariants (ranges, pools, single settlement)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from systems.errors import RulesError
from systems.fate_accelerated.actions import Action, CAMode, FailChoice
from systems.fate_accelerated.aspects import FreeInvocationGrant, Moment, Severity, situation_aspect
from systems.fate_accelerated.compels import CompelKind, accept_compel, offer_compel, refuse_compel
from systems.fate_accelerated.fate_points import adjust_fate_points, concede, gain_fate_points, spend_fate_point
from systems.fate_accelerated.invocations import invoke
from systems.fate_accelerated.ladder import Outcome
from systems.fate_accelerated.resolution import settle_action
from systems.fate_accelerated.rolls import InvokeEffect, InvokePayment
from systems.fate_accelerated.settings import FaeSettings
from systems.fate_accelerated.sheet import FaeSheet
from systems.fate_accelerated.stress import MAX_ABSORPTION, absorption_options, apply_hit, validate_absorption
from tests.systems.test_fate_accelerated_fixtures import ANA, BRUNO, K1, ana, at_total

BASE = ana()
boxes_st = st.tuples(st.booleans(), st.booleans(), st.booleans())
slots_st = st.sets(st.sampled_from(list(Severity)))


def damaged(stress: tuple[bool, bool, bool], slots: set[Severity]) -> FaeSheet:
    sheet = BASE.with_changes(stress=stress)
    for s in slots:
        sheet = apply_hit(sheet, ANA, BRUNO, 1, slots=(s,), texts={s: "Herida"}, moment=K1).sheet
    return sheet


@given(boxes_st, slots_st, st.integers(1, 20))
def test_options_are_legal_minimal_and_complete(stress, slots, shifts) -> None:
    sheet = damaged(stress, slots)
    strict = FaeSettings(require_minimal_absorption=True)
    minimal = absorption_options(sheet, shifts)
    every = absorption_options(sheet, shifts, minimal_only=False)
    for o in minimal:
        assert validate_absorption(sheet, shifts, [o.box] if o.box else [], o.slots, strict) == o.absorbed >= shifts
    for o in every:
        assert validate_absorption(sheet, shifts, [o.box] if o.box else [], o.slots) == o.absorbed
    assert bool(minimal) == bool(every)
    capacity = max([b for b, c in zip((1, 2, 3), stress, strict=True) if not c], default=0) + sum(
        v for s, v in {Severity.MILD: 2, Severity.MODERATE: 4, Severity.SEVERE: 6}.items() if s not in slots
    )
    assert bool(every) == (shifts <= capacity)
    assert capacity <= MAX_ABSORPTION


@given(boxes_st, slots_st, st.integers(1, 20), st.data())
def test_a_hit_only_marks_more(stress, slots, shifts, data) -> None:
    sheet = damaged(stress, slots)
    opts = absorption_options(sheet, shifts, minimal_only=False)
    if not opts:
        return
    o = data.draw(st.sampled_from(opts))
    texts = {s: "Herida nueva" for s in o.slots}
    after = apply_hit(sheet, ANA, BRUNO, shifts, boxes=[o.box] if o.box else [], slots=o.slots, texts=texts).sheet
    assert all(a or not b for a, b in zip(after.stress, sheet.stress, strict=True))
    assert set(sheet.consequences.filled()) <= set(after.consequences.filled())
    assert after.fate_points == sheet.fate_points and sheet == damaged(stress, slots)  # input not mutated


@given(st.lists(st.tuples(st.sampled_from(["spend", "gain", "adjust"]), st.integers(-5, 5)), max_size=30))
def test_fate_points_never_negative(steps) -> None:
    sheet = BASE
    for kind, n in steps:
        try:
            if kind == "spend":
                sheet = spend_fate_point(sheet, abs(n) or 1)
            elif kind == "gain":
                sheet = gain_fate_points(sheet, abs(n) or 1)
            else:
                sheet = adjust_fate_points(sheet, n)
        except RulesError:
            pass
        assert sheet.fate_points >= 0


@given(st.integers(-4, 12), st.integers(-4, 12), st.sampled_from(list(Action)[:3]), st.booleans())
def test_a_roll_settles_once(total, defence, action, trade) -> None:
    roll = at_total("r", ANA, action, total, target=BRUNO)
    defend = at_total("d", BRUNO, Action.DEFEND, defence)
    mode = CAMode.CREATE if action is Action.CREATE_ADVANTAGE else None
    choice = FailChoice.NOTHING if mode else FailChoice.FAIL
    try:
        result = settle_action(roll, defend, ca_mode=mode, fail_choice=choice, trade_shift_for_boost=trade)
    except RulesError as err:
        assert err.code == "trade_needs_success_with_style" and total - defence < 3
        return
    assert result.effects.harm >= 0
    assert result.effects.harm <= max(0, total - defence)
    if action is Action.ATTACK and result.outcome in (Outcome.SUCCESS, Outcome.SUCCESS_WITH_STYLE):
        assert result.effects.harm == total - defence - (1 if trade else 0)
    for again in (result.roll, roll):
        with pytest.raises(RulesError):
            settle_action(again, result.defend, ca_mode=mode, fail_choice=choice)


@given(st.integers(0, 5), st.booleans())
def test_a_compel_settles_once(fp, accept_first) -> None:
    compel = offer_compel(ANA, "ana:trouble", CompelKind.EVENT, "gm", "Algo ocurre")
    if not accept_first and fp == 0:
        with pytest.raises(RulesError):
            refuse_compel(compel, fp)
        return
    step = accept_compel(compel) if accept_first else refuse_compel(compel, fp)
    assert sum(r.delta for r in step.ledger if r.party == ANA) == (1 if accept_first else -1)
    with pytest.raises(RulesError):
        accept_compel(step.compel)
    with pytest.raises(RulesError):
        refuse_compel(step.compel, fp + 1)


@settings(max_examples=50)
@given(st.integers(0, 3), st.lists(st.sampled_from(["free", "paid"]), min_size=1, max_size=4))
def test_grants_and_fate_points_never_negative(granted, payments) -> None:
    aspect = situation_aspect("x", "Niebla", 1).model_copy(
        update={"grants": (FreeInvocationGrant(holder=ANA, remaining=granted, same_roll_stacking=True),)}
    )
    roll, fp = at_total("r", ANA, Action.OVERCOME, 0, difficulty=2), 1
    start = roll.total
    for p in payments:
        payment = InvokePayment.FREE if p == "free" else InvokePayment.FATE_POINT
        try:
            r = invoke(
                roll,
                aspect,
                invoker=ANA,
                effect=InvokeEffect.BONUS,
                payment=payment,
                invoker_fate_points=fp,
                justification="niebla",
            )
        except RulesError:
            continue
        roll, aspect, fp = r.roll, r.aspect, r.invoker_fate_points
        assert fp is not None and fp >= 0 and all(g.remaining >= 0 for g in aspect.grants)
    assert (roll.total - start) % 2 == 0 and roll.total - start <= 2 * granted + 2


@given(st.sets(st.sampled_from(list(Severity))), st.sampled_from(["K0", "K1"]))
def test_concession_counts_this_conflict(slots, conflict) -> None:
    sheet = BASE
    for s in slots:
        moment = Moment(adventure=1, session=1, scene=1, conflict=conflict)
        sheet = apply_hit(sheet, ANA, BRUNO, 1, slots=(s,), texts={s: "Herida"}, moment=moment).sheet
    result = concede(sheet, ANA, "K1")
    assert result.awarded == 1 + (len(slots) if conflict == "K1" else 0)
