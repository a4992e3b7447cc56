"""How notifications follow the campaign's published events without the services knowing about them.

``campaigns.events.publish`` writes each event to the campaign's event log inside the change's transaction;
a ``post_save`` on that log schedules, after commit, the background task that writes the notifications
the event calls for. A rolled-back change leaves no log row and so tells no one.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_save

from campaigns.models import CampaignEventLog


def _on_event_logged(sender: type[CampaignEventLog], instance: CampaignEventLog, created: bool, **kwargs: Any) -> None:
    from notifications import tasks
    from notifications.services import notifies

    if not created or not notifies(instance.type, instance.data):
        return
    log_id = instance.pk
    transaction.on_commit(lambda: tasks.notify_event.enqueue(log_id))


def connect() -> None:
    post_save.connect(_on_event_logged, sender=CampaignEventLog, dispatch_uid="notifications.event_logged")
