"""Event §9.8–§9.9: the desafío (sealed splits, left and right fists, tie-breaks, Desafío total)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.event.desafio import (
    DecidedBy,
    Interaction,
    Participant,
    Side,
    Stage,
    Verdict,
    check_split,
    commit,
    compare_counts,
    public_view,
    resolve_fist,
    roll_tiebreak,
    start_interaction,
    total_challenge,
)
from systems.event.rolling import DiceRules
from systems.event.settings import EventSettings
from tests.systems.vectors import vector

TOTAL = EventSettings.model_validate({"optional": {"total_challenge": {"enabled": True}}})


def people(*pools: tuple[str, int]) -> list[Participant]:
    return [Participant(pid, pool, narrator=pid, seat=i) for i, (pid, pool) in enumerate(pools, start=1)]


def play(
    participants: Sequence[Participant],
    splits: dict[str, tuple[int, int]],
    stream: Sequence[int] = (),
    settings: EventSettings | None = None,
) -> tuple[Interaction, ScriptedDice]:
    """Commit every split, then roll any tie-break from the stream (left first, then right)."""
    dice = ScriptedDice(stream)
    ix = start_interaction(participants, settings)
    for pid, (left, right) in splits.items():
        ix = commit(ix, pid, left, right)
    while ix.stage in (Stage.LEFT_TIEBREAK, Stage.RIGHT_TIEBREAK):
        ix = roll_tiebreak(ix, dice)
    return ix, dice


@vector("event-74")
def test_source_example_no_roll(vector_id: str) -> None:
    valy = Participant("Valy", 2, narrator="Jenny", seat=3)
    khan = Participant("Khan", 1, narrator="Daria", seat=1)
    ix, dice = play([valy, khan], {"Valy": (2, 0), "Khan": (0, 1)}, [6, 6, 6])
    assert dice.remaining == 3  # no roll at all
    assert ix.left is not None and ix.right is not None
    assert (ix.left.winner(), ix.left.by, dict(ix.left.counts)) == ("Valy", DecidedBy.COUNT, {"Valy": 2, "Khan": 0})
    assert (ix.right.winner(), ix.right.by) == ("Khan", DecidedBy.COUNT)
    assert ix.narrators == ("Daria",)
    assert ix.left.rolls == () and ix.right.rolls == ()
    assert ix.stage is Stage.NARRATION


@vector("event-75", "event-80")
def test_most_dice_win_each_fist(vector_id: str) -> None:
    splits, b_pool, left_winner, right_winner = {
        "event-75": ({"A": (3, 1), "B": (1, 2)}, 3, "A", "B"),
        "event-80": ({"A": (2, 2), "B": (1, 1)}, 2, "A", "A"),
    }[vector_id]
    ix, _ = play(people(("A", 4), ("B", b_pool)), splits)
    assert ix.left is not None and ix.right is not None
    assert ix.left.winner() == left_winner and ix.right.winner() == right_winner
    assert ix.narrators == (right_winner,)


@vector("event-76")
def test_highest_die_then_joint(vector_id: str) -> None:
    ix, dice = play(people(("A", 3), ("B", 3)), {"A": (2, 1), "B": (2, 1)}, [5, 3, 4, 4, 2, 2])
    assert ix.left is not None and ix.right is not None
    assert (ix.left.winner(), ix.left.by, dict(ix.left.rolls)) == (
        "A",
        DecidedBy.HIGHEST_DIE,
        {"A": (5, 3), "B": (4, 4)},
    )
    assert (ix.right.verdict, ix.right.winners) == (Verdict.JOINT, ("A", "B"))
    assert ix.narrators == ("A", "B")
    assert dice.remaining == 0


@vector("event-77")
def test_draw_then_empty_right_tie(vector_id: str) -> None:
    ix, _ = play(people(("A", 1), ("B", 1)), {"A": (1, 0), "B": (1, 0)}, [6, 6])
    assert ix.left is not None and ix.right is not None
    assert (ix.left.verdict, ix.left.winners) == (Verdict.DRAW, ("A", "B"))
    assert (ix.right.verdict, ix.right.by, ix.narrators) == (Verdict.JOINT, DecidedBy.EMPTY, ("A", "B"))
    gm_rule = EventSettings.model_validate({"interpretations": {"empty_right_tie": "gm"}})
    ix, _ = play(people(("A", 1), ("B", 1)), {"A": (1, 0), "B": (1, 0)}, [6, 6], gm_rule)
    assert ix.right is not None and (ix.right.verdict, ix.narrators) == (Verdict.GM, ("GM",))


@vector("event-78")
def test_empty_left_tie_is_a_draw_without_dice(vector_id: str) -> None:
    ix, dice = play(people(("A", 2), ("B", 1)), {"A": (0, 2), "B": (0, 1)}, [6, 6, 6])
    assert dice.remaining == 3  # no dice rolled
    assert ix.left is not None and ix.right is not None
    assert (ix.left.verdict, ix.left.by, ix.left.rolls) == (Verdict.DRAW, DecidedBy.EMPTY, ())
    assert ix.right.winner() == "A"


@vector("event-79")
def test_split_validation(vector_id: str) -> None:
    with pytest.raises(RulesError) as too_many:
        check_split(3, 2, 2)
    assert too_many.value.code == "SPLIT_SUM"
    with pytest.raises(RulesError) as negative:
        check_split(3, -1, 4)
    assert negative.value.code == "SPLIT_NEGATIVE"
    assert (check_split(3, 3, 0).left, check_split(3, 3, 0).right) == (3, 0)
    ix = start_interaction(people(("A", 3), ("B", 1)))
    with pytest.raises(RulesError) as err:
        commit(ix, "A", 2, 2)
    assert err.value.code == "SPLIT_SUM"


@vector("event-81")
def test_three_parties_only_tied_leaders_roll(vector_id: str) -> None:
    ix, dice = play(people(("A", 3), ("B", 4), ("C", 3)), {"A": (3, 0), "B": (3, 1), "C": (1, 2)}, [2, 2, 1, 3, 1, 1])
    assert ix.left is not None and ix.right is not None
    assert ix.left.winner() == "B" and set(dict(ix.left.rolls)) == {"A", "B"}
    assert ix.right.winner() == "C" and ix.right.by is DecidedBy.COUNT
    assert dice.remaining == 0


@vector("event-82")
def test_three_way_second_tie(vector_id: str) -> None:
    counts = {"A": 2, "B": 2, "C": 2}
    result = resolve_fist(Side.LEFT, counts, ScriptedDice([6, 1, 6, 3, 4, 4]), DiceRules())
    assert (result.verdict, result.winners) == (Verdict.DRAW, ("A", "B"))
    assert "C" not in result.winners


@vector("event-83")
def test_only_the_highest_die_counts(vector_id: str) -> None:
    result = resolve_fist(Side.LEFT, {"A": 3, "B": 3}, ScriptedDice([1, 1, 6, 5, 5, 5]), DiceRules())
    assert result.winner() == "A"


@vector("event-84")
def test_sealed_commitments_and_amend(vector_id: str) -> None:
    ix = start_interaction(people(("A", 2), ("B", 2)))
    ix = commit(ix, "A", 2, 0)
    ix = commit(ix, "A", 1, 1)
    view = public_view(ix)
    assert view == {"stage": "COMMITTING", "committed": {"A": True, "B": False}}
    with pytest.raises(RulesError) as err:
        _ = ix.splits
    assert err.value.code == "NOT_REVEALED"
    ix = commit(ix, "B", 1, 1)
    assert {p: (s.left, s.right) for p, s in ix.splits.items()} == {"A": (1, 1), "B": (1, 1)}
    assert ix.stage is Stage.LEFT_TIEBREAK
    ix = roll_tiebreak(ix, ScriptedDice([3, 3]))
    assert ix.left is not None and ix.left.verdict is Verdict.DRAW
    assert ix.stage is Stage.RIGHT_TIEBREAK
    with pytest.raises(RulesError) as late:
        commit(ix, "A", 2, 0)
    assert late.value.code == "ALREADY_REVEALED"


# --- §9.9 Desafío total ------------------------------------------------------------------------------

TOTALS = {
    "event-85": (Side.LEFT, {"A": [6, 4, 2], "B": [5, 4, 3]}, {"A": 2, "B": 2}, Verdict.DRAW, ("A", "B")),
    "event-86": (Side.LEFT, {"A": [6, 5, 1], "B": [5, 4, 4]}, {"A": 2, "B": 1}, Verdict.WIN, ("A",)),
    "event-87": (Side.RIGHT, {"A": [3, 3], "B": [3, 3]}, {"A": 2, "B": 2}, Verdict.JOINT, ("A", "B")),
    "event-88": (Side.LEFT, {"A": [1, 6, 3], "B": [2, 5, 5]}, {"A": 1, "B": 2}, Verdict.WIN, ("B",)),
    "event-91": (
        Side.LEFT,
        {"A": [5, 2], "B": [5, 4], "C": [3, 3]},
        {"A": 1, "B": 2, "C": 0},
        Verdict.WIN,
        ("B",),
    ),
}


@vector(*TOTALS)
def test_total_challenge_scoring(vector_id: str) -> None:
    side, rolls, points, verdict, winners = TOTALS[vector_id]
    counts = {p: len(d) for p, d in rolls.items()}
    stream = [x for d in rolls.values() for x in d]
    result = resolve_fist(side, counts, ScriptedDice(stream), DiceRules(), use_total=True)
    assert dict(result.points) == points
    assert (result.verdict, result.winners, result.by) == (verdict, winners, DecidedBy.TOTAL)


@vector("event-89")
def test_without_total_challenge_highest_die(vector_id: str) -> None:
    result = resolve_fist(Side.LEFT, {"A": 3, "B": 3}, ScriptedDice([6, 4, 2, 5, 4, 3]), DiceRules(), use_total=False)
    assert (result.winner(), result.by) == ("A", DecidedBy.HIGHEST_DIE)


@vector("event-90")
def test_unmatched_exploded_die_scores_nothing(vector_id: str) -> None:
    settings = EventSettings.model_validate(
        {"optional": {"total_challenge": {"enabled": True}, "exploding_dice": {"enabled": True}}}
    )
    ix, dice = play(people(("A", 2), ("B", 2)), {"A": (2, 0), "B": (2, 0)}, [6, 2, 4, 5, 5], settings)
    assert ix.left is not None
    assert dict(ix.left.rolls) == {"A": (6, 2, 4), "B": (5, 5)}
    assert dict(ix.left.points) == {"A": 1, "B": 1}
    assert ix.left.verdict is Verdict.DRAW
    assert dice.remaining == 0


@vector("event-92")
def test_empty_fists_total_challenge_draw(vector_id: str) -> None:
    winners, points = total_challenge({"A": [], "B": []})
    assert (winners, points) == (("A", "B"), {"A": 0, "B": 0})
    result = compare_counts(Side.LEFT, {"A": 0, "B": 0})
    assert result is not None and (result.verdict, result.by) == (Verdict.DRAW, DecidedBy.EMPTY)
    ix, _ = play(people(("A", 1), ("B", 1)), {"A": (0, 1), "B": (0, 1)}, [4, 2], TOTAL)
    assert ix.left is not None and ix.left.verdict is Verdict.DRAW and ix.left.rolls == ()
