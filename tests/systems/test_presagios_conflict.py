"""Spec §8.4: conflicts and ties (vectors presagios-40..45)."""

from __future__ import annotations

import systems.presagios as presagios_rules
from systems.dice import ScriptedDice
from systems.presagios import conflict as cf
from systems.presagios.conflict import SideRoll, decide, resolve_conflict
from systems.presagios.settings import ConflictTieOmens, PresagiosSettings
from systems.presagios.sheet import Kind
from tests.systems.test_presagios_fixtures import principal, table, with_c1
from tests.systems.vectors import vector

P, S, M = Kind.PRINCIPAL, Kind.SECUNDARIO, Kind.MONSTRUO
ALL_ROLLS = PresagiosSettings(conflict_tie_omens=ConflictTieOmens.ALL_ROLLS)

# vector: (total a, kind a, total b, kind b, winner or None for a reroll)
TIES = {
    "presagios-40": (5, P, 5, M, "a"),
    "presagios-41": (4, P, 4, S, "a"),
    "presagios-42": (6, P, 6, P, None),
    "presagios-43": (4, S, 4, M, None),
}


@vector(*TIES)
def test_tie_rule_by_kind(vector_id: str) -> None:
    total_a, kind_a, total_b, kind_b, winner = TIES[vector_id]
    assert decide(total_a, kind_a, total_b, kind_b) == winner
    mirrored = None if winner is None else cf.other(winner)
    assert decide(total_b, kind_b, total_a, kind_a) == mirrored


@vector("presagios-40", "presagios-41")
def test_principal_wins_tie_without_reroll(vector_id: str) -> None:
    kind_b = M if vector_id == "presagios-40" else S
    dice = ScriptedDice([5, 5] if vector_id == "presagios-40" else [4, 4])
    result = resolve_conflict(dice, SideRoll(P, 1), SideRoll(kind_b, 1))
    assert result.winner == "a" and len(result.pairs) == 1 and dice.remaining == 0


@vector("presagios-42")
def test_principal_tie_rerolls_and_final_pair_omens(vector_id: str) -> None:
    faces = [6, 2, 1, 6, 3, 2, 5, 4]  # A [6,2]=6 vs B [1,6]=6 (1 omen); reroll A [3,2]=3 vs B [5,4]=5
    result = resolve_conflict(ScriptedDice(faces), SideRoll(P, 2), SideRoll(P, 2))
    assert [(a.total, b.total) for a, b in result.pairs] == [(6, 6), (3, 5)]
    assert result.winner == "b" and result.combined_omens == 0
    assert resolve_conflict(ScriptedDice(faces), SideRoll(P, 2), SideRoll(P, 2), ALL_ROLLS).combined_omens == 1
    # the same through the forum flow: tie -> TIE_REROLL -> reroll -> B wins
    state = table(4, a=with_c1(principal(), 2), b=with_c1(principal(), 2))
    flow = cf.confirm_setup(
        cf.open_conflict("k", cf.Participant.of(state, "a", "c1"), cf.Participant.of(state, "b", "c1"))
    )
    flow, state = cf.post_roll(flow, state, "a", ScriptedDice([6, 2]))
    flow, state = cf.post_roll(flow, state, "b", ScriptedDice([1, 6]))
    assert flow.stage is cf.ConflictStage.TIE_REROLL and state.threat == 4  # no check before the end
    flow, state = cf.reroll(flow, state, ScriptedDice([3, 2, 5, 4]))
    assert flow.winner == "b" and flow.counted_omens() == (0, 0) and state.threat == 4


@vector("presagios-43")
def test_non_principal_tie_rerolls_both(vector_id: str) -> None:
    dice = ScriptedDice([4, 4, 2, 5])
    result = presagios_rules.RULESET.resolve(
        "conflict",
        {"a": {"kind": "secundario", "current": 1}, "b": {"kind": "monstruo", "current": 1}},
        dice,
    )
    assert [(a.total, b.total) for a, b in result.pairs] == [(4, 4), (2, 5)]
    assert result.winner == "b" and dice.remaining == 0


@vector("presagios-44", "presagios-45")
def test_trait_decides_against_the_monster(vector_id: str) -> None:
    trait, winner, total_a = {"presagios-44": (1, "a", 5), "presagios-45": (0, "b", 4)}[vector_id]
    result = resolve_conflict(ScriptedDice([3, 3, 5]), SideRoll(P, 2, 0, trait), SideRoll(M, 1))
    a, b = result.pairs[0]
    assert (a.dice_result, a.total, b.total) == (4, total_a, 5)
    assert result.winner == winner and len(result.pairs) == 1


def test_a_tie_without_dice_is_broken_by_the_gm() -> None:
    import pytest

    from systems.errors import RulesError

    with pytest.raises(RulesError) as err:
        resolve_conflict(ScriptedDice([]), SideRoll(S, 0), SideRoll(M, -1))
    assert err.value.code == "UNBREAKABLE_TIE"
    state = table(2, a=with_c1(principal(), 0), b=with_c1(principal(), 0))
    flow = cf.confirm_setup(
        cf.open_conflict("k", cf.Participant.of(state, "a", "c1"), cf.Participant.of(state, "b", "c1"))
    )
    flow, state = cf.post_roll(flow, state, "a", ScriptedDice([]))
    flow, state = cf.post_roll(flow, state, "b", ScriptedDice([]))
    assert flow.stage is cf.ConflictStage.TIE_REROLL
    with pytest.raises(RulesError) as err:
        cf.reroll(flow, state, ScriptedDice([]))
    assert err.value.code == "UNBREAKABLE_TIE"
    flow, state = cf.break_tie(flow, state, "b")
    assert flow.winner == "b" and flow.stage is cf.ConflictStage.RESPONSE
