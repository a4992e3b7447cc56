"""A procedure waiting for me, end to end through the runner: the coin flip wager (tests/coinflip) opened
by a player waits for the player's call, then for the GM's settlement; each wait tells whom it waits for
(never whoever just acted), through the flow.changed event the runner publishes after commit."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from notifications.models import Kind, Notification
from tests.coinflip.test_coinflip import build, make_character, open_wager, step

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting(user: User) -> list[Notification]:
    return list(Notification.objects.filter(user=user, kind=Kind.PROCEDURE_WAITING).order_by("id"))


def test_each_wait_tells_whom_it_waits_for() -> None:
    t = build()
    pk = make_character(t)
    flow = open_wager(t, pk)
    assert _waiting(t["player"]) == []  # the player opened it and is on the page
    assert _waiting(t["gm"]) == []  # nothing waits for the GM yet
    step(t["player"], flow, "call", {"call": "heads"}, "k1")
    gm_waits = _waiting(t["gm"])
    assert len(gm_waits) == 1 and gm_waits[0].scene_id == t["scene"].pk
    assert gm_waits[0].params["step"] == "settle"
    step(t["gm"], flow, "settle", {}, "k2")
    assert len(_waiting(t["gm"])) == 1  # settled: nothing waits any more
    assert _waiting(t["player"]) == []


@pytest.mark.django_db
def test_an_event_answer_open_to_veto_tells_those_who_may_vote(django_capture_on_commit_callbacks: Any) -> None:
    from rulesets.event import creation as event_creation
    from rulesets.event.tests.sheet_fixtures import build_event_table

    ev = build_event_table()
    character = ev.draft()
    with django_capture_on_commit_callbacks(execute=True):
        event_creation.answer_question(actor=ev.ana, character=character, question="WHO_AM_I", text="Soy Valy.")
    told = set(Notification.objects.filter(kind=Kind.VETO_VOTE).values_list("user__username", flat=True))
    assert told == {ev.gm.username, ev.bruno.username, ev.carla.username}  # never the author, never a reader
    note = Notification.objects.filter(kind=Kind.VETO_VOTE).first()
    assert note is not None and "Valy" in note.params["character"]
