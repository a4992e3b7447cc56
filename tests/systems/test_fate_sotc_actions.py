"""fate-sotc §8.3 effort and simple actions, §8.4 opposed rolls and attacks, §8.5 blocks."""

from __future__ import annotations

import pytest

from systems.errors import RulesError
from systems.fate_sotc.conflict import Spin, action_passed, apply_spin
from systems.fate_sotc.dice import parse_glyphs
from systems.fate_sotc.ladder import ladder_label
from systems.fate_sotc.resolution import (
    ConflictType,
    Modifier,
    ModifierSource,
    Track,
    block_strength,
    default_track,
    defense_effort,
    effort,
    passes_block,
    protected_defense,
    resolve_attack,
    resolve_opposed,
    resolve_simple,
)
from systems.fate_sotc.rolls import roll_attack, roll_simple
from systems.fate_sotc.settings import FateSotcSettings, TiePolicy
from systems.fate_sotc.sheet import FateSotcSheet
from tests.systems.test_fate_sotc_support import scripted
from tests.systems.vectors import vector

# vector: (skill, dice total, modifiers, difficulty) -> (effort, success, shifts, critical, failure_margin, label)
SIMPLE = {
    "fate-sotc-20": ((3, 0, (), 3), (3, True, 0, False, 0, None)),
    "fate-sotc-21": ((2, -2, (), 0), (0, True, 0, False, 0, None)),
    "fate-sotc-23": ((3, -4, (), 0), (-1, False, 0, False, 1, "Pobre (-1)")),
    "fate-sotc-24": ((4, 1, (), 2), (5, True, 3, True, 0, None)),
    "fate-sotc-25": ((4, 0, (), 2), (4, True, 2, False, 0, None)),
    "fate-sotc-27": (
        (5, 4, (Modifier(ModifierSource.INVOKE_BONUS, 2), Modifier(ModifierSource.FP_ADVANTAGE, 1)), 3),
        (12, True, 9, True, 0, "Legendario+4 (+12)"),
    ),
    "fate-sotc-28": ((-2, -4, (), -2), (-6, False, 0, False, 4, "Terrible-4 (-6)")),
    "fate-sotc-29": ((0, -2, (), -2), (-2, True, 0, False, 0, None)),
    "fate-sotc-30": ((2, -1, (), 2), (1, False, 0, False, 1, None)),
}


@vector(*SIMPLE)
def test_simple_action(vector_id: str) -> None:
    (skill, dice, mods, difficulty), (eff, success, shifts, critical, margin, label) = SIMPLE[vector_id]
    result = roll_simple(scripted(dice), skill, difficulty, mods)
    assert result.roll.effort == effort(skill, dice, mods) == eff
    out = result.outcome
    assert (out.success, out.shifts, out.critical, out.failure_margin) == (success, shifts, critical, margin)
    assert out == resolve_simple(eff, difficulty)
    if label is not None:
        assert result.roll.label == label


@vector("fate-sotc-22")
def test_simple_action_with_glyph_faces(vector_id: str) -> None:
    dice = parse_glyphs("[+] [+] [ ] [-]")
    assert dice.total == 1
    eff = effort(3, dice.total)
    assert (eff, ladder_label(eff)) == (4, "Grande (+4)")
    out = resolve_simple(eff, 3)
    assert (out.success, out.shifts, out.critical) == (True, 1, False)


@vector("fate-sotc-26")
def test_unlisted_skill_is_mediocre(vector_id: str) -> None:
    sheet = FateSotcSheet(name="Jax", skills={"pilot": 3})
    rating = sheet.rating("drive")
    assert rating == 0
    eff = effort(rating, 1)
    assert (eff, ladder_label(eff)) == (1, "Normal (+1)")
    out = resolve_simple(eff, 1)
    assert (out.success, out.shifts) == (True, 0)


OPPOSED = {
    "fate-sotc-31": ((5, 3), ("a", 2)),
    "fate-sotc-32": ((2, 4), ("b", 2)),
    "fate-sotc-33": ((3, 3), (None, 0)),
}


@vector(*OPPOSED)
def test_opposed(vector_id: str) -> None:
    (a, b), (winner, shifts) = OPPOSED[vector_id]
    out = resolve_opposed(a, b)
    assert (out.winner, out.shifts) == (winner, shifts)
    assert out.shifts >= 0
    if vector_id == "fate-sotc-33":
        both = resolve_opposed(3, 3, FateSotcSettings(opposed_tie_policy=TiePolicy.BOTH_SUCCEED))
        assert both.winner is None and both.both_succeed


@vector("fate-sotc-34")
def test_physical_attack_hits_health(vector_id: str) -> None:
    # Puños 3 + dice +1 vs Atletismo 2 + dice 0
    result = roll_attack(scripted(1, 0), (3, ()), (2, ()), default_track(ConflictType.PHYSICAL))
    assert (result.attack.effort, result.defense.effort) == (4, 2)
    assert result.result.hit == 2
    assert result.result.track is Track.HEALTH
    assert result.result.defender_spin is False


ATTACKS = {
    "fate-sotc-35": ((4, 4), (0, False)),
    "fate-sotc-36": ((2, 5), (0, True)),
    "fate-sotc-37": ((3, 5), (0, False)),
    "fate-sotc-42": ((6, 1), (5, False)),
}


@vector(*ATTACKS)
def test_attack(vector_id: str) -> None:
    (att, dfn), (hit, spin) = ATTACKS[vector_id]
    result = resolve_attack(att, dfn)
    assert (result.hit, result.defender_spin) == (hit, spin)


@vector("fate-sotc-38")
def test_full_defense_adds_two(vector_id: str) -> None:
    defense = defense_effort(2, 0, full_defense=True)
    assert defense == 4
    assert resolve_attack(4, defense).hit == 0
    # The resolver applies the same +2 when the defender declared full defense.
    rolled = roll_attack(scripted(0, 0), (4, ()), (2, ()), defender_full_defense=True)
    assert rolled.defense.effort == 4 and rolled.result.hit == 0


@vector("fate-sotc-39")
def test_full_defense_on_every_defense_that_exchange(vector_id: str) -> None:
    first = defense_effort(2, 0, full_defense=True)
    second = defense_effort(2, -1, full_defense=True)
    assert (first, second) == (4, 3)
    assert (resolve_attack(5, first).hit, resolve_attack(3, second).hit) == (1, 0)


@vector("fate-sotc-40")
def test_spin_on_the_very_next_action(vector_id: str) -> None:
    assert resolve_attack(2, 5).defender_spin  # spin from vector 36
    spin = Spin(holder="defender")
    used, ally_effort = apply_spin(spin, 3, +1)
    assert ally_effort == 4
    assert action_passed(used).status == "used"
    lapsed = action_passed(Spin(holder="defender"))  # not used on that action: discarded
    with pytest.raises(RulesError) as err:
        apply_spin(lapsed, 3, +1)
    assert err.value.code == "spin_expired"


@vector("fate-sotc-41")
def test_social_intimidation_hits_composure(vector_id: str) -> None:
    result = roll_attack(scripted(0, 0), (3, ()), (1, ()), default_track(ConflictType.SOCIAL))
    assert result.result.hit == 2
    assert result.result.track is Track.COMPOSURE


PROTECT = {
    "fate-sotc-43": ((3, 1, 2, 5), (4, 1)),
    "fate-sotc-44": (None, (6, 0)),
    "fate-sotc-45": (None, (4, 0)),
}


@vector(*PROTECT)
def test_protect_block(vector_id: str) -> None:
    if vector_id == "fate-sotc-43":
        strength = block_strength(effort(3, 1))  # Armas 3 + dice +1
        assert strength == 4
        own_defense, attack = 2, 5
    elif vector_id == "fate-sotc-44":
        strength, own_defense, attack = 4, 6, 5
    else:
        strength, own_defense, attack = 4, 3, 4
    used, hit = PROTECT[vector_id][1]
    assert protected_defense(own_defense, strength) == used
    assert resolve_attack(attack, used).hit == hit
    if vector_id == "fate-sotc-45":
        assert resolve_opposed(attack, used).winner is None  # a tie


@vector("fate-sotc-46")
def test_passing_a_block_needs_one_shift(vector_id: str) -> None:
    assert [passes_block(e, 3) for e in (2, 3, 4)] == [False, False, True]


@vector("fate-sotc-47")
def test_broad_block_penalty(vector_id: str) -> None:
    assert block_strength(effort(3, 0), gm_penalty=-1) == 2


def test_tie_policies_flag_reroll() -> None:
    out = resolve_opposed(2, 2, FateSotcSettings(opposed_tie_policy=TiePolicy.REROLL))
    assert out.reroll and out.winner is None
    with pytest.raises(RulesError):
        apply_spin(Spin("x"), 1, 2)
