"""``manage.py backup_database --output PATH``: a consistent copy of the database, safe while the site runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections

from operations.backup import BackupError, backup_sqlite, pg_dump_command


class Command(BaseCommand):
    help = (
        "Write a consistent copy of the SQLite database to --output while the site runs (SQLite's online "
        "backup). On PostgreSQL, print the pg_dump command to use instead."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--output", required=True, type=Path, help="The backup file (replaced if it exists).")
        parser.add_argument("--database", default="default", help="Which database alias (default: default).")

    def handle(self, *args: Any, **options: Any) -> None:
        database = connections[options["database"]]
        output = Path(options["output"])
        if database.vendor == "postgresql":
            # pg_dump takes its own snapshot; run it where the backups go (it needs no Django).
            raise CommandError(
                "PostgreSQL is backed up with pg_dump, not by this command:\n"
                f"  {pg_dump_command(database.settings_dict, output)}\n"
                "and restored into an empty database with pg_restore --no-owner --dbname=<database> <file> "
                "(README, Operations)."
            )
        if database.vendor != "sqlite":
            raise CommandError(f"no backup for the {database.vendor} database")
        try:
            report = backup_sqlite(Path(database.settings_dict["NAME"]), output)
        except BackupError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"Backed up {report.tables} tables ({report.bytes} bytes) to {report.path}.")
