"""Spec §8.5: points, qualities and transfers (vectors presagios-46..56)."""

from __future__ import annotations

import pytest

import systems.presagios as presagios_rules
from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.presagios import challenge as ch
from systems.presagios import conflict as cf
from systems.presagios.points import Purpose, Use, activate_quality
from systems.presagios.qualities import Force, QualityActivation
from systems.presagios.sheet import Kind, QualityKind, Trait
from systems.presagios.table import Table
from systems.presagios.traits import NamedTrait
from tests.systems.test_presagios_fixtures import npc, principal, table, with_c1
from tests.systems.vectors import vector

RULES = presagios_rules.RULESET


def _rolled(state: Table, who: str, faces: list[int], difficulty: int) -> tuple[ch.ChallengeFlow, Table]:
    flow = ch.confirm_setup(ch.open_challenge("X", who, "c1", difficulty=difficulty))
    return ch.roll_challenge(flow, state, ScriptedDice(faces))


@vector("presagios-46")
def test_player_forces_another_principals_failure(vector_id: str) -> None:
    state = table(3, A=principal(overcome=5), B=with_c1(principal(overcome=2), 3))
    flow, state = _rolled(state, "B", [6, 5, 4], 3)
    assert flow.last.success is True
    act = QualityActivation("B", QualityKind.COMPLICATION, against_owner=True, activator_id="A")
    flow, state = ch.force_outcome(flow, state, Force.FAILURE, act)
    assert (state.overcome("A"), state.overcome("B"), state.threat) == (4, 3, 3)
    assert flow.last.success is False and flow.last.natural_success is True


@vector("presagios-47")
def test_gm_activates_a_principals_complication(vector_id: str) -> None:
    state = table(6, A=principal(overcome=1))
    params = {"owner_id": "A", "quality": "complication", "purpose": "force_failure", "against_owner": True}
    op = RULES.operation("activate_quality")
    state = op.apply(state, op.params_model.model_validate(params), None)  # type: ignore[union-attr]
    assert (state.threat, state.overcome("A")) == (5, 2)


@vector("presagios-48")
def test_player_helps_own_roll(vector_id: str) -> None:
    state = table(2, A=with_c1(principal(overcome=3), 2))
    flow, state = _rolled(state, "A", [2, 3], 6)
    assert flow.last.success is False
    act = QualityActivation("A", QualityKind.HITO, against_owner=False, activator_id="A")
    flow, state = ch.force_outcome(flow, state, Force.SUCCESS, act)
    assert (state.overcome("A"), state.threat) == (2, 3) and flow.last.success is True


@vector("presagios-49")
def test_gm_helps_the_monster_and_loses_the_point(vector_id: str) -> None:
    state = table(4, M=npc(Kind.MONSTRUO))
    flow, state = _rolled(state, "M", [2, 3, 4], 9)
    act = QualityActivation("M", QualityKind.DESCRIPTOR, against_owner=False)
    flow, state = ch.force_outcome(flow, state, Force.SUCCESS, act)
    assert state.threat == 3 and flow.last.success is True


@vector("presagios-50")
def test_player_uses_the_monsters_weakness(vector_id: str) -> None:
    state = table(4, A=with_c1(principal(overcome=3), 1), M=npc(Kind.MONSTRUO))
    flow = cf.confirm_setup(
        cf.open_conflict("k", cf.Participant.of(state, "A", "c1"), cf.Participant.of(state, "M", "c1"))
    )
    flow, state = cf.post_roll(flow, state, "a", ScriptedDice([2]))
    flow, state = cf.post_roll(flow, state, "b", ScriptedDice([6, 3, 3]))
    assert flow.winner == "b"
    act = QualityActivation("M", QualityKind.WEAKNESS, against_owner=True, activator_id="A")
    flow, state = cf.force_outcome(flow, state, "b", Force.FAILURE, act)
    assert flow.winner == "a"  # the forced side loses, the other wins
    assert (state.overcome("A"), state.threat) == (2, 5)  # no transfer to a monster


@vector("presagios-51")
def test_own_complication_against_yourself_is_net_zero(vector_id: str) -> None:
    state = activate_quality(
        table(4, A=principal(overcome=2)), "A", "A", QualityKind.COMPLICATION, Purpose.FORCE_FAILURE, against_owner=True
    )
    assert (state.overcome("A"), state.threat) == (2, 4)


@vector("presagios-52")
def test_outstanding_roleplay(vector_id: str) -> None:
    op = RULES.operation("award_roleplay")
    state = op.apply(table(3, A=principal(overcome=0)), op.params_model(character_id="A"), None)  # type: ignore[misc]
    assert (state.overcome("A"), state.threat) == (1, 3)


@vector("presagios-53")
def test_any_spend_with_no_overcome_is_rejected(vector_id: str) -> None:
    state = table(3, A=principal(overcome=0), B=principal(overcome=2))
    op = RULES.operation("spend_overcome")
    for use in Use:
        if use is Use.PROTECTION:
            continue  # protection is checked too, below
        with pytest.raises(RulesError) as err:
            op.apply(state, op.params_model(character_id="A", use=use), None)  # type: ignore[misc]
        assert err.value.code == "NO_OVERCOME"
    with pytest.raises(RulesError) as err:
        op.apply(state, op.params_model(character_id="A", use=Use.PROTECTION), None)  # type: ignore[misc]
    assert err.value.code == "NO_OVERCOME"
    with pytest.raises(RulesError) as err:
        activate_quality(state, "A", "B", QualityKind.COMPLICATION, Purpose.FORCE_FAILURE, against_owner=True)
    assert err.value.code == "NO_OVERCOME"
    assert (state.overcome("A"), state.overcome("B"), state.threat) == (0, 2, 3)


@vector("presagios-54")
def test_gm_with_no_threat_cannot_activate(vector_id: str) -> None:
    state = table(0, A=principal(overcome=2))
    with pytest.raises(RulesError) as err:
        activate_quality(state, None, "A", QualityKind.COMPLICATION, Purpose.FORCE_FAILURE, against_owner=True)
    assert err.value.code == "NO_THREAT"
    assert (state.threat, state.overcome("A")) == (0, 2)


@vector("presagios-55")
def test_a_roll_is_forced_once(vector_id: str) -> None:
    state = table(3, A=with_c1(principal(overcome=3), 2))
    flow, state = _rolled(state, "A", [2, 3], 6)
    flow, state = ch.force_outcome(
        flow, state, Force.SUCCESS, QualityActivation("A", QualityKind.HITO, False, activator_id="A")
    )
    before = (state.threat, state.overcome("A"))
    with pytest.raises(RulesError) as err:
        ch.force_outcome(flow, state, Force.FAILURE, QualityActivation("A", QualityKind.COMPLICATION, True))
    assert err.value.code == "ALREADY_FORCED"
    assert (state.threat, state.overcome("A")) == before and flow.last.success is True


@vector("presagios-56")
def test_supernatural_trait_costs_a_point(vector_id: str) -> None:
    traits = (
        Trait(name="Fuerte", characteristic="c1", value=3),
        Trait(name="Labia", characteristic="c2", value=3),
        Trait(name="Visiones", characteristic="c3", value=2, supernatural=True),
        Trait(name="Olfato", characteristic="c3", value=1),
    )
    sheet = with_c1(principal(overcome=3, traits=traits), 2)
    state = table(1, A=sheet)
    flow = ch.confirm_setup(ch.open_challenge("X", "A", "c1", difficulty=9))
    trait = NamedTrait.from_sheet(sheet, "Visiones")
    flow, state = ch.roll_challenge(flow, state, ScriptedDice([3, 4]), traits=(trait,))
    flow, state = ch.judge_traits(flow, state, {"Visiones"})
    assert (state.overcome("A"), state.threat) == (2, 2)
    assert flow.last.roll is not None and flow.last.roll.trait_bonus == 2 and flow.last.roll.total == 6
