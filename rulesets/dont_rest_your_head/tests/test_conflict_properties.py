"""Invariants of the conflict's step table over random dice and random adjustments (hypothesis): what the
procedure waits for is always among the steps the table offers, the chests never go below zero, the coins
add up at the close (hope = before − spent on 1s + despair spent on shading), and the record ends with the
final result in words."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolls.models import Flow, FlowLine, FlowStatus
from rulesets.dont_rest_your_head.procedures.conflict import CONFLICT
from rulesets.dont_rest_your_head.tests.rolls_fixtures import build_dryh_rolls

pytestmark = pytest.mark.django_db

die = st.integers(min_value=1, max_value=6)


def check_waiting(flow: Flow) -> None:
    flow = Flow.objects.get(pk=flow.pk)
    offered = {step.key for step, _actors in CONFLICT.offered(CONFLICT.load_state(flow.state))}
    waited = {entry["step"] for entry in (flow.waiting_for or {}).get("steps", [])}
    assert waited <= offered, (waited, offered)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    leader=st.lists(die, min_size=3, max_size=3),
    pain=st.lists(die, min_size=1, max_size=4),
    hope=st.integers(min_value=0, max_value=2),
    despair=st.integers(min_value=0, max_value=2),
    spend_hope=st.booleans(),
    shade_pain=st.booleans(),
)
def test_a_conflict_always_closes_with_the_coins_accounted_for(
    db: Any, leader: list[int], pain: list[int], hope: int, despair: int, spend_hope: bool, shade_pain: bool
) -> None:
    with transaction.atomic():  # each example starts from an empty campaign
        play(leader, pain, hope, despair, spend_hope, shade_pain)
        transaction.set_rollback(True)


def play(leader: list[int], pain: list[int], hope: int, despair: int, spend_hope: bool, shade_pain: bool) -> None:
    t = build_dryh_rolls()
    t.set_chest(hope=hope, despair=despair)
    flow = t.opposed(len(pain))
    check_waiting(flow)
    flow = t.step(flow, t.player, "roll_leader", dice=leader)
    flow = t.step(flow, t.gm, "roll_pain", dice=pain)
    check_waiting(flow)
    spent_hope = shaded = 0
    if spend_hope and hope:
        flow = t.step(flow, t.player, "hope")
        spent_hope = 1
    if shade_pain and despair:
        flow = t.step(flow, t.gm, "shade", kind="add6", pool="pain")
        shaded = 1
    check_waiting(flow)
    flow = t.step(flow, t.gm, "gm_pass")
    flow = t.step(flow, t.player, "pass")
    check_waiting(flow)
    for pc, ask in flow.state["asks"].items():
        if len(ask["benefits"]) > 1 or len(ask["boxes"]) > 1:
            flow = t.step(
                flow,
                t.player,
                "choose",
                pc=int(pc),
                **({"benefit": ask["benefits"][0]} if ask["benefits"] else {"box": ask["boxes"][0]}),
            )
    flow = t.step(flow, t.gm, "settle")
    assert flow.status == FlowStatus.SETTLED and flow.waiting_for == {}
    chest = t.chest()
    gained = flow.state["settlement"]["despair_gained"]
    assert chest["hope"] == hope - spent_hope + shaded >= 0
    assert chest["despair"] == despair - shaded + gained >= 0
    record = list(FlowLine.objects.filter(flow=flow, gm_only=False).values_list("text_es", flat=True))
    assert any(line.startswith("Resultado: Gana ") for line in record)
    assert record[-1] != "" and "None" not in " ".join(record)
