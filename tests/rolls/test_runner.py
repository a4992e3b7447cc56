"""The procedure runner, on a small step table (tests/rolls/duel.py): order, idempotency, settling once, who
may act, what it waits for; and a property: whatever the sequence of steps tried, a step the table does not
offer is refused with one code and changes nothing, and ``waiting_for`` always matches the table."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns.models import Post
from rolls import runner
from rolls.models import Flow, FlowLine, FlowStatus, FlowStep, RollFollowUp
from rulesets.kit.procedures import Procedure, waiting_json
from systems.dice import ScriptedDice
from systems.errors import RulesError
from tests.campaigns.test_scene_locks import deadlocking_read_mark
from tests.personas import Table
from tests.rolls.duel import DUEL, FLOW_SECRET

pytestmark = pytest.mark.django_db


def open_duel(table: Table) -> Flow:
    return runner.start_procedure(actor=table.gm, scene=table.scene, kind="duel", params={"player": table.player.pk})


def test_a_procedure_runs_to_settlement_once(table: Table, duel: Procedure[Any]) -> None:
    flow = open_duel(table)
    assert flow.record is not None and flow.record.kind == "procedure"  # its entry in the thread
    runner.take_step(actor=table.player, flow=flow, step="player_roll", dice=ScriptedDice([5]))
    runner.take_step(actor=table.gm, flow=flow, step="settle")
    flow.refresh_from_db()
    assert flow.status == FlowStatus.SETTLED and flow.waiting_for == {}
    assert flow.rolls.count() == 1 and RollFollowUp.objects.get().summary_en == "Settled in favour"
    assert flow.secret_state == {"difficulty": FLOW_SECRET}
    assert [(line.gm_only, line.text_en) for line in FlowLine.objects.filter(flow=flow)] == [
        (True, f"Secret difficulty: {FLOW_SECRET}")
    ]
    with pytest.raises(RulesError) as exc:
        runner.take_step(actor=table.gm, flow=flow, step="settle")
    assert exc.value.code == "step_not_available"
    assert exc.value.message("en") == "This procedure is already closed."


def test_a_step_out_of_order_is_refused_and_changes_nothing(table: Table, duel: Procedure[Any]) -> None:
    flow = open_duel(table)
    for step in ("settle", "nonsense"):
        with pytest.raises(RulesError) as exc:
            runner.take_step(actor=table.gm, flow=flow, step=step)
        assert exc.value.code == "step_not_available"
    flow.refresh_from_db()
    assert flow.state == {"step": "player", "player_id": table.player.pk, "player": None, "player_roll": None}
    assert not FlowStep.objects.exists()


def test_only_whom_the_rules_name_takes_a_step(table: Table, duel: Procedure[Any]) -> None:
    flow = open_duel(table)
    for intruder in (table.player2, table.gm, table.reader, table.outsider):
        with pytest.raises(PermissionDenied):
            runner.take_step(actor=intruder, flow=flow, step="player_roll")
    assert not FlowStep.objects.exists()


def test_a_replayed_key_changes_nothing_and_another_request_under_it_is_a_conflict(
    table: Table, duel: Procedure[Any]
) -> None:
    flow = open_duel(table)
    runner.take_step(actor=table.player, flow=flow, step="player_roll", idempotency_key="k1", dice=ScriptedDice([4]))
    again = runner.take_step(actor=table.player, flow=flow, step="player_roll", idempotency_key="k1")
    assert again.state["step"] == "settle"
    assert flow.rolls.count() == 1 and FlowStep.objects.count() == 1
    with pytest.raises(runner.IdempotencyConflict):
        runner.take_step(actor=table.player, flow=flow, step="player_roll", params={"x": 1}, idempotency_key="k1")
    for stranger in (table.player2, table.reader, table.outsider):  # a guessed key tells them nothing
        with pytest.raises(PermissionDenied):
            runner.take_step(actor=stranger, flow=flow, step="player_roll", idempotency_key="k1")
    with pytest.raises(Exception, match="80"):
        runner.take_step(actor=table.player, flow=flow, step="settle", idempotency_key="k" * 81)


def test_a_reader_cannot_open_a_procedure(table: Table, duel: Procedure[Any]) -> None:
    with pytest.raises(PermissionDenied):
        runner.start_procedure(actor=table.reader, scene=table.scene, kind="duel", params={"player": table.player.pk})
    assert not Flow.objects.exists()


def test_malformed_params_are_a_clear_error_and_write_nothing(table: Table, duel: Procedure[Any]) -> None:
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as exc:
        runner.start_procedure(actor=table.gm, scene=table.scene, kind="duel", params={"player": "Ana"})
    assert "params" in exc.value.message_dict
    assert not Flow.objects.exists()


PEOPLE = ("gm", "player", "player2", "reader")
STEPS = ("player_roll", "settle", "nonsense")


# Each example opens its own procedure on the shared table, so the fixture needs no reset between inputs.
@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(attempts=st.lists(st.tuples(st.sampled_from(PEOPLE), st.sampled_from(STEPS)), max_size=6))
def test_property_refusals_and_waiting_follow_the_table(
    table: Table, duel: Procedure[Any], attempts: list[tuple[str, str]]
) -> None:
    flow = open_duel(table)
    for who, step in attempts:
        flow.refresh_from_db()
        state = DUEL.load_state(flow.state)
        offered = DUEL.actors(state, step) if flow.status == FlowStatus.OPEN else frozenset()
        user = table.user(who)
        steps_before = FlowStep.objects.filter(flow=flow).count()
        try:
            runner.take_step(actor=user, flow=flow, step=step, dice=ScriptedDice([3]))  # type: ignore[arg-type]
        except RulesError as exc:
            assert not offered and exc.code == "step_not_available"
        except PermissionDenied:
            assert offered and user is not None and (user.pk not in offered and not (who == "gm" and "gm" in offered))
        else:
            assert offered
        if not offered:
            assert FlowStep.objects.filter(flow=flow).count() == steps_before
        flow.refresh_from_db()
        if flow.status == FlowStatus.OPEN:
            table_view = runner.load_table(flow, DUEL)
            assert flow.waiting_for == waiting_json(DUEL.waiting(DUEL.load_state(flow.state), table_view))
            for entry in flow.waiting_for["steps"]:
                actors = DUEL.actors(DUEL.load_state(flow.state), entry["step"])
                assert set(entry["users"]) | ({"gm"} if entry["gm"] else set()) == set(actors)
        else:
            assert flow.waiting_for == {}


@pytest.mark.django_db(transaction=True)
def test_a_deadlocked_opening_is_run_again_whole(
    table: Table, duel: Procedure[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A procedure's opening that PostgreSQL aborts to break a deadlock (its record post's read mark, issue 26)
    is run again once by the runner: one procedure, one record post (campaigns/scene_locks.py)."""
    calls = deadlocking_read_mark(monkeypatch, times=1)
    flow = open_duel(table)
    assert len(calls) == 2
    assert Flow.objects.filter(scene=table.scene).count() == 1
    assert flow.record_id is not None
    assert Post.objects.filter(pk=flow.record_id, kind="procedure").count() == 1
