"""The database backend of the task queue: enqueue after commit, one claim per task, outcomes stored."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone
from django_tasks import TaskResultStatus, task

from taskqueue.backend import claim_next, trim_finished, work
from taskqueue.models import QueuedTask, QueuedTaskStatus

pytestmark = pytest.mark.django_db

CALLS: list[int] = []


@task()
def remember(value: int) -> int:
    CALLS.append(value)
    return value * 2


@task()
def explode() -> None:
    raise RuntimeError("boom")


DB = {"default": {"BACKEND": "taskqueue.backend.DatabaseBackend"}}


@pytest.fixture(autouse=True)
def database_backend() -> Any:
    CALLS.clear()
    with override_settings(TASKS=DB):  # django_tasks resets its backends when TASKS changes
        yield


def test_enqueue_waits_for_the_commit_then_a_worker_runs_it_once(django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        result = remember.enqueue(21)
        assert not QueuedTask.objects.exists()  # not before the caller's transaction commits
    assert QueuedTask.objects.get().status == QueuedTaskStatus.READY
    assert work(limit=10) == 1
    assert work(limit=10) == 0
    assert CALLS == [21]
    stored = remember.get_result(result.id)
    assert stored.status == TaskResultStatus.SUCCESSFUL and stored.return_value == 42


def test_a_failure_is_recorded_and_not_run_again(django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        explode.enqueue()
    assert work() == 1
    row = QueuedTask.objects.get()
    assert row.status == QueuedTaskStatus.FAILED and "boom" in row.error
    assert work() == 0


def test_deferred_tasks_wait_and_a_claimed_task_is_never_claimed_twice(
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        remember.using(run_after=timezone.now() + timedelta(hours=1)).enqueue(1)
        remember.enqueue(2)
    first = claim_next("a")
    assert first is not None and first.args == [2]
    assert claim_next("b") is None  # the other is deferred, this one is taken
    assert QueuedTask.objects.get(pk=first.pk).status == QueuedTaskStatus.RUNNING


def test_a_post_is_told_and_mailed_through_the_database_queue(django_capture_on_commit_callbacks: Any) -> None:
    from django.core import mail

    from campaigns import services as campaign_services
    from notifications.models import Delivery, DeliveryStatus, Notification
    from tests.personas import build_table

    table = build_table()
    from django.utils import timezone

    table.reader.email, table.reader.email_verified_at = "reader@example.org", timezone.now()
    table.reader.save()
    with django_capture_on_commit_callbacks(execute=True):
        campaign_services.create_post(author=table.player, scene=table.scene, body="@reader ¿vienes?")
    assert not Notification.objects.exists()  # only queued so far
    with django_capture_on_commit_callbacks(execute=True):  # a worker commits each task's writes
        work()  # the fan-out, which queues the mail
    assert Notification.objects.filter(user=table.reader, kind="mention").exists()
    with django_capture_on_commit_callbacks(execute=True):
        work()
    assert Delivery.objects.get(user=table.reader).status == DeliveryStatus.SENT
    assert [m.to for m in mail.outbox] == [["reader@example.org"]]


def test_the_worker_command_runs_what_is_ready_and_queues_the_periodic_work(
    django_capture_on_commit_callbacks: Any,
) -> None:
    import io

    from django.core.management import call_command

    with django_capture_on_commit_callbacks(execute=True):
        remember.enqueue(5)
    with django_capture_on_commit_callbacks(execute=True):
        call_command("run_task_worker", "--once", stdout=io.StringIO())
    assert CALLS == [5]
    queued = set(QueuedTask.objects.values_list("task_path", flat=True))
    assert {
        "notifications.tasks.send_reminders",
        "notifications.tasks.send_held_deliveries",
        "operations.tasks.trim_expired_rows",
    } <= queued


def test_a_task_whose_worker_died_runs_again_once_its_claim_is_stale(django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        remember.enqueue(7)
        remember.enqueue(8)
    dead = claim_next("dead-worker")  # claimed, then the worker was killed before it finished
    fresh = claim_next("busy-worker")  # claimed a moment ago by a worker still running it
    assert dead is not None and fresh is not None
    QueuedTask.objects.filter(pk=dead.pk).update(started_at=timezone.now() - timedelta(hours=1))
    assert work() == 1  # only the stale one is run again
    assert dead.args == [CALLS[0]] and len(CALLS) == 1
    assert QueuedTask.objects.get(pk=dead.pk).status == QueuedTaskStatus.SUCCESSFUL
    assert QueuedTask.objects.get(pk=fresh.pk).status == QueuedTaskStatus.RUNNING


def test_finished_tasks_go_after_their_age_waiting_ones_never() -> None:
    now = timezone.now()
    cutoff = now - timedelta(days=14)
    day = timedelta(days=1)
    rows = {
        "succeeded-long-ago": (QueuedTaskStatus.SUCCESSFUL, cutoff - day),
        "failed-long-ago": (QueuedTaskStatus.FAILED, cutoff - day),
        "succeeded-lately": (QueuedTaskStatus.SUCCESSFUL, cutoff + day),
        "failed-lately": (QueuedTaskStatus.FAILED, cutoff + day),
        "ready-old": (QueuedTaskStatus.READY, None),
        "running-old": (QueuedTaskStatus.RUNNING, None),
    }
    for task_id, (status, finished_at) in rows.items():
        QueuedTask.objects.create(id=task_id, task_path="x.y", status=status, finished_at=finished_at)
    QueuedTask.objects.update(enqueued_at=now - timedelta(days=400))
    assert trim_finished(cutoff) == 2
    assert set(QueuedTask.objects.values_list("id", flat=True)) == {
        "succeeded-lately",
        "failed-lately",
        "ready-old",
        "running-old",
    }
