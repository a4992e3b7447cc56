"""Rolling generic notation with scripted dice: exact faces, flags and totals."""

from __future__ import annotations

import pytest

from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.generic import Die, DieOrigin, roll_notation
from systems.generic.limits import MAX_EXPLOSION_DEPTH, MAX_EXTRA_DICE, MAX_REROLL_DEPTH


def roll(text: str, *faces: int):
    dice = ScriptedDice(faces)
    result = roll_notation(text, dice)
    assert dice.remaining == 0, "the notation used fewer dice than scripted"
    assert result.verify()
    return result


def faces_of(result, part: int = 0, term: int = 0) -> list[int]:
    return [die.face for die in result.parts[part].rolls[term].dice]


def test_plain_sum_and_constant() -> None:
    result = roll("3d6+2", 4, 1, 6)
    assert result.total == 13
    assert faces_of(result) == [4, 1, 6]
    assert result.parts[0].rolls[0].dice == (Die(4), Die(1), Die(6))
    assert result.canonical == "3d6+2"
    assert result.text() == "3d6[4, 1, 6]+2 = 13"


def test_arithmetic_precedence_in_totals() -> None:
    assert roll("2*1d4+1", 3).total == 7
    assert roll("2*(1d4+1)", 3).total == 8
    assert roll("10-1d6-1d6", 2, 3).total == 5
    assert roll("-1d6", 5).total == -5
    assert roll("7").total == 7


def test_fudge_dice_read_minus_zero_plus() -> None:
    # A Fudge die is a d3: 1 -> -1, 2 -> 0, 3 -> +1.
    result = roll("4dF+1", 1, 2, 3, 3)
    assert faces_of(result) == [-1, 0, 1, 1]
    assert result.total == 2
    assert result.text() == "4dF[-1, 0, +1, +1]+1 = 2"


def test_keep_highest_and_lowest_flags() -> None:
    result = roll("4d6kh3", 6, 3, 1, 4)
    dropped = [die.dropped for die in result.parts[0].rolls[0].dice]
    assert dropped == [False, False, True, False]
    assert result.total == 13
    assert result.text() == "4d6kh3[6, 3, (1), 4] = 13"
    assert roll("2d20kl1", 17, 4).total == 4
    assert roll("2d20k1", 17, 4).total == 17


def test_drop_lowest_and_highest() -> None:
    assert roll("4d6dl1", 2, 5, 5, 3).total == 13
    assert roll("4d6dh1", 2, 5, 5, 3).total == 10


def test_ties_drop_the_later_die() -> None:
    result = roll("3d6kh2", 5, 5, 5)
    assert [die.dropped for die in result.parts[0].rolls[0].dice] == [False, False, True]
    result = roll("3d6kl1", 2, 2, 6)
    assert [die.dropped for die in result.parts[0].rolls[0].dice] == [False, True, True]


def test_explosion_chain() -> None:
    result = roll("3d6!", 6, 6, 2, 3, 4)
    dice = result.parts[0].rolls[0].dice
    assert [die.face for die in dice] == [6, 6, 2, 3, 4]
    assert [die.exploded for die in dice] == [True, True, False, False, False]
    assert [die.origin for die in dice] == [
        DieOrigin.ROLLED,
        DieOrigin.EXPLOSION,
        DieOrigin.EXPLOSION,
        DieOrigin.ROLLED,
        DieOrigin.ROLLED,
    ]
    assert result.total == 21
    assert result.text() == "3d6![6!, 6!, 2, 3, 4] = 21"


def test_explosion_on_threshold() -> None:
    result = roll("3d10!>9", 10, 1, 9, 10, 7)
    assert result.total == 37
    assert [die.exploded for die in result.parts[0].rolls[0].dice] == [True, False, False, True, False]


def test_explosion_depth_is_capped_and_flagged() -> None:
    faces = [2] * (MAX_EXPLOSION_DEPTH + 1) + [1]
    result = roll("2d2!", *faces)
    term = result.parts[0].rolls[0]
    assert term.capped and result.capped
    assert len(term.dice) == MAX_EXPLOSION_DEPTH + 2
    assert sum(die.exploded for die in term.dice) == MAX_EXPLOSION_DEPTH
    assert result.total == 2 * (MAX_EXPLOSION_DEPTH + 1) + 1


def test_extra_dice_budget_is_shared_by_the_whole_roll() -> None:
    # Five dice that each explode up to the depth cap would add 100 dice; the budget stops at MAX_EXTRA_DICE.
    count = MAX_EXTRA_DICE // MAX_EXPLOSION_DEPTH + 1
    faces = [2] * (count * (MAX_EXPLOSION_DEPTH + 1))
    dice = ScriptedDice(faces)
    result = roll_notation(f"{count}d2!", dice)
    term = result.parts[0].rolls[0]
    assert term.capped
    assert len(term.dice) == count + MAX_EXTRA_DICE
    assert result.verify()


def test_explode_then_keep() -> None:
    result = roll("2d6!kh1", 6, 3, 5)
    assert [die.dropped for die in result.parts[0].rolls[0].dice] == [False, True, True]
    assert result.total == 6


def test_reroll_once() -> None:
    result = roll("4d6r1", 1, 1, 3, 4, 5)
    dice = result.parts[0].rolls[0].dice
    assert [die.face for die in dice] == [1, 1, 3, 4, 5]
    assert [die.rerolled for die in dice] == [True, False, False, False, False]
    assert [die.origin for die in dice][:2] == [DieOrigin.ROLLED, DieOrigin.REROLL]
    assert result.total == 1 + 3 + 4 + 5  # the second 1 stays: ``r`` rerolls once
    assert result.text() == "4d6r1[~1~, 1, 3, 4, 5] = 13"


def test_reroll_repeat() -> None:
    result = roll("2d6rr<3", 1, 2, 1, 5, 2, 6)
    dice = result.parts[0].rolls[0].dice
    assert [die.rerolled for die in dice] == [True, True, True, False, True, False]
    assert result.total == 11


def test_reroll_repeat_is_capped() -> None:
    faces = [1] * (MAX_REROLL_DEPTH + 1)
    result = roll("1d2rr1", *faces)
    term = result.parts[0].rolls[0]
    assert term.capped
    assert result.total == 1
    assert sum(die.rerolled for die in term.dice) == MAX_REROLL_DEPTH


def test_reroll_then_explode_then_keep() -> None:
    # 1 is rerolled into a 6, which explodes into a 2; keep the highest two of 6, 2, 4.
    result = roll("2d6r1!kh2", 1, 6, 2, 4)
    dice = result.parts[0].rolls[0].dice
    assert [(d.face, d.rerolled, d.exploded, d.dropped) for d in dice] == [
        (1, True, False, False),
        (6, False, True, False),
        (2, False, False, True),
        (4, False, False, False),
    ]
    assert result.total == 10


def test_success_counting() -> None:
    result = roll("6d10>=7", 7, 1, 10, 6, 8, 3)
    assert result.total == 3
    assert [die.success for die in result.parts[0].rolls[0].dice] == [True, False, True, False, True, False]
    assert roll("6d10>7", 7, 1, 10, 6, 8, 3).total == 2
    assert roll("3d6<3", 1, 2, 3).total == 2
    assert roll("3d6=6", 6, 6, 1).total == 2


def test_failures_subtract_from_successes() -> None:
    result = roll("6d10>=7f1", 1, 7, 8, 10, 1, 3)
    assert result.total == 3 - 2
    assert result.text() == "6d10>=7f1[1_, 7*, 8*, 10*, 1_, 3] = 1"


def test_successes_ignore_dropped_and_rerolled_dice() -> None:
    result = roll("3d10r1kh2>=8", 1, 9, 8, 10)
    assert result.total == 2  # the 1 is rerolled into a 9; of 9, 8, 10 the 8 is dropped
    dice = result.parts[0].rolls[0].dice
    assert [(d.face, d.counts, d.success) for d in dice] == [
        (1, False, False),
        (9, True, True),
        (8, False, False),
        (10, True, True),
    ]


def test_parts_and_labels() -> None:
    dice = ScriptedDice([14, 3, 5])
    result = roll_notation("1d20+5 # ataque, [daño] 2d6+3", dice, label="Espada")
    assert result.totals == (19, 11)
    assert result.total is None
    assert [part.label for part in result.parts] == ["ataque", "daño"]
    assert result.label == "Espada"
    assert result.text() == "[ataque] 1d20[14]+5 = 19, [daño] 2d6[3, 5]+3 = 11"
    assert result.dice_count == 3


def test_result_is_immutable() -> None:
    result = roll("1d6", 3)
    with pytest.raises(AttributeError):
        result.parts = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        result.parts[0].rolls[0].dice[0].face = 6  # type: ignore[misc]


def test_verify_detects_a_forged_total() -> None:
    from dataclasses import replace

    result = roll("3d6+2", 4, 1, 6)
    forged = replace(result, parts=(replace(result.parts[0], total=18),))
    assert not forged.verify()


def test_scripted_dice_running_out_is_loud() -> None:
    with pytest.raises(RulesError) as caught:
        roll_notation("3d6", ScriptedDice([1, 2]))
    assert caught.value.code == "dice_exhausted"


def test_verify_detects_forged_flags() -> None:
    from dataclasses import replace

    result = roll("4d6kh3", 6, 3, 1, 4)
    term = result.parts[0].rolls[0]
    # Drop the 3 instead of the 1 and fix up the total: the arithmetic adds up, the flags do not.
    forged_dice = (
        term.dice[0],
        replace(term.dice[1], dropped=True),
        replace(term.dice[2], dropped=False),
        term.dice[3],
    )
    forged_term = replace(term, dice=forged_dice, value=11)
    forged = replace(result, parts=(replace(result.parts[0], rolls=(forged_term,), total=11),))
    assert not forged.verify()
