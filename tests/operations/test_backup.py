"""``manage.py backup_database``: the restore drill. A campaign is built, the database is backed up while a
writer commits, the backup is restored into a fresh database and compared with the source row for row."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction

from campaigns import services
from campaigns.models import Voice
from notifications.models import Delivery, Kind, Notification
from operations.backup import pg_dump_command
from tests.personas import Table
from tests.test_deployment import ROOT

# The tables the writer writes during the backup, each with its integer primary key "id".
WRITTEN = ("notifications_notification", "notifications_delivery", "notifications_delivery_notifications")


def table_digests(path: Path, up_to: dict[str, int] | None = None) -> dict[str, tuple[int, str]]:
    """Each table's row count and a hash of its rows (``up_to``: only rows up to that id)."""
    up_to = up_to or {}
    digests = {}
    with sqlite3.connect(path) as db:
        names = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for name in names:
            if name.startswith("sqlite_"):
                continue  # SQLite's own bookkeeping (autoincrement counters), not data
            where = f" WHERE id <= {up_to[name]}" if name in up_to else ""
            # Sorted by content: some tables (the search index's) have no rowid to order by.
            rows = sorted(repr(row) for row in db.execute(f'SELECT * FROM "{name}"{where}'))
            digests[name] = (len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest())
    db.close()
    return digests


def max_ids(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as db:
        found = {name: db.execute(f'SELECT coalesce(max(id), 0) FROM "{name}"').fetchone()[0] for name in WRITTEN}
    db.close()
    return found


class Writer(threading.Thread):
    """Commits, until stopped, transactions that each write a notification, its delivery and their link."""

    def __init__(self, table: Table) -> None:
        super().__init__(daemon=True)
        self.table = table
        self.commits = 0
        self.stop = threading.Event()
        self.progress = threading.Condition()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                with transaction.atomic():
                    mine = {"user": self.table.player, "campaign": self.table.campaign, "key": f"drill:{self.commits}"}
                    note = Notification.objects.create(kind=Kind.MENTION, **mine)
                    delivery = Delivery.objects.create(**mine)
                    delivery.notifications.add(note)
                with self.progress:
                    self.commits += 1
                    self.progress.notify_all()
        except BaseException as error:
            self.error = error
        finally:
            connection.close()

    def wait_for(self, commits: int) -> None:
        with self.progress:
            assert self.progress.wait_for(lambda: self.commits >= commits or self.error is not None, timeout=60)


@pytest.fixture
def sqlite_database() -> None:
    if connection.vendor != "sqlite":
        pytest.skip("the SQLite backup: this run's database is PostgreSQL (backed up with pg_dump)")


@pytest.mark.usefixtures("sqlite_database")
@pytest.mark.django_db(transaction=True)
def test_restore_drill_backup_while_writing_restores_row_for_row(table: Table, tmp_path: Path) -> None:
    services.create_post(author=table.player, scene=table.scene, body="Entro en la **biblioteca**.", voice=Voice.OOC)
    services.create_post(author=table.gm, scene=table.offtopic, body="¿Seguimos el jueves?", voice=Voice.OOC)
    source = Path(connection.settings_dict["NAME"])
    backup = tmp_path / "tintero-backup.sqlite3"

    writer = Writer(table)
    writer.start()
    try:
        writer.wait_for(5)
        call_command("backup_database", output=str(backup))
        at_backup = writer.commits
        writer.wait_for(at_backup + 5)  # and it went on writing after
    finally:
        writer.stop.set()
        writer.join(timeout=60)
    assert writer.error is None

    # Restore: the documented way, the backup copied into place as a fresh database.
    restored = tmp_path / "restored.sqlite3"
    shutil.copyfile(backup, restored)
    assert not Path(f"{restored}-wal").exists()

    # The snapshot is one commit's: each table holds a prefix of what the writer wrote, the same one.
    snapshot = max_ids(restored)
    with sqlite3.connect(restored) as db:
        drilled = "SELECT count(*) FROM {} WHERE key LIKE 'drill:%'"
        drill_notes = db.execute(drilled.format("notifications_notification")).fetchone()[0]
        drill_deliveries = db.execute(drilled.format("notifications_delivery")).fetchone()[0]
        links = db.execute("SELECT count(*) FROM notifications_delivery_notifications").fetchone()[0]
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    assert 5 <= drill_notes == drill_deliveries < writer.commits
    assert links >= drill_notes

    # Row for row: every table equal to the source's, the written ones up to the snapshot.
    restored_digests = table_digests(restored)
    assert restored_digests == table_digests(source, up_to=snapshot)
    assert restored_digests["campaigns_post"][0] >= 5  # the table and its posts came along

    # And the site runs on it: every migration is there.
    env = {**os.environ, "SQLITE_PATH": str(restored), "DJANGO_SETTINGS_MODULE": "tests.settings"}
    check = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--check", "--no-input"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.usefixtures("sqlite_database")
@pytest.mark.django_db
def test_backup_refuses_to_overwrite_the_database_itself() -> None:
    with pytest.raises(CommandError, match="must not overwrite the database"):
        call_command("backup_database", output=connection.settings_dict["NAME"])


@pytest.mark.usefixtures("sqlite_database")
@pytest.mark.django_db
def test_backup_into_a_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no directory"):
        call_command("backup_database", output=str(tmp_path / "nowhere" / "backup.sqlite3"))
    assert not list(tmp_path.iterdir())


@pytest.mark.django_db
def test_on_postgresql_the_command_prints_pg_dump_and_fails(tmp_path: Path) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL (PostgreSQL)")
    with pytest.raises(CommandError, match="pg_dump --format=custom") as refused:
        call_command("backup_database", output=str(tmp_path / "tintero.dump"))
    assert str(connection.settings_dict["NAME"]) in str(refused.value)
    assert not list(tmp_path.iterdir())  # a cron job must not believe a backup was made


def test_postgresql_backups_are_pg_dump_and_never_print_the_password() -> None:
    line = pg_dump_command(
        {"NAME": "tintero", "HOST": "db", "PORT": 5432, "USER": "tintero", "PASSWORD": "s3cret"},
        Path("/backups/tintero.dump"),
    )
    assert line == (
        "pg_dump --format=custom --file=/backups/tintero.dump --host=db --port=5432 --username=tintero tintero"
    )
    assert "s3cret" not in line
