"""``manage.py send_digests``: queue today's daily digests (for cron, when no worker queues them)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from notifications import services


class Command(BaseCommand):
    help = "Queue today's daily digests (each user and campaign gets at most one a day)."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(f"{len(services.schedule_digests())} digests queued")
