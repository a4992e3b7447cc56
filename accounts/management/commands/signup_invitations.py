"""Codes for sign-ups by invitation (SIGNUPS=invitation): make some, or list those not used yet."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts import services
from accounts.models import SignupInvitation


class Command(BaseCommand):
    help = "Make one-use sign-up invitation codes (--create N), or list the unused ones."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--create", type=int, default=0, help="How many new codes to make.")
        parser.add_argument("--note", default="", help="Who the new codes are for (shown in the list).")

    def handle(self, *args: Any, **options: Any) -> None:
        count: int = options["create"]
        if count < 0 or count > 1000:
            raise CommandError("--create takes a number from 1 to 1000")
        if count:
            for invitation in services.create_signup_invitations(count, note=options["note"]):
                self.stdout.write(invitation.code)
            return
        for invitation in SignupInvitation.objects.filter(used_at__isnull=True).order_by("created_at", "id"):
            self.stdout.write(f"{invitation.code}\t{invitation.note}")
