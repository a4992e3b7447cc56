"""The flow runner: order, idempotency, settling once, who may act; with a tiny stand-in flow kind."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied

from rolls import flows
from rolls.flows import FollowUpSpec, StepContext, StepResult
from rolls.models import Flow, FlowStatus, FlowStep, RollFollowUp
from rolls.services import RollSpec
from systems.dice import ScriptedDice
from systems.errors import RulesError
from tests.personas import Table

pytestmark = pytest.mark.django_db


class DuelFlow:
    """Player rolls, then the GM rolls, then the GM settles: the smallest flow with every kind of step."""

    key = "duel"

    def start(self, ctx: StepContext, params: dict[str, Any]) -> StepResult:
        return StepResult(state={"step": "player"}, waiting_for={"step": "player_roll", "users": [params["player"]]})

    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        if step == "player_roll":
            return frozenset(flow.waiting_for.get("users", []))
        return frozenset({"gm"})

    def step(self, ctx: StepContext, step: str, params: dict[str, Any]) -> StepResult:
        state = ctx.flow.state
        if step == "player_roll" and state["step"] == "player":
            roll = ctx.roll_maker(RollSpec(kind="notation", data={"expression": "1d6"}))
            return StepResult(
                state={"step": "gm", "player": roll.result["totals"][0], "player_roll": roll.pk},
                waiting_for={"step": "gm_roll", "who": "gm"},
            )
        if step == "gm_roll" and state["step"] == "gm":
            roll = ctx.roll_maker(RollSpec(kind="notation", data={"expression": "1d6"}))
            return StepResult(
                state={**state, "step": "settle", "gm": roll.result["totals"][0]},
                waiting_for={"step": "settle", "who": "gm"},
            )
        if step == "settle" and state["step"] == "settle":
            winner = "player" if state["player"] > state["gm"] else "gm"
            return StepResult(
                state={**state, "step": "done", "winner": winner},
                waiting_for={},
                settled=True,
                follow_ups=[FollowUpSpec(state["player_roll"], "settle", f"Gana {winner}", f"{winner} wins")],
            )
        raise RulesError("out_of_order", "Paso fuera de orden.", "Step out of order.")


@pytest.fixture
def duel(monkeypatch: pytest.MonkeyPatch) -> DuelFlow:
    kind = DuelFlow()
    monkeypatch.setattr(flows, "flow_kind", lambda ruleset, key: kind)
    return kind


def test_a_flow_runs_to_settlement_once(table: Table, duel: DuelFlow) -> None:
    flow = flows.start_flow(actor=table.player, scene=table.scene, kind="duel", params={"player": table.player.pk})
    flows.take_step(actor=table.player, flow=flow, step="player_roll", dice=ScriptedDice([5]))
    flows.take_step(actor=table.gm, flow=flow, step="gm_roll", dice=ScriptedDice([2]))
    flows.take_step(actor=table.gm, flow=flow, step="settle")
    flow.refresh_from_db()
    assert flow.status == FlowStatus.SETTLED and flow.state["winner"] == "player"
    assert flow.rolls.count() == 2
    assert RollFollowUp.objects.get().summary_es == "Gana player"
    with pytest.raises(RulesError) as exc:
        flows.take_step(actor=table.gm, flow=flow, step="settle")
    assert exc.value.code == "flow_closed"


def test_out_of_order_step_is_refused_and_changes_nothing(table: Table, duel: DuelFlow) -> None:
    flow = flows.start_flow(actor=table.player, scene=table.scene, kind="duel", params={"player": table.player.pk})
    with pytest.raises(RulesError):
        flows.take_step(actor=table.gm, flow=flow, step="settle")
    flow.refresh_from_db()
    assert flow.state == {"step": "player"} and not FlowStep.objects.exists()


def test_only_the_named_actor_takes_a_step(table: Table, duel: DuelFlow) -> None:
    flow = flows.start_flow(actor=table.player, scene=table.scene, kind="duel", params={"player": table.player.pk})
    for intruder in (table.player2, table.gm, table.reader):
        with pytest.raises(PermissionDenied):
            flows.take_step(actor=intruder, flow=flow, step="player_roll")


def test_a_replayed_request_changes_nothing_twice(table: Table, duel: DuelFlow) -> None:
    flow = flows.start_flow(actor=table.player, scene=table.scene, kind="duel", params={"player": table.player.pk})
    flows.take_step(actor=table.player, flow=flow, step="player_roll", idempotency_key="k1", dice=ScriptedDice([4]))
    again = flows.take_step(actor=table.player, flow=flow, step="player_roll", idempotency_key="k1")
    assert again.state["step"] == "gm"
    assert flow.rolls.count() == 1 and FlowStep.objects.count() == 1


def test_a_reader_cannot_open_a_flow(table: Table, duel: DuelFlow) -> None:
    with pytest.raises(PermissionDenied):
        flows.start_flow(actor=table.reader, scene=table.scene, kind="duel", params={"player": table.player.pk})
    assert not Flow.objects.exists()
