"""Event §9.7: the narration veto flow."""

from __future__ import annotations

import pytest

from systems.errors import RulesError
from systems.event.desafio import DecidedBy, FistResult, Side
from systems.event.desafio import Verdict as FistVerdict
from systems.event.ladder import Outcome
from systems.event.narration import (
    GM,
    Narration,
    NarrationKind,
    NarrationStatus,
    close_window,
    defend,
    post_gm_narration,
    propose,
    reformulate,
    response_deadline_passed,
    vote,
    withdraw_vote,
)
from tests.systems.vectors import vector

VOTERS = [GM, "Daria", "Paco", "Jenny"]
S = NarrationStatus


def action_narration(author: str = "Paco", veto: bool = True) -> Narration:
    return propose(
        NarrationKind.ACTION_ABSOLUTE,
        author,
        "Horace huye y deja caer su bolsa.",
        VOTERS,
        narration_veto=veto,
        outcome=Outcome.ABSOLUTE_SUCCESS,
    )


def contested(n: Narration, *vetoers: str) -> Narration:
    for v in vetoers:
        n = vote(n, v)
    n = close_window(n)
    assert n.status is S.CONTESTED
    return n


@vector("event-63")
def test_defended_narration_still_vetoed_is_overruled(vector_id: str) -> None:
    n = contested(action_narration(), GM, "Jenny")
    n = defend(n, "Paco", "Horace es un cobarde.")
    assert n.window is not None and n.window.vetoes == {GM, "Jenny"}  # carried over
    n = close_window(n)
    assert n.path[:4] == (S.PROPOSED, S.CONTESTED, S.DEFENDED, S.OVERRULED)
    assert n.status is S.GM_NARRATION
    assert (n.outcome, n.narrator) == (Outcome.PARTIAL_SUCCESS, GM)
    final = post_gm_narration(n, GM, "Horace se ríe de Gorton.")
    assert final.status is S.FINAL and final.text.startswith("Horace huye")


@vector("event-64")
def test_reformulated_interaction_narration_accepted(vector_id: str) -> None:
    left = FistResult(Side.LEFT, (("Valy", 2), ("Khan", 0)), FistVerdict.WIN, ("Valy",), DecidedBy.COUNT)
    n = propose(NarrationKind.INTERACTION, "Daria", "Valy tropieza y pierde la bolsa.", VOTERS, True, challenge=left)
    n = contested(n, "Jenny", GM)
    n = reformulate(n, "Daria", "Valy coge la bolsa, pero Khan ve dónde la guarda.")
    assert n.window is not None and n.window.veto_count == 0  # votes reset
    n = close_window(n)
    assert n.status is S.FINAL and S.ACCEPTED in n.path
    assert n.text == "Valy coge la bolsa, pero Khan ve dónde la guarda."
    assert n.history == ("Valy tropieza y pierde la bolsa.",)
    assert n.narrator == "Daria"
    assert n.challenge.winner() == "Valy"


@vector("event-65")
def test_reformulated_and_vetoed_again_is_overruled(vector_id: str) -> None:
    n = reformulate(contested(action_narration(), GM, "Jenny"), "Paco", "Horace retrocede.")
    n = close_window(vote(vote(n, "Daria"), "Jenny"))
    assert S.OVERRULED in n.path
    assert (n.outcome, n.narrator) == (Outcome.PARTIAL_SUCCESS, GM)


@vector("event-66", "event-67")
def test_review_counts_carried_withdrawn_and_new_vetoes(vector_id: str) -> None:
    n = defend(contested(action_narration("Paco"), GM, "Jenny"), "Paco", "Tiene sentido.")
    n = withdraw_vote(n, "Jenny")
    if vector_id == "event-67":
        n = vote(n, "Daria")
    assert n.window is not None
    n = close_window(n)
    if vector_id == "event-66":
        assert n.window.vetoes == {GM}
        assert n.status is S.FINAL and S.ACCEPTED in n.path
        assert n.text == "Horace huye y deja caer su bolsa." and n.outcome is Outcome.ABSOLUTE_SUCCESS
    else:
        assert n.window.vetoes == {GM, "Daria"}
        assert S.OVERRULED in n.path and n.outcome is Outcome.PARTIAL_SUCCESS


@vector("event-68")
def test_one_initial_veto_accepts_directly(vector_id: str) -> None:
    n = close_window(vote(action_narration(), "Jenny"))
    assert n.path == (S.PROPOSED, S.ACCEPTED, S.FINAL)
    assert S.CONTESTED not in n.path


@vector("event-69")
def test_no_answer_in_time_overrules(vector_id: str) -> None:
    n = response_deadline_passed(contested(action_narration(), GM, "Jenny"))
    assert S.OVERRULED in n.path
    assert (n.outcome, n.narrator, n.status) == (Outcome.PARTIAL_SUCCESS, GM, S.GM_NARRATION)


@vector("event-70")
def test_narration_veto_switched_off(vector_id: str) -> None:
    n = action_narration(veto=False)
    assert n.status is S.FINAL
    with pytest.raises(RulesError) as err:
        vote(n, "Jenny")
    assert err.value.code == "NARRATION_VETO_DISABLED"


@vector("event-71")
def test_overruled_interaction_keeps_the_left_result(vector_id: str) -> None:
    left = FistResult(Side.LEFT, (("A", 2), ("B", 1)), FistVerdict.WIN, ("A",), DecidedBy.COUNT)
    n = propose(NarrationKind.INTERACTION, "B", "B narra.", [GM, "A", "B", "C"], True, challenge=left)
    n = response_deadline_passed(contested(n, "A", GM))
    assert n.challenge.winner() == "A"
    assert n.narrator == GM and n.outcome is None


@vector("event-72")
def test_gm_narrations_are_not_vetoable(vector_id: str) -> None:
    n = propose(NarrationKind.GM, GM, "Gorton lo consigue, a medias.", VOTERS, True, outcome=Outcome.PARTIAL_SUCCESS)
    with pytest.raises(RulesError) as err:
        vote(n, "Jenny")
    assert err.value.code == "GM_NARRATION_NOT_VETOABLE"


@vector("event-73")
def test_one_response_only(vector_id: str) -> None:
    n = reformulate(contested(action_narration(), GM, "Jenny"), "Paco", "Otra versión.")
    for again in (lambda: defend(n, "Paco", "x"), lambda: reformulate(n, "Paco", "y")):
        with pytest.raises(RulesError) as err:
            again()
        assert err.value.code == "ONE_RESPONSE_ONLY"
