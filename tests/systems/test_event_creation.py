"""Event §9.5–§9.6: character creation turns, picks, and veto counting."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import pytest

from systems.errors import RulesError
from systems.event.creation import (
    TurnQueue,
    check_turn,
    q3_turn_order,
    record_answer,
    start_q3_round,
    start_q12,
)
from systems.event.settings import EventSettings, setup_warnings
from systems.event.sheet import (
    EventSheet,
    Pick,
    PickKind,
    Question,
    Skill,
    answer_warnings,
    apply_pick,
)
from systems.event.veto import CloseReason, Verdict, VetoWindow, VoteKind, cast, close, open_window, withdraw
from tests.systems.vectors import vector

GM = "Juan"


def rerolls(*rounds: Mapping[str, int]) -> Iterator[Mapping[str, int]]:
    yield from rounds


def scripted_reroll(*rounds: Mapping[str, int]):  # type: ignore[no-untyped-def]
    it = rerolls(*rounds)
    calls: list[tuple[str, ...]] = []

    def reroll(players: tuple[str, ...]) -> Mapping[str, int]:
        calls.append(players)
        return next(it)

    return reroll, calls


def window_with(author: str, voters: list[str], vetoes: list[str]) -> VetoWindow:
    w = open_window(author, voters)
    for v in vetoes:
        w = cast(w, v, VoteKind.VETO)
    return w


# --- Q3 order ----------------------------------------------------------------------------------------


@vector("event-40")
def test_q3_order_is_clockwise_from_the_highest(vector_id: str) -> None:
    reroll, calls = scripted_reroll()
    order = q3_turn_order(["A", "B", "C", "D"], {"A": 11, "B": 15, "C": 9, "D": 12}, reroll)
    assert order == ("B", "C", "D", "A")
    assert calls == []


@vector("event-41")
def test_only_top_ties_reroll(vector_id: str) -> None:
    reroll, calls = scripted_reroll({"A": 9, "B": 12})
    assert q3_turn_order(["A", "B", "C"], {"A": 14, "B": 14, "C": 10}, reroll) == ("B", "C", "A")
    assert calls == [("A", "B")]


@vector("event-42")
def test_repeated_top_ties_reroll_only_the_tied(vector_id: str) -> None:
    reroll, calls = scripted_reroll({"A": 10, "B": 10, "C": 7}, {"A": 13, "B": 6})
    assert q3_turn_order(["A", "B", "C"], {"A": 14, "B": 14, "C": 14}, reroll) == ("A", "B", "C")
    assert calls == [("A", "B", "C"), ("A", "B")]


# --- Q1/Q2 and round queues --------------------------------------------------------------------------


@vector("event-43")
def test_q1_starts_at_the_gms_left(vector_id: str) -> None:
    assert start_q12(["Daria", "Paco", "Jenny"], Question.WHO_AM_I).queue == ("Daria", "Paco", "Jenny")


@vector("event-44")
def test_invalidated_answer_goes_to_the_back(vector_id: str) -> None:
    seats = ["A", "B", "C"]
    queue = start_q12(seats, Question.WHO_AM_I)
    verdicts = {"A": [Verdict.INVALID, Verdict.ACCEPTED], "B": [Verdict.ACCEPTED], "C": [Verdict.ACCEPTED]}
    sequence: list[str] = []
    while not queue.done:
        player = queue.current
        assert player is not None
        votes = ["B", "C"] if verdicts[player][0] is Verdict.INVALID else []
        window = close(window_with(player, [*seats, GM], votes))
        assert window.verdict is verdicts[player].pop(0)
        sequence.append(player)
        queue = record_answer(queue, player, window.verdict)
    assert sequence == ["A", "B", "C", "A"]


def round_four() -> tuple[TurnQueue, dict[str, VetoWindow]]:
    voters = ["Daria", "Paco", "Jenny", GM]
    queue = TurnQueue(Question.ABILITIES, 4, ("Daria", "Paco", "Jenny"))
    daria = close(window_with("Daria", voters, ["Paco", "Jenny", GM]))
    paco = close(window_with("Paco", voters, ["Jenny"]))
    jenny = withdraw(window_with("Jenny", voters, ["Daria"]), "Daria")
    jenny = close(cast(cast(jenny, "Paco"), GM))
    windows = {"Daria": daria, "Paco": paco, "Jenny": jenny}
    for player in ("Daria", "Paco", "Jenny"):
        queue = record_answer(queue, player, windows[player].verdict)
    return queue, windows


@vector("event-45")
def test_source_round_four(vector_id: str) -> None:
    queue, windows = round_four()
    assert (windows["Daria"].verdict, windows["Daria"].veto_count) == (Verdict.INVALID, 3)
    assert (windows["Paco"].verdict, windows["Paco"].veto_count) == (Verdict.ACCEPTED, 1)
    assert (windows["Jenny"].verdict, windows["Jenny"].veto_count) == (Verdict.INVALID, 2)
    assert queue.queue == ("Daria", "Jenny")


@vector("event-46")
def test_second_invalidation_goes_to_the_back_again(vector_id: str) -> None:
    queue, _ = round_four()
    again = close(window_with("Daria", ["Daria", "Paco", "Jenny", GM], ["Paco", GM]))
    queue = record_answer(queue, "Daria", again.verdict)
    assert queue.queue == ("Jenny", "Daria")
    with pytest.raises(RulesError) as err:
        check_turn(queue, "Daria")
    assert err.value.code == "NOT_YOUR_TURN"


# --- picks -------------------------------------------------------------------------------------------


@vector("event-47")
def test_improvement_pick(vector_id: str) -> None:
    before = EventSheet(skills=(Skill(name="Intimidar"),))
    after = apply_pick(before, Pick(kind=PickKind.IMPROVEMENT, skill="Intimidar"))
    skill = after.skill("Intimidar")
    assert skill is not None and skill.improvements == 1 and skill.display == "Intimidar+"
    assert after.creation_picks == before.creation_picks + 1


@vector("event-48")
def test_duplicate_new_skill_is_rejected(vector_id: str) -> None:
    sheet = EventSheet(skills=(Skill(name="Abrir Cerraduras"),))
    with pytest.raises(RulesError) as err:
        apply_pick(sheet, Pick(kind=PickKind.NEW_SKILL, skill=" abrir  cerraduras"))
    assert err.value.code == "DUPLICATE_SKILL"


@vector("event-49")
def test_full_sheets_are_skipped(vector_id: str) -> None:
    assert start_q3_round(["A", "B", "C"], {"A": 6, "B": 5, "C": 5}, 6).queue == ("B", "C")


@vector("event-50")
def test_per_skill_improvement_cap(vector_id: str) -> None:
    settings = EventSettings.model_validate({"optional": {"skill_cap": {"enabled": True, "max_picks": 10}}})
    sheet = EventSheet.model_validate(
        {"skills": [{"name": "Luchar", "improvements": 6}]}, context={"settings": settings}
    )
    with pytest.raises(RulesError) as err:
        apply_pick(sheet, Pick(kind=PickKind.IMPROVEMENT, skill="Luchar"), settings)
    assert err.value.code == "IMPROVEMENT_CAP"


@vector("event-51")
def test_complete_sheet_rejects_more_picks(vector_id: str) -> None:
    sheet = EventSheet(
        skills=(
            Skill(name="Abrir cerraduras"),
            Skill(name="Carterista"),
            Skill(name="Sigilo"),
            Skill(name="Atletismo", improvements=2),
        )
    )
    assert sheet.creation_picks == 6
    with pytest.raises(RulesError) as err:
        apply_pick(sheet, Pick(kind=PickKind.NEW_SKILL, skill="Trepar"))
    assert err.value.code == "SHEET_COMPLETE"


@vector("event-52")
def test_house_rule_categories(vector_id: str) -> None:
    settings = EventSettings.model_validate(
        {"house_rules": {"skill_categories": [{"key": "supernatural", "max_per_character": 1, "improvable": False}]}}
    )
    sheet = apply_pick(
        EventSheet(), Pick(kind=PickKind.NEW_SKILL, skill="Curación x3", category="supernatural"), settings
    )
    with pytest.raises(RulesError) as improve:
        apply_pick(sheet, Pick(kind=PickKind.IMPROVEMENT, skill="Curación x3"), settings)
    assert improve.value.code == "NOT_IMPROVABLE"
    with pytest.raises(RulesError) as second:
        apply_pick(sheet, Pick(kind=PickKind.NEW_SKILL, skill="Rayo", category="supernatural"), settings)
    assert second.value.code == "CATEGORY_LIMIT"


@vector("event-53")
def test_two_sentences_warn_but_vetoes_decide(vector_id: str) -> None:
    text = "Tengo unos veinte años y el pelo rojo. Siempre llevo una capa gris."
    assert answer_warnings(text) == ("MULTI_SENTENCE",)
    assert answer_warnings("Tengo unos veinte años y el pelo rojo.") == ()
    window = close(window_with("Jenny", ["Daria", "Paco", "Jenny", GM], ["Paco"]))
    assert window.verdict is Verdict.ACCEPTED


# --- §9.6 veto counting ------------------------------------------------------------------------------

VOTERS = ["A", "B", "C", "GM"]


@vector("event-54", "event-55", "event-59")
def test_two_vetoes_invalidate(vector_id: str) -> None:
    vetoes, verdict = {
        "event-54": (["B"], Verdict.ACCEPTED),
        "event-55": (["B", "C"], Verdict.INVALID),
        "event-59": (["GM", "B"], Verdict.INVALID),
    }[vector_id]
    assert close(window_with("A", VOTERS, vetoes)).verdict is verdict


@vector("event-56")
def test_withdrawn_veto_never_counted(vector_id: str) -> None:
    window = withdraw(window_with("A", VOTERS, ["B", "C"]), "C")
    closed = close(window)
    assert (closed.veto_count, closed.verdict) == (1, Verdict.ACCEPTED)


@vector("event-57")
def test_author_cannot_vote(vector_id: str) -> None:
    window = open_window("A", VOTERS)
    with pytest.raises(RulesError) as err:
        cast(window, "A", VoteKind.VETO)
    assert err.value.code == "AUTHOR_CANNOT_VOTE"
    closed = close(window)
    assert (closed.veto_count, closed.verdict) == (0, Verdict.ACCEPTED)


@vector("event-58")
def test_same_voter_twice_is_one_veto(vector_id: str) -> None:
    closed = close(window_with("A", VOTERS, ["B", "B"]))
    assert (closed.veto_count, closed.verdict) == (1, Verdict.ACCEPTED)


@vector("event-60")
def test_window_closes_early_when_everyone_voted(vector_id: str) -> None:
    window = open_window("A", VOTERS)
    assert window.eligible == {"B", "C", "GM"}
    window = cast(window, "B", VoteKind.NO_VETO)
    window = cast(window, "C", VoteKind.VETO)
    assert not window.everyone_voted
    window = cast(window, "GM", VoteKind.NO_VETO)
    assert window.everyone_voted
    closed = close(window, CloseReason.ALL_VOTED)
    assert (closed.veto_count, closed.verdict, closed.close_reason) == (1, Verdict.ACCEPTED, CloseReason.ALL_VOTED)


@vector("event-61")
def test_gm_and_one_player_can_never_invalidate(vector_id: str) -> None:
    assert "VETO_UNREACHABLE" in setup_warnings(player_count=1)
    assert setup_warnings(player_count=2) == ()
    closed = close(window_with("Daria", ["Daria", GM], [GM]))
    assert closed.verdict is Verdict.ACCEPTED


@vector("event-62")
def test_no_votes_after_close(vector_id: str) -> None:
    closed = close(open_window("A", VOTERS))
    with pytest.raises(RulesError) as err:
        cast(closed, "B", VoteKind.VETO)
    assert err.value.code == "WINDOW_CLOSED"
