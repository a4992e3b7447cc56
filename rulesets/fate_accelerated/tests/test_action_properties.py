"""The action's invocation window as pure steps (no database): for any sequence of invocations and vetoes,
the provisional total is the roll plus +2 per standing invocation, and the fate points the steps move
through the ledger balance with the invocations still paid for. The steps read only the ``Table``."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns.policy import Viewer
from rulesets.fate_accelerated.procedures.action import (
    ACTION,
    ActionState,
    InvokeParams,
    Phase,
    VetoParams,
    _invoke,
    _veto,
)
from rulesets.fate_accelerated.tests.sheet_fixtures import ana_sheet
from rulesets.kit.procedures import StepInput
from rulesets.kit.table import CharacterFacts, Table
from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.fate_accelerated.actions import Action, Approach
from systems.fate_accelerated.rolls import ActionRoll, RollPhase
from systems.fate_accelerated.sheet import new_character

ANA = CharacterFacts(
    id=7,
    name="Ana",
    owner_id=2,
    is_npc=False,
    approved=True,
    sheet=new_character({"name": "Ana", **ana_sheet()}).model_dump(mode="json"),
)
PLAYER = Viewer(user_id=2, campaign_id=1, campaign_public=False, role="player")
TABLE = Table(campaign_id=1, scene_id=3, language="es", settings=None, characters={7: ANA}, rolls=())
ASPECTS = ("character:7:high_concept", "character:7:trouble", "character:7:aspect:0")
BASE = 2  # faces "0000" + quick +2


def _window() -> ActionState:
    roll = ActionRoll(
        key="11",
        actor="7",
        action=Action.OVERCOME,
        approach=Approach.QUICK,
        approach_rating=2,
        faces="0000",
        phase=RollPhase.ROLLED,
    )
    state = ActionState(
        phase=Phase.WINDOW,
        action=Action.OVERCOME,
        character=7,
        character_name="Ana",
        roller=2,
        players=[2],
        difficulty=3,
        roll_id=11,
        roll=roll,
        total=BASE,
    )
    return state


def _no_roll(spec: Any) -> Any:
    raise AssertionError("the window rolls no new dice here")


def _run(state: ActionState, run: Any, params: Any) -> Any:
    return run(
        StepInput(
            state=state,
            secret=None,
            params=params,
            table=TABLE,
            viewer=PLAYER,
            dice=ScriptedDice([]),
            roll=_no_roll,
            procedure_id=1,
        )
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(ASPECTS), st.just("veto")), max_size=8))
def test_totals_and_fate_points_follow_the_standing_invocations(moves: list[str]) -> None:
    state, fate_points = _window(), 0
    for move in moves:
        try:
            if move == "veto":
                outcome = _run(state, _veto, VetoParams(roll="action"))
            else:
                params = InvokeParams.model_validate({"aspect": move, "justification": "Porque sí."})
                outcome = _run(state, _invoke, params)
        except RulesError:
            continue  # the same aspect twice on one roll, or nothing to veto: refused, nothing changes
        state = outcome.state
        for op in outcome.ledger:
            fate_points += {"spend_fate_point": -1, "gain_fate_point": 1}[op.operation]
        assert outcome.record  # every step that happens leaves a line
    standing = len(state.roll.invocations) if state.roll else 0
    assert state.total == BASE + 2 * standing
    assert fate_points == -standing
    assert len(state.invoked) == standing  # the words of each standing invocation, for the veto's picker
    assert ACTION.waiting(state, TABLE)[0].step == "settle"
