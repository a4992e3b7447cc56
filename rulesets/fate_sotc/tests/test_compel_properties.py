"""A property of the compel's step table, on the pure steps (no database): whatever steps are tried, in
whatever order and by whomever, only whom the table names may take a step, the target's fate points never
go below zero, what the procedure waits for is always an awaited step it offers, and nothing is offered
once it closed."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns.models import Role
from campaigns.policy import Viewer
from rulesets.fate_sotc.procedures.compel import COMPEL, CompelState
from rulesets.fate_sotc.tests.sheet_fixtures import sheet_data
from rulesets.kit.procedures import NoParams, StepInput
from rulesets.kit.table import GM, CharacterFacts, Table
from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.fate_sotc.compels import Compel, CompelKind

PLAYER, OTHER = 3, 4
STEPS = [step.key for step in COMPEL.steps]


def table(fate_points: int) -> Table:
    hero = CharacterFacts(7, "Sally", PLAYER, False, True, {**sheet_data(), "fate_points": fate_points})
    return Table(campaign_id=1, scene_id=1, language="es", settings=None, characters={7: hero}, rolls=[])


def viewer(who: Any) -> Viewer:
    if who == GM:
        return Viewer(user_id=1, campaign_id=1, campaign_public=False, role=Role.GM)
    return Viewer(user_id=who, campaign_id=1, campaign_public=False, role=Role.PLAYER)


DELTA = {"compel_accepted": 1, "gm_foreshadow_gift": 1, "refuse_gm_gift": -1, "compel_buy_off": -1}


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from([CompelKind.GM, CompelKind.FORESHADOW]),
    fate_points=st.integers(0, 3),
    tries=st.lists(st.tuples(st.sampled_from(STEPS), st.sampled_from([GM, PLAYER, OTHER])), max_size=12),
)
def test_the_compel_table_holds_whatever_is_tried(kind: CompelKind, fate_points: int, tries: list[Any]) -> None:
    state = CompelState(
        phase="offered", character_id=7, name="Sally", actor=PLAYER, aspect="Orgullosa", compel=Compel(kind)
    )
    points, closed = fate_points, False
    for key, who in tries:
        actors = COMPEL.actors(state, key)
        if closed:
            assert not COMPEL.offered(state)
        if who not in actors:  # the runner refuses it (step_not_available or PermissionDenied): nothing changes
            continue
        given_ = StepInput(state, None, NoParams(), table(points), viewer(who), ScriptedDice([]), lambda spec: None, 1)  # type: ignore[arg-type, return-value]
        try:
            outcome = COMPEL.step(key).run(given_)
        except RulesError:
            continue  # the rules refuse (a stake the target cannot pay): nothing changes
        for op in outcome.ledger:
            points += DELTA[op.operation] * int(op.params.get("amount", 1))
        assert points >= 0
        state, closed = outcome.state, closed or outcome.closes is not None
        waits = COMPEL.waiting(state, table(points))
        offered = {step.key for step, _who in COMPEL.offered(state) if step.awaited}
        assert {w.step for w in waits} == offered
        if closed:
            assert state.phase == "done" and not COMPEL.offered(state)
