"""Spec §8.1: the core roll and challenges (vectors presagios-1..14)."""

from __future__ import annotations

import pytest

import systems.presagios as presagios_rules
from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.presagios import challenge as ch
from systems.presagios.dice import Tool, core_result, pool_size, roll_pool, tool_dice_for
from systems.presagios.rolls import RollRequest
from systems.presagios.settings import OmenFaceValue, PresagiosSettings
from systems.presagios.traits import NamedTrait, chosen_trait, trait_bonus
from tests.systems.test_presagios_fixtures import principal, table, with_c1
from tests.systems.vectors import vector

ZERO_OMENS = PresagiosSettings(omen_face_value=OmenFaceValue.ZERO)

# vector: (current, dice, expected dice_result, expected omens)
CORE = {
    "presagios-1": (3, [2, 4, 4], 5, 0),
    "presagios-2": (3, [4, 4, 4], 6, 0),
    "presagios-3": (3, [2, 2, 4], 4, 0),
    "presagios-4": (5, [6, 6, 6, 6, 6], 10, 0),
    "presagios-5": (3, [1, 1, 1], 3, 3),
}


@vector(*CORE)
def test_keep_highest_plus_duplicates(vector_id: str) -> None:
    current, faces, dice_result, omens = CORE[vector_id]
    dice = ScriptedDice(faces)
    roll = roll_pool(dice, pool_size(current), 0)
    assert dice.remaining == 0
    assert roll.dice == tuple(faces)
    assert roll.dice_result == dice_result
    assert roll.omens == omens
    assert roll.total == dice_result


@vector("presagios-5")
def test_omen_face_worth_zero_gives_no_duplicate_bonus(vector_id: str) -> None:
    assert core_result((1, 1, 1), 0, ZERO_OMENS).dice_result == 0
    assert core_result((1, 1, 1), 0, ZERO_OMENS).omens == 3


@vector("presagios-6")
def test_current_zero_rolls_no_dice_but_trait_adds(vector_id: str) -> None:
    assert pool_size(0, 0) == 0
    roll = presagios_rules.RULESET.resolve("roll", {"current": 0, "trait_bonus": 2}, ScriptedDice([]))
    assert (roll.dice, roll.dice_result, roll.omens, roll.total) == ((), 0, 0, 2)


@vector("presagios-7")
def test_omen_is_unsettling(vector_id: str) -> None:
    roll = roll_pool(ScriptedDice([1, 3]), pool_size(2), 2)
    assert (roll.dice_result, roll.omens, roll.total, roll.unsettling) == (3, 1, 5, True)


@vector("presagios-8", "presagios-9")
def test_challenge_against_secret_difficulty(vector_id: str) -> None:
    difficulty, success, label = {"presagios-8": (7, True, "Éxito"), "presagios-9": (8, False, "Fallo")}[vector_id]
    tools = tool_dice_for(Tool.LARGE_MELEE)
    assert tools == 2
    request = {"current": 3, "tool_dice": tools, "trait_bonus": 1, "difficulty": difficulty}
    result = presagios_rules.RULESET.resolve("challenge", request, ScriptedDice([5, 1, 5, 2, 3]))
    assert (result.roll.dice_result, result.roll.omens, result.roll.total) == (6, 1, 7)
    assert result.success is success
    public = result.public("es")
    assert public["outcome"] == label
    assert "difficulty" not in public
    if not success:  # "Fallo" and nothing that gives the 8 away
        assert difficulty not in public.values()


@vector("presagios-9")
def test_challenge_flow_never_publishes_the_difficulty(vector_id: str) -> None:
    sheet = with_c1(principal((3, 3, 3)), 3)
    flow = ch.confirm_setup(ch.open_challenge("x", "ana", "c1", difficulty=8, tool_dice=2))
    trait = NamedTrait("c1-0", 1)
    flow, state = ch.roll_challenge(flow, table(0, ana=sheet), ScriptedDice([5, 1, 5, 2, 3]), traits=(trait,))
    flow, state = ch.judge_traits(flow, state, {"c1-0"})
    assert flow.last.roll is not None and flow.last.roll.total == 7
    assert flow.last.success is False
    public = flow.public()
    assert public["attempts"][0]["outcome"] == "Fallo"  # type: ignore[index]
    assert "difficulty" not in public
    assert "difficulty" not in repr(flow)


@vector("presagios-10")
def test_only_the_highest_accepted_trait_applies(vector_id: str) -> None:
    proposed = (NamedTrait("Boxeador", 1), NamedTrait("Pendenciero", 3))
    assert trait_bonus(proposed, {"Boxeador", "Pendenciero"}) == 3
    assert chosen_trait(proposed, {"Boxeador"}) == proposed[0]
    flow = ch.confirm_setup(ch.open_challenge("x", "ana", "c1", difficulty=5))
    state = table(0, ana=with_c1(principal((3, 3, 3)), 2))
    flow, state = ch.roll_challenge(flow, state, ScriptedDice([3, 5]), traits=proposed)
    assert flow.stage is ch.ChallengeStage.ROLLED  # outcome held until the GM judges
    flow, state = ch.judge_traits(flow, state, {"Boxeador", "Pendenciero"})
    assert flow.last.roll is not None
    assert (flow.last.roll.trait_bonus, flow.last.roll.total) == (3, 8)


@vector("presagios-11")
def test_tools_add_dice(vector_id: str) -> None:
    assert pool_size(2, tool_dice_for(Tool.SHORT_FIREARM)) == 4
    assert pool_size(2, tool_dice_for(Tool.LONG_FIREARM)) == 5
    assert pool_size(2, tool_dice_for(Tool.OTHER, gm_dice=3)) == 5


@vector("presagios-12")
def test_more_than_three_tool_dice_is_rejected(vector_id: str) -> None:
    with pytest.raises(RulesError) as err:
        pool_size(4, 4)
    assert err.value.code == "TOOL_DICE_RANGE"
    with pytest.raises(RulesError) as err:
        RollRequest.model_validate({"current": 4, "tool_dice": 4})
    assert err.value.code == "TOOL_DICE_RANGE"
    with pytest.raises(RulesError) as err:
        ch.open_challenge("x", "ana", "c1", difficulty=5, tool_dice=4)
    assert err.value.code == "TOOL_DICE_RANGE"


@vector("presagios-13")
def test_locked_challenge_fails_automatically_without_dice(vector_id: str) -> None:
    state = table(2, ana=principal(locks={"X"}, overcome=3))
    flow = ch.confirm_setup(ch.open_challenge("X", "ana", "c1", difficulty=3))
    dice = ScriptedDice([])  # any die drawn would raise
    flow, after = ch.roll_challenge(flow, state, dice)
    assert flow.stage is ch.ChallengeStage.CLOSED
    assert flow.last.roll is None and flow.last.success is False
    assert flow.public()["attempts"][0]["outcome"] == "Fallo"  # type: ignore[index]
    assert after.threat == 2  # no omen check


@vector("presagios-14")
def test_paid_retry_rolls_again_and_checks_omens(vector_id: str) -> None:
    state = table(2, ana=principal(locks={"X"}, overcome=3))
    flow = ch.confirm_setup(ch.open_challenge("X", "ana", "c1", difficulty=3))
    flow, state = ch.pay_retry(flow, state)
    assert (state.overcome("ana"), state.threat) == (2, 3)
    flow, state = ch.roll_challenge(flow, state, ScriptedDice([1, 1, 2]))
    assert flow.last.roll is not None and flow.last.roll.omens == 2
    assert flow.last.omen_hit and state.threat == 4  # 2*2 >= 3: the check ran on the new roll
    with pytest.raises(RulesError) as err:  # the retry lifted the lock for exactly one roll
        ch.pay_retry(ch.confirm_setup(ch.open_challenge("Y", "ana", "c1", difficulty=3)), state)
    assert err.value.code == "RETRY_NOT_FAILED"
