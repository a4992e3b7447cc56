"""The queued tasks of the database backend (``taskqueue.backend``): one row per enqueued task."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class QueuedTaskStatus(models.TextChoices):
    READY = "READY", _("En cola")
    RUNNING = "RUNNING", _("En marcha")
    SUCCESSFUL = "SUCCESSFUL", _("Hecha")
    FAILED = "FAILED", _("Fallida")


class QueuedTask(models.Model):
    id = models.CharField(primary_key=True, max_length=64)
    task_path = models.CharField(max_length=300)
    queue_name = models.CharField(max_length=32, default="default")
    priority = models.SmallIntegerField(default=0)
    args = models.JSONField(default=list)
    kwargs = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=QueuedTaskStatus.choices, default=QueuedTaskStatus.READY)
    run_after = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    worker_id = models.CharField(max_length=64, blank=True)
    return_value = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-priority", "enqueued_at"]
        indexes = [models.Index(fields=["status", "queue_name", "-priority", "enqueued_at"], name="queued_task_next")]

    def __str__(self) -> str:
        return f"{self.task_path} ({self.status})"
