"""The background work of running the site, through Django's tasks interface (``django_tasks``)."""

from __future__ import annotations

from django.utils import timezone
from django_tasks import task

from operations.retention import trim_expired


@task()
def trim_expired_rows() -> dict[str, int]:
    """Trim what is past its retention (``operations.retention``); safe to run twice, or at once by two
    workers (each deletes what is still there)."""
    return trim_expired(timezone.now()).as_json()
