"""Event §9.10–§9.12: exploding dice, highlighted talent, N-sided dice."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.event.action import ActionStage, Choice, Gate, choose, decline_talent, start_action, talent_reroll
from systems.event.creation import roll_order
from systems.event.desafio import Participant, Stage, commit, start_interaction, talent_decision
from systems.event.desafio import roll_tiebreak as roll_fist_tiebreak
from systems.event.ladder import Level, Outcome, derived_scale, level_of
from systems.event.pool import PoolBreakdown, PoolRequest, build_pool
from systems.event.settings import EventSettings, NSidedRule
from systems.event.sheet import EventSheet, Skill
from tests.systems.vectors import vector

ABS, PAR, FAIL, CRIT = (
    Outcome.ABSOLUTE_SUCCESS,
    Outcome.PARTIAL_SUCCESS,
    Outcome.FAILURE,
    Outcome.CRITICAL_FAILURE,
)


def settings_with(**optional: dict[str, Any]) -> EventSettings:
    return EventSettings.model_validate({"optional": optional})


def pool_of(size: int, talent: bool = False) -> PoolBreakdown:
    return PoolBreakdown(skill_dice=size - 1, talent_built=talent)


EXPLODING = settings_with(exploding_dice={"enabled": True})

# --- §9.10 exploding dice ----------------------------------------------------------------------------

EXPLOSIONS: dict[str, tuple[dict[str, Any] | None, int, int, list[int], tuple[int, ...], Outcome, int]] = {
    # vector: (exploding rule or None = off, pool, diff, stream, final dice, outcome, unused stream values)
    "event-93": ({}, 1, 6, [6, 6, 2], (6, 6, 2), ABS, 0),
    "event-94": ({}, 1, 6, [6, 3], (6, 3), PAR, 0),
    "event-95": ({}, 2, 4, [6, 1, 1], (6, 1, 1), PAR, 0),
    "event-96": ({"scope": ["interactions"]}, 1, 6, [6], (6,), PAR, 0),
    "event-98": ({}, 3, 3, [6, 1, 1, 6, 5], (6, 1, 1, 6, 5), ABS, 0),
    "event-99": ({"chain": False}, 1, 6, [6, 6, 6], (6, 6), ABS, 1),
    "event-100": (None, 1, 6, [6], (6,), PAR, 0),
    "event-102": ({"max_extra_dice": 2}, 1, 6, [6, 6, 6, 6], (6, 6, 6), ABS, 1),
}


@vector(*EXPLOSIONS)
def test_exploding_action_rolls(vector_id: str) -> None:
    rule, pool, difficulty, stream, final, outcome, unused = EXPLOSIONS[vector_id]
    settings = settings_with(exploding_dice={"enabled": True, **rule}) if rule is not None else EventSettings()
    dice = ScriptedDice(stream)
    state = choose(start_action(pool_of(pool), difficulty, settings), Choice.ROLL, dice)
    assert state.dice == final
    assert state.outcome is outcome
    assert dice.remaining == unused


@vector("event-97")
def test_automatic_outcome_never_explodes(vector_id: str) -> None:
    from systems.event import resolve

    dice = ScriptedDice([6, 6, 6, 6, 6])
    state = resolve("action", {"difficulty": 3, "skill_dice": 3}, dice, EXPLODING)
    assert (state.gate, state.outcome, state.rolled) == (Gate.AUTO_ABSOLUTE, ABS, False)
    assert dice.remaining == 5


@vector("event-101")
def test_order_roll_explodes_only_with_creation_scope(vector_id: str) -> None:
    every = settings_with(exploding_dice={"enabled": True, "scope": ["actions", "interactions", "creation_order"]})
    roll = roll_order(ScriptedDice([6, 2, 3, 4]), every)
    assert (roll.dice, roll.total) == ((6, 2, 3, 4), 15)
    plain = roll_order(ScriptedDice([6, 2, 3, 4]), EXPLODING)
    assert (plain.dice, plain.total) == ((6, 2, 3), 11)


# --- §9.11 highlighted talent ------------------------------------------------------------------------

TALENT = settings_with(talent={"enabled": True})
TALENT_EXPLODING = settings_with(talent={"enabled": True}, exploding_dice={"enabled": True})

REROLLS = {
    # vector: (settings, pool, diff, stream incl. the reroll value(s), index, final, outcome)
    "event-104": (TALENT, 2, 4, [4, 3, 2], 1, (4, 2), PAR),
    "event-105": (TALENT, 2, 3, [1, 1, 1], 0, (1, 1), CRIT),
    "event-109": (TALENT_EXPLODING, 2, 5, [2, 1, 6, 5], 1, (2, 6, 5), ABS),
    "event-110": (TALENT, 1, 5, [1, 5], 0, (5,), PAR),
}


@vector("event-103")
def test_talent_reroll_from_the_sheet(vector_id: str) -> None:
    sheet = EventSheet(skills=(Skill(name="Atletismo", improvements=1),), talent="atletismo")
    pool = build_pool(sheet, PoolRequest(skills=("Atletismo",)), TALENT)
    assert (pool.total, pool.talent_built) == (3, True)
    dice = ScriptedDice([4, 2, 1, 5])
    state = choose(start_action(pool, 4, TALENT), Choice.ROLL, dice)
    assert (state.stage, state.outcome) == (ActionStage.TALENT_DECISION, PAR)
    state = talent_reroll(state, 2, dice)
    assert (state.dice, state.outcome, state.stage) == ((4, 2, 5), ABS, ActionStage.RESOLVED)
    assert state.throws[0].rolled == (4, 2, 1)  # the original throw stays on record


@vector(*REROLLS)
def test_talent_reroll_replaces_even_if_lower(vector_id: str) -> None:
    settings, pool, difficulty, stream, index, final, outcome = REROLLS[vector_id]
    dice = ScriptedDice(stream)
    state = choose(start_action(pool_of(pool, talent=True), difficulty, settings), Choice.ROLL, dice)
    state = talent_reroll(state, index, dice)
    assert (state.dice, state.outcome) == (final, outcome)
    assert dice.remaining == 0


@vector("event-106")
def test_reroll_needs_the_talent_skill(vector_id: str) -> None:
    sheet = EventSheet(skills=(Skill(name="Carterista"), Skill(name="Abrir cerraduras")), talent="carterista")
    pool = build_pool(sheet, PoolRequest(skills=("Abrir cerraduras",)), TALENT)
    assert not pool.talent_built
    dice = ScriptedDice([1, 2, 3])
    state = choose(start_action(pool, 4, TALENT), Choice.ROLL, dice)
    with pytest.raises(RulesError) as err:
        talent_reroll(state, 0, dice)
    assert err.value.code == "TALENT_NOT_USED"


@vector("event-107")
def test_no_talent_decision_on_automatic_outcomes(vector_id: str) -> None:
    state = start_action(pool_of(4, talent=True), 3, TALENT)
    assert (state.gate, state.stage, state.outcome) == (Gate.AUTO_ABSOLUTE, ActionStage.RESOLVED, ABS)
    with pytest.raises(RulesError) as err:
        talent_reroll(state, 0, ScriptedDice([6]))
    assert err.value.code == "NO_ROLL"


@vector("event-108")
def test_one_talent_reroll_per_roll(vector_id: str) -> None:
    dice = ScriptedDice([2, 2, 3, 6])
    state = talent_reroll(choose(start_action(pool_of(2, talent=True), 4, TALENT), Choice.ROLL, dice), 0, dice)
    with pytest.raises(RulesError) as err:
        talent_reroll(state, 1, dice)
    assert err.value.code == "TALENT_ALREADY_USED"


@vector("event-111")
def test_talent_in_a_desafio_tiebreak(vector_id: str) -> None:
    settings = settings_with(talent={"enabled": True, "in_desafio_tiebreaks": True})
    a = Participant("A", 2, narrator="A", seat=1, talent_built=True)
    b = Participant("B", 2, narrator="B", seat=2)
    ix = start_interaction([a, b], settings)
    ix = commit(commit(ix, "A", 2, 0), "B", 2, 0)
    dice = ScriptedDice([3, 2, 5, 1, 6])
    ix = roll_fist_tiebreak(ix, dice)
    assert ix.stage is Stage.LEFT_TIEBREAK and ix.tiebreak is not None
    assert ix.tiebreak.talent_pending == {"A"}
    ix = talent_decision(ix, "A", 1, dice)
    assert ix.left is not None
    assert dict(ix.left.rolls) == {"A": (3, 6), "B": (5, 1)}
    assert ix.left.winner() == "A"


@vector("event-112")
def test_declining_the_talent_keeps_the_roll(vector_id: str) -> None:
    dice = ScriptedDice([4, 3])
    state = choose(start_action(pool_of(2, talent=True), 4, TALENT), Choice.ROLL, dice)
    state = decline_talent(state)
    assert (state.dice, state.outcome, state.stage, state.talent_used) == ((4, 3), PAR, ActionStage.RESOLVED, False)


# --- §9.12 N-sided dice ------------------------------------------------------------------------------

SCALES = {
    "event-113": (10, ((1, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 10))),
    "event-114": (8, ((1, 1), (2, 3), (4, 4), (5, 6), (7, 7), (8, 8))),
    "event-115": (12, ((1, 1), (2, 4), (5, 6), (7, 9), (10, 11), (12, 12))),
    "event-116": (20, ((1, 1), (2, 6), (7, 10), (11, 15), (16, 19), (20, 20))),
    "event-117": (6, ((1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6))),
}


@vector(*SCALES)
def test_derived_scale(vector_id: str) -> None:
    sides, expected = SCALES[vector_id]
    scale = derived_scale(sides)
    assert scale == expected
    levels = [level_of(v, scale) for v in range(1, sides + 1)]
    assert levels[0] is Level.TRIVIAL and levels[-1] is Level.VERY_HARD
    if vector_id == "event-113":
        names = {v: level_of(v, scale).name for v in range(1, 11)}
        assert names == {
            1: "TRIVIAL", 2: "EASY", 3: "EASY", 4: "COMMON", 5: "COMMON",
            6: "COMPLICATED", 7: "COMPLICATED", 8: "HARD", 9: "HARD", 10: "VERY_HARD",
        }  # fmt: skip


D10 = settings_with(n_sided={"enabled": True, "sides": 10})
D10_RANK = settings_with(n_sided={"enabled": True, "sides": 10, "gate_basis": "rank"})
D10_EXPLODING = settings_with(n_sided={"enabled": True, "sides": 10}, exploding_dice={"enabled": True})

D10_ROLLS = {
    "event-118": [(D10, 3, 5, [5, 9, 2], ABS)],
    "event-119": [(D10, 3, 5, [4, 4, 10], PAR)],
    "event-120": [(D10, 3, 5, [1, 1, 1], CRIT), (D10, 3, 5, [2, 3, 4], FAIL)],
    "event-124": [(D10_EXPLODING, 1, 8, [10, 8], ABS), (D10_EXPLODING, 1, 8, [6], FAIL)],
}


@vector(*D10_ROLLS)
def test_d10_rolls(vector_id: str) -> None:
    for settings, pool, difficulty, stream, outcome in D10_ROLLS[vector_id]:
        dice = ScriptedDice(stream)
        state = choose(start_action(pool_of(pool), difficulty, settings), Choice.ROLL, dice)
        assert (state.dice, state.outcome) == (tuple(stream), outcome)
        assert dice.remaining == 0


@vector("event-121", "event-122")
def test_gate_basis_value_or_rank(vector_id: str) -> None:
    pool, difficulty, by_value, by_rank = {
        "event-121": (4, 5, Gate.CHOOSE_FAILURE_OR_ROLL, Gate.AUTO_ABSOLUTE),
        "event-122": (3, 4, Gate.CHOOSE_FAILURE_OR_ROLL, Gate.CHOOSE_PARTIAL_OR_ROLL),
    }[vector_id]
    assert start_action(pool_of(pool), difficulty, D10).gate is by_value
    assert level_of(difficulty, D10_RANK.scale) is Level.COMMON
    assert start_action(pool_of(pool), difficulty, D10_RANK).gate is by_rank


@vector("event-123")
def test_d10_difficulty_range(vector_id: str) -> None:
    for difficulty in (11, 0):
        with pytest.raises(RulesError) as err:
            start_action(pool_of(2), difficulty, D10)
        assert err.value.code == "DIFFICULTY_OUT_OF_RANGE"
    assert start_action(pool_of(2), 10, D10).difficulty == 10


@vector("event-125")
def test_small_dice_need_a_scale(vector_id: str) -> None:
    with pytest.raises(ValidationError) as err:
        NSidedRule(enabled=True, sides=4, scale=None)
    assert err.value.errors()[0]["type"] == "SCALE_REQUIRED"


@vector("event-126")
def test_custom_scale_must_cover_every_value(vector_id: str) -> None:
    good = [[1, 1], [2, 3], [4, 4], [5, 6], [7, 7], [8, 8]]
    settings = settings_with(n_sided={"enabled": True, "sides": 8, "scale": good})
    assert level_of(4, settings.scale) is Level.COMMON
    with pytest.raises(ValidationError) as err:
        settings_with(n_sided={"enabled": True, "sides": 8, "scale": [[1, 1], [2, 3], [5, 5], [6, 6], [7, 7], [8, 8]]})
    assert err.value.errors()[0]["type"] == "SCALE_INVALID"
