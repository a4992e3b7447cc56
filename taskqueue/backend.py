"""A database backend for Django's tasks interface: PostgreSQL (or SQLite) is the only service needed.

django-tasks 0.12 no longer ships its database backend (it moved to the ``django-tasks-db`` package);
this is the small part of it Tintero needs: enqueue writes a row (after the caller's transaction commits),
``manage.py run_task_worker`` claims rows one at a time (``SELECT ... FOR UPDATE SKIP LOCKED`` where the
database has it) and records the outcome. A task is claimed once; a worker that dies mid-task leaves its
row RUNNING, and once that claim is older than ``TASK_STALE_SECONDS`` the next worker makes it ready again
(tasks are written to be safe to run again: notifications.tasks sends each mail through a delivery row
with a unique key, so a retried task never sends twice).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from functools import partial
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from django.utils.module_loading import import_string
from django_tasks.backends.base import BaseTaskBackend
from django_tasks.base import Task, TaskError, TaskResult, TaskResultStatus
from django_tasks.exceptions import TaskResultDoesNotExist
from django_tasks.utils import get_exception_traceback, get_module_path, get_random_id, normalize_json
from typing_extensions import ParamSpec

from taskqueue.models import QueuedTask, QueuedTaskStatus

logger = logging.getLogger(__name__)

T = TypeVar("T")
P = ParamSpec("P")


class DatabaseBackend(BaseTaskBackend):
    supports_defer = True
    supports_get_result = True
    supports_priority = True

    def enqueue(self, task: Task[P, T], args: P.args, kwargs: P.kwargs) -> TaskResult[T]:  # type: ignore[valid-type]
        self.validate_task(task)
        row = QueuedTask(
            id=get_random_id(),
            task_path=task.module_path,
            queue_name=task.queue_name,
            priority=task.priority,
            args=normalize_json(list(args)),
            kwargs=normalize_json(dict(kwargs)),
            run_after=task.run_after,
        )
        # The task runs after the change that asked for it is committed (or not at all). A new row with its
        # id already set: INSERT straight away (a plain save() tries an UPDATE first, one more query per post).
        insert = partial(row.save, force_insert=True)
        if connection.in_atomic_block:
            transaction.on_commit(insert)
        else:
            insert()
        return _result(row, task)

    def get_result(self, result_id: str) -> TaskResult[Any]:
        row = QueuedTask.objects.filter(pk=result_id).first()
        if row is None:
            raise TaskResultDoesNotExist(result_id)
        return _result(row, import_string(row.task_path))


def _result(row: QueuedTask, task: Task[Any, Any]) -> TaskResult[Any]:
    result: TaskResult[Any] = TaskResult(
        task=task,
        id=row.id,
        status=TaskResultStatus(row.status),
        enqueued_at=row.enqueued_at,
        started_at=row.started_at,
        last_attempted_at=row.started_at,
        finished_at=row.finished_at,
        args=row.args,
        kwargs=row.kwargs,
        backend="default",
        errors=[TaskError(exception_class_path="", traceback=row.error)] if row.error else [],
        worker_ids=[row.worker_id] if row.worker_id else [],
    )
    object.__setattr__(result, "_return_value", row.return_value)
    return result


def claim_next(worker_id: str, queues: list[str] | None = None) -> QueuedTask | None:
    """Take the next ready task (highest priority, oldest first) and mark it RUNNING, atomically."""
    now = timezone.now()
    with transaction.atomic():
        ready = QueuedTask.objects.filter(status=QueuedTaskStatus.READY).exclude(run_after__gt=now)
        if queues:
            ready = ready.filter(queue_name__in=queues)
        if connection.features.has_select_for_update_skip_locked:
            ready = ready.select_for_update(skip_locked=True)
        row = ready.order_by("-priority", "enqueued_at").first()
        if row is None:
            return None
        # Conditional update: on SQLite (no row locks) two workers may read the same row; one wins.
        claimed = QueuedTask.objects.filter(pk=row.pk, status=QueuedTaskStatus.READY).update(
            status=QueuedTaskStatus.RUNNING, started_at=now, worker_id=worker_id
        )
        return row if claimed else None


def run(row: QueuedTask) -> bool:
    """Run a claimed task and store its outcome. Returns whether it succeeded."""
    try:
        task: Task[Any, Any] = import_string(row.task_path)
        value = task.call(*row.args, **row.kwargs)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        logger.exception("task %s (%s) failed", row.pk, row.task_path)
        QueuedTask.objects.filter(pk=row.pk).update(
            status=QueuedTaskStatus.FAILED,
            finished_at=timezone.now(),
            error=f"{get_module_path(type(exc))}\n{get_exception_traceback(exc)}",
        )
        return False
    QueuedTask.objects.filter(pk=row.pk).update(
        status=QueuedTaskStatus.SUCCESSFUL, finished_at=timezone.now(), return_value=normalize_json(value)
    )
    return True


def release_stale_claims(now: Any = None) -> int:
    """Make ready again the tasks whose worker claimed them longer than ``TASK_STALE_SECONDS`` ago and never
    finished (it died or was killed). Returns how many."""
    now = now or timezone.now()
    stale_before = now - timedelta(seconds=getattr(settings, "TASK_STALE_SECONDS", 15 * 60))
    released = QueuedTask.objects.filter(status=QueuedTaskStatus.RUNNING, started_at__lt=stale_before).update(
        status=QueuedTaskStatus.READY, started_at=None, worker_id=""
    )
    if released:
        logger.warning("made %d stale task(s) ready again", released)
    return released


def work(worker_id: str | None = None, queues: list[str] | None = None, limit: int | None = None) -> int:
    """Run ready tasks until none is left (or ``limit``), after releasing stale claims. Returns how many ran."""
    worker_id = worker_id or get_random_id()
    release_stale_claims()
    done = 0
    while limit is None or done < limit:
        row = claim_next(worker_id, queues)
        if row is None:
            break
        run(row)
        done += 1
    return done


# Rows deleted per statement by ``trim_finished``: short transactions, so workers never wait long.
TRIM_BATCH = 5_000


def trim_finished(before: datetime) -> int:
    """Delete the tasks that finished (succeeded or failed) before ``before``; ready and running ones stay,
    whatever their age. Returns how many went."""
    finished = QueuedTask.objects.filter(
        status__in=[QueuedTaskStatus.SUCCESSFUL, QueuedTaskStatus.FAILED], finished_at__lt=before
    )
    deleted = 0
    while True:
        with transaction.atomic():
            batch = list(finished.order_by("pk").values_list("pk", flat=True)[:TRIM_BATCH])
            if not batch:
                return deleted
            deleted += QueuedTask.objects.filter(pk__in=batch).delete()[0]
