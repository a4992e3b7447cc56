"""Property of the action's step table (issue 9): for random sequences of steps by random members, a step the
table does not offer now is refused with ``step_not_available``, and what the procedure waits for is always
what the table derives from its state."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from characters import services
from rolls import runner
from rolls.models import Flow, FlowStatus
from rulesets.event.procedures.action import ACTION_PROCEDURE, ActionState
from rulesets.event.tests.roll_fixtures import EventRollTable, build_event_roll_table
from systems.dice import ScriptedDice
from systems.errors import RulesError

pytestmark = pytest.mark.django_db

ALL_ON = {
    "core": {"narration_veto": True},
    "optional": {
        "communal_pool": {"enabled": True, "veto_on_take": True},
        "wild_die": {"enabled": True},
        "reckless_roll": {"enabled": True},
        "talent": {"enabled": True},
    },
}
PARAMS: dict[str, dict[str, Any]] = {
    "choose": {"choice": "ROLL"},
    "talent": {"index": 0},
    "narrate": {"text": "Así fue."},
    "reformulate": {"text": "Mejor así."},
    "gm_narrate": {"text": "Lo cuenta el máster."},
    "defend": {"argument": "Tiene sentido."},
    "propose_wild": {"text": "Me hiero."},
    "propose_reckless": {"text": "Me caigo."},
    "counter_bet": {"text": "Pierdes la bolsa."},
}
STEPS = [step.key for step in ACTION_PROCEDURE.steps]


@pytest.fixture
def t() -> EventRollTable:
    table = build_event_roll_table(ALL_ON, prefix="prop_")
    services.apply_operation(
        actor=table.gm, campaign=table.campaign, operation="open_communal_pool", params={"dice": 3}
    )
    return table


def awaited_keys(flow: Flow) -> set[str]:
    return {entry["step"] for entry in (flow.waiting_for or {}).get("steps", [])}


def table_keys(flow: Flow) -> set[str]:
    state = ActionState.model_validate(flow.state)
    return {step.key for step, _actors in ACTION_PROCEDURE.offered(state) if step.awaited}


@given(
    moves=st.lists(st.tuples(st.sampled_from(["gm", "paco", "daria"]), st.sampled_from(STEPS)), max_size=14),
    difficulty=st.integers(min_value=1, max_value=6),
    faces=st.lists(st.integers(min_value=1, max_value=6), min_size=40, max_size=40),
)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_refusals_and_waiting_follow_the_table(
    t: EventRollTable, moves: list[tuple[str, str]], difficulty: int, faces: list[int]
) -> None:
    people = {"gm": t.gm, "paco": t.paco, "daria": t.daria}
    flow = runner.start_procedure(
        actor=t.gm,
        scene=t.scene,
        kind="action",
        params={"character": t.gorton.pk, "difficulty": difficulty, "skill": "Intimidar"},
        dice=ScriptedDice(faces),
    )
    flow.refresh_from_db()
    for who, key in moves:
        if flow.status != FlowStatus.OPEN:
            break
        offered = {s.key for s, _a in ACTION_PROCEDURE.offered(ActionState.model_validate(flow.state))}
        try:
            runner.take_step(
                actor=people[who], flow=flow, step=key, params=PARAMS.get(key, {}), dice=ScriptedDice(faces)
            )
        except RulesError as refused:
            if key not in offered:
                assert refused.code == "step_not_available"
        except (PermissionDenied, ValidationError):
            assert key in offered  # not this viewer's, or params the step refuses: only for an offered step
        else:
            assert key in offered
        flow.refresh_from_db()
        if flow.status == FlowStatus.OPEN:
            assert awaited_keys(flow) == table_keys(flow)
        else:
            assert flow.waiting_for == {}
