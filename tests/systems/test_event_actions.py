"""Event §9.1–§9.4: pool construction, the automatic-outcome gate, roll evaluation, resolution order."""

from __future__ import annotations

import pytest

from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.event.action import ActionStage, Choice, Gate, choose, start_action
from systems.event.batch import BatchEntry, narration_order
from systems.event.communal import OpenSessionParams, TakeParams, open_communal_pool, take_communal_die
from systems.event.ladder import Narrator, Outcome, evaluate
from systems.event.pool import PoolBreakdown, PoolRequest, build_pool
from systems.event.reactions import (
    ValueReactionParams,
    WriteReactionParams,
    reveal_reaction,
    value_reaction,
    write_reaction,
)
from systems.event.settings import EventSettings
from systems.event.sheet import EventSheet, Skill
from tests.systems.vectors import vector

ABS, PAR, FAIL, CRIT = (
    Outcome.ABSOLUTE_SUCCESS,
    Outcome.PARTIAL_SUCCESS,
    Outcome.FAILURE,
    Outcome.CRITICAL_FAILURE,
)


def sheet(**skills: int) -> EventSheet:
    return EventSheet(skills=tuple(Skill(name=n.replace("_", " "), improvements=i) for n, i in skills.items()))


def pool_of(size: int) -> PoolBreakdown:
    return PoolBreakdown(skill_dice=size - 1)


# --- §9.1 pool construction --------------------------------------------------------------------------

POOLS = {
    "event-1": (sheet(), (), 1),
    "event-2": (sheet(Resistencia=1), ("Resistencia",), 3),
    "event-3": (sheet(Atletismo=2), ("Atletismo",), 4),
    "event-4": (sheet(Intimidar=0), ("Intimidar",), 2),
}


@vector("event-1", "event-2", "event-3", "event-4")
def test_pool_is_base_plus_one_skill_and_its_improvements(vector_id: str) -> None:
    character, skills, expected = POOLS[vector_id]
    assert build_pool(character, PoolRequest(skills=skills)).total == expected


@vector("event-5")
def test_interaction_pools_of_valy_and_khan(vector_id: str) -> None:
    valy = build_pool(sheet(Carterista=0), PoolRequest(skills=("Carterista",), skill_approved=True))
    khan = build_pool(sheet(Luchar=0), PoolRequest())
    assert (valy.total, khan.total) == (2, 1)


@vector("event-6")
def test_only_one_skill_counts(vector_id: str) -> None:
    character = sheet(Luchar=0, Esgrima=3)
    assert build_pool(character, PoolRequest(skills=("Esgrima",))).total == 5
    with pytest.raises(RulesError) as err:
        build_pool(character, PoolRequest(skills=("Luchar", "Esgrima")))
    assert err.value.code == "ONE_SKILL_ONLY"


@vector("event-7")
def test_all_extras_stack(vector_id: str) -> None:
    settings = EventSettings.model_validate(
        {
            "optional": {
                "communal_pool": {"enabled": True},
                "reactions": {"enabled": True},
                "wild_die": {"enabled": True},
            }
        }
    )
    reaction = write_reaction(
        None,
        WriteReactionParams(session=1, text="Si me atacan en la taberna", nonce="n" * 16, committed_at="t0"),
        settings,
    )
    reaction = value_reaction(reveal_reaction(reaction), ValueReactionParams(value=2), settings)
    request = PoolRequest(skills=("Atletismo",), communal_dice=1, wild_die=True)
    pool = build_pool(sheet(Atletismo=2), request, settings, reaction)
    remaining = take_communal_die(3, TakeParams(), settings)
    assert pool.total == 8
    assert (pool.skill_dice, pool.communal, pool.reaction, pool.wild) == (3, 1, 2, 1)
    assert remaining == 2
    assert open_communal_pool(remaining, OpenSessionParams(dice=3), settings) == 3


# --- §9.2 the gate -----------------------------------------------------------------------------------

GATES = {
    "event-8": (3, 3, Gate.CHOOSE_PARTIAL_OR_ROLL),
    "event-9": (1, 3, Gate.CHOOSE_FAILURE_OR_ROLL),
    "event-13": (7, 6, Gate.AUTO_ABSOLUTE),
    "event-14": (6, 6, Gate.CHOOSE_PARTIAL_OR_ROLL),
    "event-18": (2, 5, Gate.CHOOSE_FAILURE_OR_ROLL),
}


@vector("event-8", "event-9", "event-13", "event-14", "event-18")
def test_gate(vector_id: str) -> None:
    pool, difficulty, gate = GATES[vector_id]
    state = start_action(pool_of(pool), difficulty)
    assert state.gate is gate
    if gate is Gate.AUTO_ABSOLUTE:
        assert state.stage is ActionStage.RESOLVED and state.outcome is ABS and not state.rolled
    else:
        assert state.stage is ActionStage.AWAITING_CHOICE and Choice.ROLL in state.offered


@vector("event-10")
def test_take_partial_without_rolling(vector_id: str) -> None:
    pool = build_pool(sheet(Atletismo=2), PoolRequest(skills=("Atletismo",)))
    dice = ScriptedDice([])
    state = choose(start_action(pool, 4), Choice.TAKE_PARTIAL, dice)
    assert (state.outcome, state.rolled, state.dice, state.narrator) == (PAR, False, (), Narrator.GM)
    assert state.stage is ActionStage.RESOLVED


@vector("event-11", "event-12")
def test_automatic_absolute_success(vector_id: str) -> None:
    pool, difficulty = {"event-11": (4, 3), "event-12": (2, 1)}[vector_id]
    dice = ScriptedDice([6, 6, 6, 6])
    from systems.event import resolve

    state = resolve("action", {"difficulty": difficulty, "skill_dice": pool - 1}, dice)
    assert state.gate is Gate.AUTO_ABSOLUTE
    assert (state.outcome, state.rolled, state.narrator) == (ABS, False, Narrator.PLAYER)
    assert dice.remaining == 4  # no stream values used


@vector("event-15")
def test_take_failure_without_rolling(vector_id: str) -> None:
    state = choose(start_action(pool_of(1), 6), Choice.TAKE_FAILURE, ScriptedDice([]))
    assert (state.outcome, state.rolled, state.narrator) == (FAIL, False, Narrator.GM)


@vector("event-16")
def test_rolling_an_automatic_outcome_is_refused(vector_id: str) -> None:
    state = start_action(pool_of(4), 3)
    with pytest.raises(RulesError) as err:
        choose(state, Choice.ROLL, ScriptedDice([1, 1, 1, 1]))
    assert err.value.code == "AUTOMATIC_OUTCOME"
    assert state.outcome is ABS


@vector("event-17")
def test_only_offered_choices_are_accepted(vector_id: str) -> None:
    state = start_action(pool_of(3), 4)
    assert state.offered == (Choice.TAKE_FAILURE, Choice.ROLL)
    with pytest.raises(RulesError) as err:
        choose(state, Choice.TAKE_PARTIAL, ScriptedDice([]))
    assert err.value.code == "CHOICE_NOT_OFFERED"


# --- §9.3 roll evaluation ----------------------------------------------------------------------------

ROLLS = {
    "event-19": (3, 3, [2, 4, 6], ABS),
    "event-20": (1, 3, [3], PAR),
    "event-21": (1, 3, [1], CRIT),
    "event-22": (2, 5, [5, 5], ABS),
    "event-23": (1, 3, [2], FAIL),
    "event-24": (1, 3, [4], PAR),
    "event-25": (3, 4, [4, 4, 1], ABS),
    "event-26": (3, 4, [4, 3, 1], PAR),
    "event-27": (3, 4, [3, 3, 3], FAIL),
    "event-28": (2, 6, [6, 1], PAR),
    "event-29": (2, 2, [1, 1], CRIT),
    "event-30": (2, 2, [1, 2], PAR),
    "event-31": (4, 5, [1, 1, 2, 1], FAIL),
    "event-32": (1, 1, [1], PAR),
    "event-33": (2, 6, [1, 1], CRIT),
    "event-34": (5, 6, [5, 5, 5, 5, 5], FAIL),
    "event-35": (2, 2, [6, 6], ABS),
    "event-36": (1, 2, [1], CRIT),
}


@vector(*ROLLS)
def test_roll_evaluation_in_order(vector_id: str) -> None:
    pool, difficulty, stream, outcome = ROLLS[vector_id]
    dice = ScriptedDice(stream)
    state = choose(start_action(pool_of(pool), difficulty), Choice.ROLL, dice)
    assert state.dice == tuple(stream)
    assert state.outcome is outcome
    assert state.narrator is (Narrator.PLAYER if outcome is ABS else Narrator.GM)
    assert dice.remaining == 0
    assert evaluate(stream, difficulty) is outcome


@vector("event-37")
def test_an_empty_pool_cannot_be_evaluated(vector_id: str) -> None:
    with pytest.raises(RulesError) as err:
        evaluate([], 3)
    assert err.value.code == "EMPTY_POOL"


# --- §9.4 resolution order ---------------------------------------------------------------------------


@vector("event-38")
def test_batch_narrates_worst_first(vector_id: str) -> None:
    entries = [
        BatchEntry("Khan", ABS, seat=1, player="Daria"),
        BatchEntry("Gorton", PAR, seat=2, player="Paco"),
        BatchEntry("Valy", CRIT, seat=3, player="Jenny"),
    ]
    slots = narration_order(entries)
    assert [(s.character, s.narrator) for s in slots] == [
        ("Valy", Narrator.GM),
        ("Gorton", Narrator.GM),
        ("Khan", Narrator.PLAYER),
    ]
    assert slots[-1].player == "Daria"


@vector("event-39")
def test_equal_outcomes_by_seat(vector_id: str) -> None:
    outcomes = {"A": ABS, "B": FAIL, "C": CRIT, "D": PAR, "E": FAIL}
    entries = [BatchEntry(c, o, seat=i) for i, (c, o) in enumerate(outcomes.items(), start=1)]
    assert [s.character for s in narration_order(entries[::-1], "seat")] == ["C", "B", "E", "D", "A"]
