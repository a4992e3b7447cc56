"""Fate Accelerated: totals, stunts, helpers (§9.3) and the four actions (§9.5-9.8)."""

from __future__ import annotations

import pytest

from systems.errors import RulesError
from systems.fate_accelerated.actions import Action, Approach, CAMode, Cost, FailChoice
from systems.fate_accelerated.aspects import GM, AspectStatus, FreeInvocationGrant, RemovedReason, situation_aspect
from systems.fate_accelerated.invocations import invoke
from systems.fate_accelerated.ladder import Outcome
from systems.fate_accelerated.outcomes import Role, resolve_attack
from systems.fate_accelerated.resolution import apply_advantage, apply_overcome, settle_action
from systems.fate_accelerated.rolls import InvokeEffect, InvokePayment, RollPhase, declare_action
from systems.fate_accelerated.settings import FaeSettings
from tests.systems.test_fate_accelerated_fixtures import (
    ANA,
    BRUNO,
    CARLA,
    EVA,
    FEDE,
    SCENE,
    ana,
    at_total,
    bruno,
    carla,
    e1,
    rolled,
)
from tests.systems.vectors import vector

# --- §9.3 totals, stunts, helpers -------------------------------------------------------------------


@vector("fate-accelerated-TV-009")
def test_total_is_dice_plus_approach(vector_id: str) -> None:
    roll = rolled("r", ANA, ana(), Action.OVERCOME, Approach.SNEAKY, "-+0+", difficulty=2)
    assert roll.dice_total == 1 and roll.approach_rating == 3
    assert roll.total == 4


@vector("fate-accelerated-TV-010")
def test_stunt_applies(vector_id: str) -> None:
    roll = rolled("r", ANA, ana(), Action.CREATE_ADVANTAGE, Approach.SNEAKY, "0000", difficulty=2, stunts=["S1"])
    assert roll.stunt_bonus == 2
    assert roll.total == 5


@vector("fate-accelerated-TV-011")
def test_stunt_wrong_action(vector_id: str) -> None:
    with pytest.raises(RulesError) as err:
        declare_action("r", ANA, ana(), Action.OVERCOME, Approach.SNEAKY, difficulty=2, stunts=["S1"])
    assert err.value.code == "stunt_not_applicable"
    roll = rolled("r", ANA, ana(), Action.OVERCOME, Approach.SNEAKY, "0000", difficulty=2)
    assert roll.total == 3


@vector("fate-accelerated-TV-012")
def test_stunt_wrong_approach(vector_id: str) -> None:
    with pytest.raises(RulesError) as err:
        declare_action("r", ANA, ana(), Action.CREATE_ADVANTAGE, Approach.FLASHY, difficulty=2, stunts=["S1"])
    assert err.value.code == "stunt_not_applicable"
    roll = rolled("r", ANA, ana(), Action.CREATE_ADVANTAGE, Approach.FLASHY, "+0+0", difficulty=2)
    assert roll.total == 2


@vector("fate-accelerated-TV-013")
def test_helpers_add_one_each_and_use_their_action(vector_id: str) -> None:
    declared = declare_action("r", ANA, ana(), Action.ATTACK, Approach.QUICK, helpers=[CARLA, EVA], exchange=e1())
    from systems.fate_accelerated.rolls import roll_dice
    from tests.systems.test_fate_accelerated_fixtures import dice

    roll = roll_dice(declared.roll, dice("0-00"))
    assert roll.total == -1 + 2 + 1 + 1 == 3
    assert declared.exchange is not None
    assert declared.exchange.has_acted(CARLA) and declared.exchange.has_acted(EVA)


@vector("fate-accelerated-TV-014")
def test_helper_who_acted_is_refused(vector_id: str) -> None:
    with pytest.raises(RulesError) as err:
        declare_action("r", ANA, ana(), Action.ATTACK, Approach.QUICK, helpers=[CARLA], exchange=e1(CARLA))
    assert err.value.code == "helper_already_acted"


@vector("fate-accelerated-TV-015")
def test_helper_cap_and_gm_override(vector_id: str) -> None:
    assert FaeSettings().max_helpers == 2
    with pytest.raises(RulesError) as err:
        declare_action("r", ANA, ana(), Action.OVERCOME, Approach.QUICK, difficulty=2, helpers=[CARLA, EVA, FEDE])
    assert err.value.code == "too_many_helpers"
    roll = rolled(
        "r",
        ANA,
        ana(),
        Action.OVERCOME,
        Approach.QUICK,
        "0000",
        difficulty=2,
        helpers=[CARLA, EVA, FEDE],
        max_helpers_override=3,
        exchange=e1(),
    )
    assert len(roll.helpers) == 3
    assert roll.total - roll.dice_total - roll.approach_rating == 3


@vector("fate-accelerated-TV-131")
def test_full_create_advantage_with_stunt_helper_and_invocation(vector_id: str) -> None:
    from systems.fate_accelerated.rolls import roll_dice
    from tests.systems.test_fate_accelerated_fixtures import dice

    declared = declare_action(
        "a",
        ANA,
        ana(),
        Action.CREATE_ADVANTAGE,
        Approach.SNEAKY,
        target=BRUNO,
        stunts=["S1"],
        helpers=[CARLA],
        exchange=e1(),
    )
    roll = roll_dice(declared.roll, dice("-0+0"))
    defend = rolled("d", BRUNO, bruno(), Action.DEFEND, Approach.CAREFUL, "+000")
    atenta = next(a for a in ana().aspects(ANA) if a.text == "Atenta a los detalles")
    inv = invoke(
        roll,
        atenta,
        invoker=ANA,
        effect=InvokeEffect.BONUS,
        payment=InvokePayment.FATE_POINT,
        invoker_fate_points=3,
        justification="Me fijo en cómo duda",
    )
    assert inv.roll.total == 0 + 3 + 2 + 1 + 2 == 8
    assert defend.total == 3
    result = settle_action(inv.roll, defend, ca_mode=CAMode.CREATE)
    assert (result.outcome, result.shifts) == (Outcome.SUCCESS_WITH_STYLE, 5)
    assert inv.invoker_fate_points == 2
    assert declared.exchange is not None and declared.exchange.has_acted(CARLA)


# --- §9.5 create an advantage -----------------------------------------------------------------------


def _ca_clever(faces: str, difficulty: int = 2):
    return rolled("ca", ANA, ana(), Action.CREATE_ADVANTAGE, Approach.CLEVER, faces, difficulty=difficulty)


@vector("fate-accelerated-TV-025")
def test_ca_fail_nothing(vector_id: str) -> None:
    roll = _ca_clever("00-0")
    assert roll.total == 1
    result = settle_action(roll, ca_mode=CAMode.CREATE, fail_choice=FailChoice.NOTHING)
    assert (result.outcome, result.shifts) == (Outcome.FAIL, -1)
    assert result.effects.aspect is None and result.effects.grants == ()
    assert apply_advantage(result, new_key="humo", new_text="Cortina de humo", scene=SCENE) is None
    with pytest.raises(RulesError) as err:  # a fail needs the actor's choice
        settle_action(roll, ca_mode=CAMode.CREATE)
    assert err.value.code == "fail_choice_required"


@vector("fate-accelerated-TV-026")
def test_ca_fail_grant_opponent(vector_id: str) -> None:
    result = settle_action(_ca_clever("00-0"), ca_mode=CAMode.CREATE, fail_choice=FailChoice.GRANT_OPPONENT)
    with pytest.raises(RulesError) as err:  # passive opposition: the GM must designate the recipient
        apply_advantage(result, new_key="humo", new_text="Cortina de humo", scene=SCENE)
    assert err.value.code == "recipient_required"
    aspect = apply_advantage(result, new_key="humo", new_text="Cortina de humo", scene=SCENE, opponent=BRUNO)
    assert aspect is not None and aspect.active and not aspect.hidden and aspect.scene == SCENE
    assert aspect.free_for(BRUNO) == 1 and aspect.free_for(ANA) == 0


@vector("fate-accelerated-TV-027")
def test_ca_create_tie_gives_boost(vector_id: str) -> None:
    roll = _ca_clever("0000")
    result = settle_action(roll, ca_mode=CAMode.CREATE)
    assert result.outcome is Outcome.TIE
    assert result.effects.aspect is None
    assert result.boost_holders == (ANA,)


@vector("fate-accelerated-TV-028")
def test_ca_discover_tie_counts_as_success(vector_id: str) -> None:
    miedo = next(a for a in bruno().aspects(BRUNO) if a.text == "Miedo a los ratones")
    assert miedo.hidden and not miedo.known_to(ANA)
    roll = rolled("ca", ANA, ana(), Action.CREATE_ADVANTAGE, Approach.CLEVER, "0000", target=BRUNO)
    defend = rolled("d", BRUNO, bruno(), Action.DEFEND, Approach.CAREFUL, "0000")
    result = settle_action(roll, defend, ca_mode=CAMode.DISCOVER)
    assert (result.total, result.target, result.outcome) == (2, 2, Outcome.TIE)
    assert result.defender_outcome is Outcome.TIE and Role.DEFENDER not in result.effects.boosts
    revealed = apply_advantage(result, aspect=miedo)
    assert revealed is not None and not revealed.hidden and revealed.known_to(ANA)
    assert revealed.free_for(ANA) == 1


@vector("fate-accelerated-TV-029")
def test_ca_create_success(vector_id: str) -> None:
    roll = rolled("ca", ANA, ana(), Action.CREATE_ADVANTAGE, Approach.SNEAKY, "+000", difficulty=2)
    result = settle_action(roll, ca_mode=CAMode.CREATE)
    assert (result.total, result.outcome, result.shifts) == (4, Outcome.SUCCESS, 2)
    aspect = apply_advantage(result, new_key="humo", new_text="Cortina de humo", scene=SCENE)
    assert aspect is not None and aspect.scene == SCENE
    assert aspect.grants == (FreeInvocationGrant(holder=ANA, remaining=1, same_roll_stacking=False, source="ca"),)


@vector("fate-accelerated-TV-030")
def test_ca_create_success_with_style(vector_id: str) -> None:
    roll = rolled("ca", ANA, ana(), Action.CREATE_ADVANTAGE, Approach.SNEAKY, "0+00", stunts=["S1"], target=BRUNO)
    defend = rolled("d", BRUNO, bruno(), Action.DEFEND, Approach.CAREFUL, "+000")
    result = settle_action(roll, defend, ca_mode=CAMode.CREATE)
    assert (result.total, result.target) == (6, 3)
    assert (result.outcome, result.shifts) == (Outcome.SUCCESS_WITH_STYLE, 3)
    assert result.defender_outcome is Outcome.FAIL and result.effects.boosts == ()
    aspect = apply_advantage(result, new_key="confiado", new_text="Confiado", scene=SCENE)
    assert aspect is not None and len(aspect.grants) == 1
    assert aspect.grants[0].holder == ANA and aspect.grants[0].remaining == 2 and aspect.grants[0].same_roll_stacking


def _multitud(*grants: FreeInvocationGrant):
    return situation_aspect("multitud", "Multitud enfurecida", SCENE).model_copy(update={"grants": grants})


EXPLOIT = {
    "fate-accelerated-TV-031": (1, Outcome.FAIL, []),
    "fate-accelerated-TV-032": (2, Outcome.TIE, [(ANA, 1, False)]),
    "fate-accelerated-TV-033": (3, Outcome.SUCCESS, [(ANA, 1, False)]),
    "fate-accelerated-TV-034": (5, Outcome.SUCCESS_WITH_STYLE, [(ANA, 2, True)]),
}


@vector(*EXPLOIT)
def test_ca_exploit(vector_id: str) -> None:
    total, outcome, grants = EXPLOIT[vector_id]
    result = settle_action(at_total("ca", ANA, Action.CREATE_ADVANTAGE, total, difficulty=2), ca_mode=CAMode.EXPLOIT)
    assert result.outcome is outcome
    aspect = apply_advantage(result, aspect=_multitud())
    assert aspect is not None
    assert [(g.holder, g.remaining, g.same_roll_stacking) for g in aspect.grants] == grants


@vector("fate-accelerated-TV-035")
def test_ca_exploit_grants_accumulate(vector_id: str) -> None:
    before = _multitud(FreeInvocationGrant(holder=CARLA, remaining=1))
    result = settle_action(at_total("ca", ANA, Action.CREATE_ADVANTAGE, 3, difficulty=2), ca_mode=CAMode.EXPLOIT)
    aspect = apply_advantage(result, aspect=before)
    assert aspect is not None
    assert [(g.holder, g.remaining) for g in aspect.grants] == [(CARLA, 1), (ANA, 1)]


# --- §9.6 overcome ----------------------------------------------------------------------------------


def _overcome_forceful():
    return rolled("ov", ANA, ana(), Action.OVERCOME, Approach.FORCEFUL, "00+0", difficulty=3)


@vector("fate-accelerated-TV-036")
def test_overcome_fail(vector_id: str) -> None:
    roll = _overcome_forceful()
    assert roll.total == 2
    result = settle_action(roll, fail_choice=FailChoice.FAIL)
    assert (result.outcome, result.shifts) == (Outcome.FAIL, -1)
    assert result.effects.goal_reached is False and result.effects.cost is None


@vector("fate-accelerated-TV-037")
def test_overcome_success_at_major_cost(vector_id: str) -> None:
    result = settle_action(_overcome_forceful(), fail_choice=FailChoice.SUCCESS_AT_MAJOR_COST)
    assert result.effects.goal_reached is True and result.effects.cost is Cost.MAJOR


OVERCOME = {
    "fate-accelerated-TV-038": (3, Outcome.TIE, Cost.MINOR, ()),
    "fate-accelerated-TV-039": (4, Outcome.SUCCESS, None, ()),
    "fate-accelerated-TV-040": (6, Outcome.SUCCESS_WITH_STYLE, None, (ANA,)),
}


@vector(*OVERCOME)
def test_overcome_rows(vector_id: str) -> None:
    total, outcome, cost, boosts = OVERCOME[vector_id]
    result = settle_action(at_total("ov", ANA, Action.OVERCOME, total, difficulty=3))
    assert result.outcome is outcome
    assert result.effects.goal_reached is True and result.effects.cost is cost
    assert result.boost_holders == boosts


def _en_llamas():
    return situation_aspect("llamas", "En llamas", SCENE).model_copy(
        update={"grants": (FreeInvocationGrant(holder=BRUNO, remaining=1),)}
    )


@vector("fate-accelerated-TV-041")
def test_overcome_removes_situation_aspect(vector_id: str) -> None:
    result = settle_action(at_total("ov", ANA, Action.OVERCOME, 3, difficulty=2))
    assert result.outcome is Outcome.SUCCESS
    aspect = apply_overcome(result, _en_llamas())
    assert aspect is not None
    assert aspect.status is AspectStatus.REMOVED and aspect.removed_reason is RemovedReason.OVERCOME
    assert aspect.grants == ()


@vector("fate-accelerated-TV-042")
def test_defend_keeps_situation_aspect(vector_id: str) -> None:
    roll = at_total("ov", ANA, Action.OVERCOME, 3, target=BRUNO)
    defend = at_total("d", BRUNO, Action.DEFEND, 5)
    result = settle_action(roll, defend, fail_choice=FailChoice.FAIL)
    assert (result.outcome, result.shifts) == (Outcome.FAIL, -2)
    assert (result.defender_outcome, result.defender_shifts) == (Outcome.SUCCESS, 2)
    assert result.effects.boosts == ()
    aspect = apply_overcome(result, _en_llamas())
    assert aspect is not None and aspect.active and aspect.free_for(BRUNO) == 1


# --- §9.7 attack ------------------------------------------------------------------------------------

ATTACK = {
    "fate-accelerated-TV-043": (5, 3, False, Outcome.SUCCESS, 2, ()),
    "fate-accelerated-TV-044": (3, 3, False, Outcome.TIE, 0, (BRUNO,)),
    "fate-accelerated-TV-045": (2, 3, False, Outcome.FAIL, 0, ()),
    "fate-accelerated-TV-046": (4, 3, False, Outcome.SUCCESS, 1, ()),
    "fate-accelerated-TV-047": (6, 3, False, Outcome.SUCCESS_WITH_STYLE, 3, ()),
    "fate-accelerated-TV-048": (6, 3, True, Outcome.SUCCESS_WITH_STYLE, 2, (BRUNO,)),
    "fate-accelerated-TV-049": (8, 2, True, Outcome.SUCCESS_WITH_STYLE, 5, (BRUNO,)),
}


@vector(*ATTACK)
def test_attack_rows(vector_id: str) -> None:
    attack, defense, trade, outcome, harm, boosts = ATTACK[vector_id]
    roll = at_total("at", BRUNO, Action.ATTACK, attack, target=ANA)
    result = settle_action(roll, at_total("d", ANA, Action.DEFEND, defense), trade_shift_for_boost=trade)
    assert result.outcome is outcome
    assert result.effects.harm == harm
    assert result.boost_holders == boosts
    event = result.harm_event()
    assert (event.shifts, event.defender, event.attacker) == (harm, ANA, BRUNO) if harm else event is None


@vector("fate-accelerated-TV-050")
def test_trade_needs_success_with_style(vector_id: str) -> None:
    roll = at_total("at", BRUNO, Action.ATTACK, 4, target=ANA)
    with pytest.raises(RulesError) as err:
        settle_action(roll, at_total("d", ANA, Action.DEFEND, 2), trade_shift_for_boost=True)
    assert err.value.code == "trade_needs_success_with_style"
    with pytest.raises(RulesError):
        resolve_attack(Outcome.SUCCESS, 2, True)


# --- §9.8 defend ------------------------------------------------------------------------------------


@vector("fate-accelerated-TV-051")
def test_defend_tie(vector_id: str) -> None:
    result = settle_action(at_total("at", BRUNO, Action.ATTACK, 3, target=ANA), at_total("d", ANA, Action.DEFEND, 3))
    assert result.defender_outcome is Outcome.TIE and result.outcome is Outcome.TIE
    assert result.boost_holders == (BRUNO,)
    assert result.harm_event() is None


@vector("fate-accelerated-TV-052")
def test_defend_success(vector_id: str) -> None:
    result = settle_action(at_total("at", BRUNO, Action.ATTACK, 2, target=ANA), at_total("d", ANA, Action.DEFEND, 4))
    assert (result.defender_outcome, result.defender_shifts) == (Outcome.SUCCESS, 2)
    assert result.outcome is Outcome.FAIL
    assert result.boost_holders == () and result.harm_event() is None


@vector("fate-accelerated-TV-053")
def test_defend_success_with_style(vector_id: str) -> None:
    result = settle_action(at_total("at", BRUNO, Action.ATTACK, 2, target=ANA), at_total("d", ANA, Action.DEFEND, 5))
    assert (result.defender_outcome, result.defender_shifts) == (Outcome.SUCCESS_WITH_STYLE, 3)
    assert result.outcome is Outcome.FAIL
    assert result.boost_holders == (ANA,) and result.harm_event() is None


@vector("fate-accelerated-TV-054")
def test_defend_fail_takes_the_hit(vector_id: str) -> None:
    result = settle_action(at_total("at", BRUNO, Action.ATTACK, 4, target=ANA), at_total("d", ANA, Action.DEFEND, 2))
    assert result.defender_outcome is Outcome.FAIL
    assert (result.outcome, result.shifts) == (Outcome.SUCCESS, 2)
    event = result.harm_event()
    assert event is not None and (event.defender, event.shifts) == (ANA, 2)


@vector("fate-accelerated-TV-055")
def test_defend_tie_on_overcome(vector_id: str) -> None:
    result = settle_action(at_total("ov", BRUNO, Action.OVERCOME, 4, target=ANA), at_total("d", ANA, Action.DEFEND, 4))
    assert result.outcome is Outcome.TIE and result.defender_outcome is Outcome.TIE
    assert result.effects.goal_reached is True and result.effects.cost is Cost.MINOR
    assert result.boost_holders == ()


@vector("fate-accelerated-TV-056")
def test_defend_for_someone_else(vector_id: str) -> None:
    with pytest.raises(RulesError) as err:  # not approved by the GM
        declare_action("d", CARLA, carla(), Action.DEFEND, Approach.CAREFUL, on_behalf_of=ANA)
    assert err.value.code == "defend_for_other_refused"
    declared = declare_action(
        "d", CARLA, carla(), Action.DEFEND, Approach.CAREFUL, on_behalf_of=ANA, gm_approves_defending_other=True
    )
    assert declared.roll.on_behalf_of == ANA
    carla_defend = at_total("d", CARLA, Action.DEFEND, 1)
    attack = at_total("at", BRUNO, Action.ATTACK, 4, target=ANA)
    result = settle_action(attack, carla_defend)
    assert (result.outcome, result.shifts) == (Outcome.SUCCESS_WITH_STYLE, 3)
    event = result.harm_event()
    assert event is not None and (event.defender, event.shifts) == (CARLA, 3)
    traded = settle_action(attack, carla_defend, trade_shift_for_boost=True)
    assert traded.harm_event().shifts == 2 and traded.boost_holders == (BRUNO,)
    assert ana().stress == (False, False, False)  # Ana's sheet is untouched


@vector("fate-accelerated-TV-057")
def test_defend_sws_keeps_grant_opponent_option(vector_id: str) -> None:
    roll = at_total("ca", BRUNO, Action.CREATE_ADVANTAGE, 1, target=ANA)
    result = settle_action(
        roll, at_total("d", ANA, Action.DEFEND, 4), ca_mode=CAMode.CREATE, fail_choice=FailChoice.GRANT_OPPONENT
    )
    assert (result.outcome, result.shifts) == (Outcome.FAIL, -3)
    assert result.defender_outcome is Outcome.SUCCESS_WITH_STYLE
    assert result.boost_holders == (ANA,)
    aspect = apply_advantage(result, new_key="acorralada", new_text="Acorralada", scene=SCENE)
    assert aspect is not None and aspect.free_for(ANA) == 1 and aspect.free_for(BRUNO) == 0


@vector("fate-accelerated-TV-058")
def test_defend_sws_blocks_cost_success_when_enabled(vector_id: str) -> None:
    s = FaeSettings(defend_sws_blocks_cost_success=True)
    roll = at_total("ov", BRUNO, Action.OVERCOME, 1, target=ANA)
    defend = at_total("d", ANA, Action.DEFEND, 4)
    with pytest.raises(RulesError) as err:
        settle_action(roll, defend, fail_choice=FailChoice.SUCCESS_AT_MAJOR_COST, settings=s)
    assert err.value.code == "fail_option_blocked"
    result = settle_action(roll, defend, fail_choice=FailChoice.FAIL, settings=s)
    assert result.effects.goal_reached is False and result.boost_holders == (ANA,)


def test_settle_twice_is_refused() -> None:
    result = settle_action(at_total("ov", ANA, Action.OVERCOME, 3, difficulty=2))
    assert result.roll.phase is RollPhase.RESOLVED
    with pytest.raises(RulesError) as err:
        settle_action(result.roll)
    assert err.value.code == "roll_already_settled"


def test_gm_id_is_stable() -> None:
    assert GM == "gm"
