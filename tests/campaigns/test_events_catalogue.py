"""The event catalogue and the one audience check, without sockets."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

import campaigns.events as events_module
from campaigns import policy
from campaigns.events import EVENT_FIELDS, Audience, Event, EventType, last_seq, post_audience, publish
from campaigns.models import CampaignEventLog, Recipients
from campaigns.policy import Viewer
from tests.personas import Table

GM = Viewer(1, 10, True, "gm")
AUTHOR = Viewer(2, 10, True, "player")
TARGET = Viewer(3, 10, True, "player")
OTHER = Viewer(4, 10, True, "player")
READER = Viewer(5, 10, True, "reader")
ANONYMOUS = Viewer(None, 10, True, None)
PRIVATE_OUTSIDER = Viewer(6, 10, False, None)
SCENE, LISTED = 100, 200
READS = {GM: {SCENE, LISTED}, AUTHOR: {SCENE, LISTED}, TARGET: {SCENE}, OTHER: {SCENE}, READER: {SCENE}}


def _who(audience: Audience) -> set[str]:
    names = {"gm": GM, "author": AUTHOR, "target": TARGET, "other": OTHER, "reader": READER, "anon": ANONYMOUS}
    names["private_outsider"] = PRIVATE_OUTSIDER
    return {
        name
        for name, viewer in names.items()
        if policy.event_visible_to(viewer, audience, READS.get(viewer, {SCENE} if viewer is ANONYMOUS else set()))
    }


@pytest.mark.parametrize(
    ("audience", "expected"),
    [
        (post_audience(SCENE, Recipients.EVERYONE, 2), {"gm", "author", "target", "other", "reader", "anon"}),
        (post_audience(SCENE, Recipients.GMS, 2), {"gm", "author"}),
        (post_audience(SCENE, Recipients.WHISPER, 2, [3]), {"gm", "author", "target"}),
        (post_audience(LISTED, Recipients.EVERYONE, 2), {"gm", "author"}),
        (post_audience(LISTED, Recipients.WHISPER, 2, [3]), {"gm", "author"}),  # target cannot read the scene
        (Audience(scene_id=SCENE, gms_only=True), {"gm"}),
        (Audience(gms_only=True, user_ids=frozenset({3})), {"gm", "target"}),
        (Audience(public=True), {"gm", "author", "target", "other", "reader", "anon"}),
        (Audience(), {"gm"}),
    ],
    ids=["to-all", "to-gms", "whisper", "listed-scene", "whisper-listed", "hidden-aspect", "owner", "public", "none"],
)
def test_event_visible_to(audience: Audience, expected: set[str]) -> None:
    assert _who(audience) == expected
    assert _who(Audience.from_json(audience.as_json())) == expected  # what the socket sees after the layer


def test_every_type_is_documented_with_its_fields() -> None:
    doc = events_module.__doc__ or ""
    assert set(EVENT_FIELDS) == set(EventType)
    for event_type, fields in EVENT_FIELDS.items():
        assert f"\n{event_type} " in doc, event_type
        for name in fields:
            assert name in doc, (event_type, name)


@pytest.mark.django_db
def test_publish_needs_the_transaction_and_the_fields(table: Table) -> None:
    event = Event(EventType.POOL_CHANGED, table.campaign.pk, {"ledger_id": 1, "operation": "spend"})
    with pytest.raises(RuntimeError):
        transaction.get_connection().in_atomic_block = False  # as outside any transaction
        try:
            publish(event, Audience(public=True))
        finally:
            transaction.get_connection().in_atomic_block = True
    with transaction.atomic(), pytest.raises(ValueError, match="ledger_id"):
        publish(Event(EventType.POOL_CHANGED, table.campaign.pk, {"operation": "spend"}), Audience(public=True))


@pytest.mark.django_db
def test_sequence_grows_by_one_per_event(table: Table, django_capture_on_commit_callbacks: Any) -> None:
    base = last_seq(table.campaign.pk)
    unnumbered = CampaignEventLog.objects.filter(campaign=table.campaign, seq__isnull=True).count()  # the setup's
    with django_capture_on_commit_callbacks(execute=True) as callbacks, transaction.atomic():
        publish(Event(EventType.POOL_CHANGED, table.campaign.pk, {"ledger_id": 1, "operation": "x"}), Audience())
        publish(Event(EventType.POOL_CHANGED, table.campaign.pk, {"ledger_id": 2, "operation": "x"}), Audience())
        # Numbered only after commit: no sequence lock is held while the change's transaction runs.
        assert CampaignEventLog.objects.filter(campaign=table.campaign, seq__isnull=True).count() == unnumbered + 2
    assert len(callbacks) == 2  # one numbering and send per event, after commit
    numbered = CampaignEventLog.objects.filter(campaign=table.campaign).order_by("-id").values_list("seq", "data")
    assert [(seq, data["ledger_id"]) for seq, data in numbered[:2]] == [(base + 2, 2), (base + 1, 1)]
