"""``manage.py verify_rolls <campaign id>``: recompute a campaign's roll chain from the database and check every
stored roll against its link; ``--archive FILE`` checks an exported archive (or a downloaded roll log) instead."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from campaigns.models import Campaign
from record.chain import stored_chain
from record.rollchain import verify


class Command(BaseCommand):
    help = "Verify a campaign's roll chain (the database, or an exported archive) and report the first broken link."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("campaign", nargs="?", type=int, help="The campaign id (checks the live database).")
        parser.add_argument("--archive", help="An exported archive or roll log (JSON) to check instead.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["archive"]:
            with open(options["archive"], encoding="utf-8") as handle:
                document = json.load(handle)
            entries = document.get("links", document.get("roll_chain"))
            if not isinstance(entries, list):
                raise CommandError("This file is neither a roll log nor a campaign archive.")
            verdict = verify(entries, document.get("rolls") or [])
        else:
            campaign = Campaign.objects.filter(pk=options["campaign"]).first()
            if campaign is None:
                raise CommandError(f"No campaign {options['campaign']}.")
            verdict = verify(*stored_chain(campaign))
        if not verdict.ok:
            raise CommandError(str(verdict))
        self.stdout.write(str(verdict))
