"""A post's write path (issue 12): what the write needs and no more, one event per post, and the campaign's
sequence numbered after commit so no lock is held for the length of a post's transaction."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from campaigns import services
from campaigns.events import last_seq
from campaigns.models import CampaignEventLog, Recipients, SceneReadMark
from rolls.services import RollSpec, create_post_with_rolls
from tests.personas import Table

pytestmark = pytest.mark.django_db

QUERY_BUDGET = 8  # the post, its roll, its event and the read marker (issue 12)
# What the record (issue 15) writes in the same transaction: the search index entry (1) and the roll's link
# in the campaign's chain (lock the chain, insert the link, move the head: 3).
RECORD_WRITES = 1 + 3
# The author's count against the post limit (issue 23): one atomic upsert in the database (none with Redis),
# made before the transaction.
LIMIT_COUNT = 1


def _statements(ctx: CaptureQueriesContext) -> list[str]:
    # BEGIN/COMMIT/SAVEPOINT bookkeeping is the driver's, not the write's.
    skip = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK")
    return [q["sql"] for q in ctx.captured_queries if not q["sql"].upper().startswith(skip)]


# The notifications a post causes are written by a background task, not by the request that wrote it: the
# dummy task backend keeps them out of this count (tests/notifications measures them).
@override_settings(TASKS={"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}})
def test_a_post_with_a_roll_costs_at_most_eight_queries(table: Table, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    # The read marker and the campaign's roll chain exist already, as in any campaign after its first roll.
    create_post_with_rolls(
        author=table.player,
        scene=table.scene,
        body="calentando",
        rolls=[RollSpec(kind="notation", data={"expression": "1d6"})],
    )
    # The after-commit numbering of its event counts too: it runs in the request that wrote the post.
    with CaptureQueriesContext(connection) as ctx, django_capture_on_commit_callbacks(execute=True) as callbacks:
        create_post_with_rolls(
            author=table.player,
            scene=table.scene,
            body="tiro los dados",
            rolls=[RollSpec(kind="notation", data={"expression": "2d6"})],
        )
    statements = _statements(ctx)
    published = [c for c in callbacks if "publish" in c.__qualname__]
    assert len(published) == 1  # one event for the post and its roll
    assert len(statements) <= QUERY_BUDGET + RECORD_WRITES + LIMIT_COUNT, "\n".join(statements)


def test_one_event_per_post_numbered_after_commit(table: Table, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    before = last_seq(table.campaign.pk)
    with django_capture_on_commit_callbacks(execute=True):
        post = create_post_with_rolls(
            author=table.player,
            scene=table.scene,
            body="una tirada a la vista",
            rolls=[RollSpec(kind="notation", data={"expression": "1d6"})],
        )
    events = list(CampaignEventLog.objects.filter(campaign=table.campaign, seq__gt=before).order_by("seq"))
    assert [(e.seq, e.type, e.data["post_id"]) for e in events] == [(before + 1, "post.created", post.pk)]


def test_a_secret_roll_still_tells_the_gms(table: Table, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    before = last_seq(table.campaign.pk)
    with django_capture_on_commit_callbacks(execute=True):
        create_post_with_rolls(
            author=table.gm,
            scene=table.scene,
            body="tiro en secreto",
            voice="narrator",
            rolls=[RollSpec(kind="notation", data={"expression": "1d6"}, gm_only=True)],
        )
    events = CampaignEventLog.objects.filter(campaign=table.campaign, seq__gt=before).order_by("seq")
    assert [(e.type, e.audience["gms_only"]) for e in events] == [("post.created", False), ("roll.made", True)]


def test_a_rolled_back_change_numbers_nothing(table: Table, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
    before = last_seq(table.campaign.pk)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(ValidationError):
        services.create_post(author=table.player, scene=table.scene, body="x", recipients=Recipients.WHISPER)
    assert last_seq(table.campaign.pk) == before


def test_an_event_stranded_by_a_crash_is_numbered_later(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """The process dies between COMMIT and the numbering: the post exists, its event has no seq. The periodic
    sweep (the sockets' heartbeat task runs it) numbers it, so resyncing clients still learn of it."""
    from datetime import timedelta

    from django.utils import timezone

    from campaigns import events

    sent: list[int] = []
    monkeypatch.setattr(events, "_send", lambda campaign_id, message: sent.append(message["seq"]))
    before = last_seq(table.campaign.pk)
    post = services.create_post(author=table.player, scene=table.scene, body="sin número")  # on_commit never ran
    row = CampaignEventLog.objects.get(type="post.created", data__post_id=post.pk)
    assert row.seq is None
    assert events.number_stranded_events() == 0  # too recent: its own after-commit step may still run
    CampaignEventLog.objects.filter(seq__isnull=True).update(created_at=timezone.now() - timedelta(minutes=5))
    numbered = events.number_stranded_events(limit=1000)
    row.refresh_from_db()
    assert numbered >= 1 and row.seq is not None and row.seq > before
    assert row.seq in sent
    assert events.number_stranded_events() == 0  # nothing is numbered twice


@pytest.mark.django_db(transaction=True)
def test_numbering_an_event_twice_takes_no_second_number(table: Table) -> None:
    """The after-commit step and the stranded sweep may both reach one event: the second takes no number,
    so the campaign's sequence has no gap (clients would resync for nothing)."""
    from campaigns import events

    post = services.create_post(author=table.player, scene=table.scene, body="una vez")
    row = CampaignEventLog.objects.get(type="post.created", data__post_id=post.pk)
    numbered_seq = row.seq
    assert numbered_seq is not None
    event = events.Event(events.EventType.POST_CREATED, table.campaign.pk, row.data)
    events._number_and_send(row.pk, event, "{}")
    row.refresh_from_db()
    assert row.seq == numbered_seq
    assert last_seq(table.campaign.pk) == numbered_seq


@override_settings(TASKS={"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}})
def test_a_post_takes_its_locks_last_and_in_one_order(table: Table) -> None:
    """No lock for the length of a post's transaction (issue 12), and the one order of a write in a scene
    (issue 26, campaigns/scene_locks.py): on PostgreSQL the scene's row (the post's place in the thread), the
    author's read mark and then the campaign's roll chain are the transaction's last writes, in that order,
    the order a procedure's opening takes them in (its record post: scene, then read mark). On SQLite the
    transaction holds the database's write lock from BEGIN, so the place is taken with the insert."""
    first = create_post_with_rolls(author=table.player, scene=table.scene, body="primera", rolls=[])
    with CaptureQueriesContext(connection) as ctx:
        post = create_post_with_rolls(
            author=table.player,
            scene=table.scene,
            body="tiro los dados",
            rolls=[
                RollSpec(kind="notation", data={"expression": "2d6"}),
                RollSpec(kind="notation", data={"expression": "1d4"}),
            ],
        )
    statements = _statements(ctx)
    scene_lock = next(i for i, sql in enumerate(statements) if 'UPDATE "campaigns_scene"' in sql)
    read_mark = next(i for i, sql in enumerate(statements) if "campaigns_scenereadmark" in sql)
    # FOR UPDATE on PostgreSQL; SQLite reads the row under its database-wide write lock.
    chain_lock = next(i for i, sql in enumerate(statements) if sql.startswith("SELECT") and "record_rollchain" in sql)
    assert scene_lock < read_mark < chain_lock, "\n".join(statements)
    if connection.vendor == "postgresql":
        assert read_mark == scene_lock + 1, "\n".join(statements)  # the read mark right after the scene
        after = statements[read_mark + 1 :]
        assert all("record_roll" in sql for sql in after), "\n".join(after)  # the chain's links only
        assert not any("campaigns_post" in sql for sql in statements[scene_lock + 1 :])
    else:
        insert = next(i for i, sql in enumerate(statements) if sql.startswith('INSERT INTO "campaigns_post"'))
        assert scene_lock < insert
    post.refresh_from_db()
    assert post.position == first.position + 1
    table.scene.refresh_from_db()
    assert table.scene.last_post_position == post.position
    mark = SceneReadMark.objects.get(user=table.player, scene=table.scene)
    assert mark.last_read_post_id == post.pk
