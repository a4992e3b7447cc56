"""``manage.py send_reminders``: the campaigns' automatic reminders after days of silence (for cron)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from notifications import services


class Command(BaseCommand):
    help = "Remind the players who owe a post in scenes silent for the days their campaign chose."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(f"{services.send_reminders()} reminders written")
