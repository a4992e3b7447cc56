"""Every write in one scene takes its locks in one order (campaigns/scene_locks.py), so writers racing in a
scene wait for each other and never deadlock (issue 26: a GM's post and a procedure opening in the same scene
failed with ``DeadlockDetected`` on PostgreSQL, 62 requests out of 120).

Each worker thread has its own database connection, as a web request would. On the embedded default (SQLite,
one writer at a time from BEGIN) the race cannot happen, so the test skips with that reason.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.db import connections

from campaigns import services
from campaigns.models import Post, Recipients, Scene, SceneReadMark, Visibility, Voice
from record.models import RollChain, RollLink
from rolls import runner
from rolls.models import Flow, FlowStatus, Roll
from rolls.services import RollSpec, create_post_with_rolls
from rulesets.kit.procedures import Procedure
from tests.personas import Table, build_table

pytestmark = [
    pytest.mark.services,
    pytest.mark.skipif(
        not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
        reason="row-lock order is tested on PostgreSQL (set DATABASE_URL; `make test-services` does): "
        "SQLite takes one write lock for the whole database at BEGIN",
    ),
    pytest.mark.django_db(transaction=True),
]

ROUNDS = 30


def _race(rounds: int, writers: dict[str, Callable[[int], Any]]) -> Counter[str]:
    """Run every writer once per round, all together (a barrier starts each round); count what each got."""
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()
    barrier = threading.Barrier(len(writers))

    def worker(name: str, write: Callable[[int], Any]) -> None:
        try:
            for index in range(rounds):
                barrier.wait(timeout=60)
                try:
                    write(index)
                    result = "ok"
                except Exception as exc:  # reported with its cause, so a failure names the deadlock
                    result = f"{name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                with lock:
                    outcomes[result] += 1
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=item) for item in writers.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    return outcomes


def test_posts_procedures_steps_edits_and_deletions_race_in_one_scene_without_error(
    duel: Procedure[Any], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="campaigns.scene_locks")
    table: Table = build_table(Visibility.PUBLIC)
    scene = table.scene
    gm, player = table.gm, table.player
    # What the rounds act on, written before they start: a post to edit, posts to delete, procedures to step.
    edited = services.create_post(author=player, scene=scene, body="versión 0")
    doomed = [services.create_post(author=gm, scene=scene, body=f"borrable {i}") for i in range(ROUNDS)]
    duels = [
        runner.start_procedure(actor=gm, scene=scene, kind="duel", params={"player": player.pk}) for _ in range(ROUNDS)
    ]
    posts_before = Post.objects.filter(scene=scene).count()
    rolls_before = Roll.objects.filter(campaign=table.campaign).count()

    def fresh_scene() -> Scene:
        # Each request reads its own copy of the scene, as a view does.
        return Scene.objects.select_related("campaign").get(pk=scene.pk)

    def gm_posts_with_a_roll(index: int) -> None:
        create_post_with_rolls(
            author=gm,
            scene=fresh_scene(),
            body=f"la directora tira {index}",
            voice=Voice.NARRATOR,
            rolls=[RollSpec(kind="notation", data={"expression": "2d6"})],
        )

    def gm_opens_a_procedure(index: int) -> None:
        runner.start_procedure(actor=gm, scene=fresh_scene(), kind="duel", params={"player": table.player2.pk})

    def player_takes_a_step(index: int) -> None:
        runner.take_step(actor=player, flow=duels[index], step="player_roll")

    def player_edits(index: int) -> None:
        services.edit_post(actor=player, post=edited, body=f"versión {index + 1}")

    def gm_deletes(index: int) -> None:
        services.delete_post(actor=gm, post=doomed[index])

    def player_whispers_a_roll(index: int) -> None:
        create_post_with_rolls(
            author=player,
            scene=fresh_scene(),
            body=f"susurro {index}",
            recipients=Recipients.WHISPER,
            whisper_to=[gm.pk],
            rolls=[RollSpec(kind="notation", data={"expression": "1d6"})],
        )

    outcomes = _race(
        ROUNDS,
        {
            "post": gm_posts_with_a_roll,
            "opening": gm_opens_a_procedure,
            "step": player_takes_a_step,
            "edit": player_edits,
            "deletion": gm_deletes,
            "whisper": player_whispers_a_roll,
        },
    )

    assert outcomes == Counter({"ok": 6 * ROUNDS}), outcomes
    # Not one deadlock, even retried: the lock order holds, the retry (scene_locks) is only the safety net.
    assert not [r.getMessage() for r in caplog.records if "deadlocked" in r.getMessage()]
    # Everything each writer did is there, once, in order.
    assert Post.objects.filter(scene=scene).count() == posts_before + 3 * ROUNDS  # posts, whispers, record posts
    positions = list(
        Post.objects.filter(scene=scene, recipients=Recipients.EVERYONE).order_by("position").values_list("position")
    )
    assert [p for (p,) in positions] == list(range(1, len(positions) + 1))
    assert Post.objects.filter(pk__in=[p.pk for p in doomed], deleted_at__isnull=False).count() == ROUNDS
    edited.refresh_from_db()
    assert edited.body_source == f"versión {ROUNDS}" and edited.revision_count == ROUNDS
    assert Flow.objects.filter(pk__in=[f.pk for f in duels], state__step="settle").count() == ROUNDS
    assert Flow.objects.filter(scene=scene, status=FlowStatus.OPEN).count() == 2 * ROUNDS
    rolls = Roll.objects.filter(campaign=table.campaign).count()
    assert rolls == rolls_before + 3 * ROUNDS  # the GM's, the whispers' and the steps'
    chain = RollChain.objects.get(campaign=table.campaign)
    assert chain.length == rolls == RollLink.objects.filter(campaign=table.campaign).count()
    gm_mark = SceneReadMark.objects.get(user=gm, scene=scene)
    assert gm_mark.last_read_post_id == Post.objects.filter(scene=scene, author=gm).order_by("-pk")[0].pk
