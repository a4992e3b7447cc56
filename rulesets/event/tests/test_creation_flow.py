"""Event: the answer-by-answer creation with the table's vetoes (§2.2–§2.5, vectors 55–62, 155): the
services, their refusals, ``submit_character`` held back by an open window, and the pages and API."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from characters import services
from characters.models import Character, CharacterStatus, EventAnswer, LedgerEntry
from rulesets.event import creation as flow
from rulesets.event.tests.sheet_fixtures import EventTable, build_event_table, valid_sheet
from systems.errors import RulesError
from tests.personas import PASSWORD


@pytest.fixture
def ev(db: None) -> EventTable:
    return build_event_table()


def _all_no_veto(ev: EventTable, answer: EventAnswer) -> EventAnswer:
    for voter in (ev.gm, ev.bruno, ev.carla):
        answer = flow.cast_vote(actor=voter, answer=answer, kind="NO_VETO")
    return answer


def _answered(ev: EventTable) -> Character:
    """A draft whose two sentences the table accepted."""
    character = ev.draft()
    _all_no_veto(ev, flow.answer_question(actor=ev.ana, character=character, question="WHO_AM_I", text="Soy Valy."))
    answer = flow.answer_question(actor=ev.ana, character=character, question="APPEARANCE", text="Pelo rapado.")
    flow.close_answer(actor=ev.gm, answer=answer)  # the GM closes early: no vetoes, accepted
    return Character.objects.get(pk=character.pk)


def _state(character: Character) -> tuple[Any, ...]:
    stored = Character.objects.get(pk=character.pk)
    answers = list(EventAnswer.objects.filter(character=character).values_list("id", "status", "votes"))
    return stored.sheet, stored.status, answers


def test_the_whole_creation_answer_by_answer(ev: EventTable) -> None:
    character = ev.draft()
    assert flow.next_step(character) == "who_am_i"
    answer = flow.answer_question(actor=ev.ana, character=character, question="WHO_AM_I", text="Soy Valy.")
    assert answer.status == "PENDING" and sorted(answer.eligible) == sorted([ev.gm.pk, ev.bruno.pk, ev.carla.pk])
    assert flow.next_step(character) == "vote"
    answer = _all_no_veto(ev, answer)
    assert (answer.status, answer.close_reason) == ("ACCEPTED", "ALL_VOTED")  # everyone voted: closes early
    character.refresh_from_db()
    assert character.sheet["who_am_i"] == "Soy Valy."
    answer = flow.answer_question(actor=ev.ana, character=character, question="APPEARANCE", text="Alta. Muy alta.")
    assert answer.warnings == ["MULTI_SENTENCE"]  # a warning, never a refusal (CS1)
    flow.close_answer(actor=ev.gm, answer=answer)
    for kind, name in [
        ("NEW_SKILL", "Atletismo"),
        ("IMPROVEMENT", "atletismo"),
        ("NEW_SKILL", "Intimidar"),
        ("NEW_SKILL", "Resistencia"),
        ("IMPROVEMENT", "Resistencia"),
        ("IMPROVEMENT", "Atletismo"),
    ]:
        assert flow.next_step(Character.objects.get(pk=character.pk)) == "pick"
        pick = flow.propose_pick(actor=ev.ana, character=character, kind=kind, skill=name)
        assert flow.close_answer(actor=ev.gm, answer=pick).status == "ACCEPTED"
    character.refresh_from_db()
    assert flow.next_step(character) == "submit"
    assert [(s["name"], s["improvements"]) for s in character.sheet["skills"]] == [
        ("Atletismo", 2),
        ("Intimidar", 0),
        ("Resistencia", 1),
    ]
    assert [a.round for a in EventAnswer.objects.filter(question="ABILITIES")] == [1, 2, 3, 4, 5, 6]
    character = services.submit_character(actor=ev.ana, character=character)
    character = services.approve_character(actor=ev.gm, character=character)
    assert character.status == CharacterStatus.APPROVED


def test_two_vetoes_invalidate_and_the_player_reformulates(ev: EventTable) -> None:
    character = _answered(ev)
    pick = flow.propose_pick(actor=ev.ana, character=character, kind="NEW_SKILL", skill="Regeneración")
    flow.cast_vote(actor=ev.bruno, answer=pick, reason="Demasiado fuerte")
    flow.cast_vote(actor=ev.carla, answer=pick)
    flow.cast_vote(actor=ev.carla, answer=pick)  # the same veto twice is one veto (vector 58)
    pick = flow.close_answer(actor=ev.gm, answer=pick)
    assert (pick.status, flow.veto_count(pick), pick.close_reason) == ("INVALID", 2, "GM")
    character.refresh_from_db()
    assert character.sheet["skills"] == []  # a vetoed pick never reaches the sheet
    again = flow.reformulate_answer(actor=ev.ana, answer=pick, kind="NEW_SKILL", skill="Curación x3")
    assert (again.round, again.attempt, again.pick_skill) == (1, 2, "Curación x3")
    flow.cast_vote(actor=ev.carla, answer=again)
    assert flow.close_answer(actor=ev.gm, answer=again).status == "ACCEPTED"  # 1 veto: accepted
    assert [s["name"] for s in Character.objects.get(pk=character.pk).sheet["skills"]] == ["Curación x3"]


def test_a_withdrawn_veto_never_counted(ev: EventTable) -> None:
    """The source's Jenny: Daria vetoes then withdraws; Paco and Juan veto: 2 active, invalid (vector 56)."""
    character = ev.draft(ev.carla, name="Khan")
    answer = flow.answer_question(actor=ev.carla, character=character, question="WHO_AM_I", text="Soy Khan.")
    flow.cast_vote(actor=ev.ana, answer=answer)
    flow.withdraw_vote(actor=ev.ana, answer=answer)
    flow.cast_vote(actor=ev.bruno, answer=answer)
    answer = flow.cast_vote(actor=ev.gm, answer=answer)
    assert flow.veto_count(answer) == 2
    assert flow.close_answer(actor=ev.gm, answer=answer).status == "INVALID"
    assert [entry["action"] for entry in EventAnswer.objects.get(pk=answer.pk).vote_log] == [
        "open",
        "vote",
        "withdraw",
        "vote",
        "vote",
        "close",
    ]


@pytest.mark.parametrize("voter", ["ana", "reader", "outsider"])
def test_who_may_not_vote(ev: EventTable, voter: str) -> None:
    character = ev.draft()
    answer = flow.answer_question(actor=ev.ana, character=character, question="WHO_AM_I", text="Soy Valy.")
    before = _state(character)
    with pytest.raises(PermissionDenied):
        flow.cast_vote(actor=getattr(ev, voter), answer=answer)
    assert _state(character) == before


def test_out_of_order_steps_are_refused_and_change_nothing(ev: EventTable) -> None:
    character = ev.draft()
    before = _state(character)
    for run, code in (
        (
            lambda: flow.answer_question(actor=ev.ana, character=character, question="APPEARANCE", text="x"),
            "QUESTION_ORDER",
        ),
        (
            lambda: flow.propose_pick(actor=ev.ana, character=character, kind="NEW_SKILL", skill="Nadar"),
            "QUESTION_ORDER",
        ),
        (
            lambda: flow.answer_question(actor=ev.ana, character=character, question="WHO_AM_I", text="  "),
            "EMPTY_ANSWER",
        ),
    ):
        with pytest.raises(RulesError) as info:
            run()
        assert info.value.code == code
    assert _state(character) == before
    answer = flow.answer_question(actor=ev.ana, character=character, question="WHO_AM_I", text="Soy Valy.")
    before = _state(character)
    with pytest.raises(RulesError) as info:
        flow.answer_question(actor=ev.ana, character=character, question="WHO_AM_I", text="Otra vez.")
    assert info.value.code == "ANSWER_PENDING"
    with pytest.raises(RulesError) as info:
        flow.close_answer(actor=ev.bruno, answer=answer)  # only a GM closes before the deadline
    assert info.value.code == "WINDOW_OPEN"
    with pytest.raises(RulesError) as info:
        flow.reformulate_answer(actor=ev.ana, answer=answer, text="x")
    assert info.value.code == "NOT_VETOED"
    with pytest.raises(PermissionDenied):
        flow.answer_question(actor=ev.bruno, character=character, question="WHO_AM_I", text="Soy yo.")
    assert _state(character) == before


def test_picks_are_checked_when_proposed(ev: EventTable) -> None:
    character = _answered(ev)
    pick = flow.propose_pick(actor=ev.ana, character=character, kind="NEW_SKILL", skill="Atletismo")
    flow.close_answer(actor=ev.gm, answer=pick)
    before = _state(character)
    for kind, name, code in (
        ("NEW_SKILL", "ATLÉTISMO", "DUPLICATE_SKILL"),
        ("IMPROVEMENT", "Nadar", "UNKNOWN_SKILL"),
    ):
        with pytest.raises(RulesError) as info:
            flow.propose_pick(actor=ev.ana, character=character, kind=kind, skill=name)
        assert info.value.code == code
    with pytest.raises(ValidationError):
        flow.propose_pick(actor=ev.ana, character=character, kind="SUPERPOWER", skill="Nadar")
    assert _state(character) == before
    Character.objects.filter(pk=character.pk).update(sheet=valid_sheet())  # six picks already
    with pytest.raises(RulesError) as info:
        flow.propose_pick(actor=ev.ana, character=character, kind="NEW_SKILL", skill="Nadar")
    assert info.value.code == "SHEET_COMPLETE"


def test_the_deadline_closes_the_window(ev: EventTable) -> None:
    character = ev.draft()
    answer = flow.answer_question(actor=ev.ana, character=character, question="WHO_AM_I", text="Soy Valy.")
    flow.cast_vote(actor=ev.bruno, answer=answer)
    EventAnswer.objects.filter(pk=answer.pk).update(closes_at=timezone.now() - timedelta(minutes=1))
    with pytest.raises(RulesError) as info:
        flow.cast_vote(actor=ev.carla, answer=answer)
    assert info.value.code == "WINDOW_CLOSED"  # vector 62
    answer = flow.close_answer(actor=ev.carla, answer=answer)  # anyone at the table, once it is due
    assert (answer.status, answer.close_reason) == ("ACCEPTED", "DEADLINE")


def test_submit_waits_for_the_open_window(ev: EventTable) -> None:
    character = ev.draft(sheet=valid_sheet())
    answer = flow.answer_question(actor=ev.ana, character=character, question="WHO_AM_I", text="Soy Valy.")
    with pytest.raises(ValidationError) as info:
        services.submit_character(actor=ev.ana, character=character)
    assert "sheet" in info.value.message_dict
    assert Character.objects.get(pk=character.pk).status == CharacterStatus.DRAFT
    flow.close_answer(actor=ev.gm, answer=answer)
    assert services.submit_character(actor=ev.ana, character=character).status == CharacterStatus.PENDING


def test_a_progress_pick_goes_to_the_vote_then_to_the_ledger(ev: EventTable) -> None:
    ev.set_rules(progress={"enabled": True, "subject_to_veto": True})
    valy = ev.approved()
    services.apply_operation(
        actor=ev.gm, campaign=ev.campaign, operation="open_progress", params={"window": 1}, character=valy
    )
    first = flow.propose_pick(actor=ev.ana, character=valy, kind="NEW_SKILL", skill="Volar")
    assert first.question == "PROGRESS"
    flow.cast_vote(actor=ev.gm, answer=first)
    flow.cast_vote(actor=ev.bruno, answer=first)
    assert flow.close_answer(actor=ev.gm, answer=first).status == "INVALID"  # vector 155, first pick
    second = flow.propose_pick(actor=ev.ana, character=valy, kind="IMPROVEMENT", skill="Intimidar")
    assert flow.close_answer(actor=ev.gm, answer=second).status == "ACCEPTED"
    entry = LedgerEntry.objects.filter(character=valy, operation="add_progress_pick").get()
    assert (entry.actor, entry.changes) == (ev.ana, {f"character.{valy.pk}.picks": [6, 7]})
    sheet = Character.objects.get(pk=valy.pk).sheet
    assert sheet["progress_used"] is True
    assert [s["improvements"] for s in sheet["skills"] if s["name"] == "Intimidar"] == [1]


# --- Pages and API ----------------------------------------------------------------------------------


def test_the_page_shows_each_answer_with_its_votes(ev: EventTable, client: Any) -> None:
    character = ev.draft()
    answer = flow.answer_question(actor=ev.ana, character=character, question="WHO_AM_I", text="Soy Valy.")
    flow.cast_vote(actor=ev.bruno, answer=answer, reason="Muy vago")
    client.login(username="ev_carla", password=PASSWORD)
    page = client.get(f"/characters/{character.pk}/event/answers/")
    text = page.content.decode()
    assert page.status_code == 200
    assert "Soy Valy." in text and "vetos: 1 / 2" in text and "Paco" in text and "Muy vago" in text
    assert "¡Veto!" in text  # Jenny may vote
    response = client.post(f"/event-answers/{answer.pk}/vote/", {"kind": "VETO"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "vetos: 2 / 2" in response.content.decode()
    client.logout()
    client.login(username="ev_reader", password=PASSWORD)
    assert client.get(f"/characters/{character.pk}/event/answers/").status_code == 404


def test_the_api_answers_votes_and_closes(ev: EventTable, client: Any) -> None:
    character = ev.draft()
    client.login(username="ev_ana", password=PASSWORD)
    created = client.post(
        f"/api/characters/{character.pk}/event-answers/", {"question": "WHO_AM_I", "text": "Soy Valy."}
    )
    assert created.status_code == 201, created.content
    answer_id = created.json()["id"]
    again = client.post(f"/api/characters/{character.pk}/event-answers/", {"question": "WHO_AM_I", "text": "Otra."})
    assert again.status_code == 400 and again.json()["error"]["code"] == "ANSWER_PENDING"
    assert client.post(f"/api/event-answers/{answer_id}/vote/", {"kind": "VETO"}).status_code == 403  # the author
    client.logout()
    client.login(username="ev_bruno", password=PASSWORD)
    voted = client.post(f"/api/event-answers/{answer_id}/vote/", {"kind": "VETO", "reason": "No"})
    assert voted.status_code == 200 and voted.json()["vetoes"] == 1
    client.logout()
    client.login(username="ev_gm", password=PASSWORD)
    closed = client.post(f"/api/event-answers/{answer_id}/close/")
    assert closed.json()["status"] == "ACCEPTED"
    listed = client.get(f"/api/characters/{character.pk}/event-answers/").json()
    assert [a["status"] for a in listed["results"]] == ["ACCEPTED"]
