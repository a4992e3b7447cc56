"""A consistent copy of the database while the site runs.

SQLite: the online backup API copies the database in one step, inside one read transaction: the copy is
the database as of one commit, and in WAL mode writers go on meanwhile (only checkpoints wait). Copying in
several steps would let a writer's commit restart the copy, possibly for ever under steady writes. The copy
is written next to the output, checked, switched to a single-file journal and then renamed into place, so
``--output`` is either the previous file or a whole new backup, never half of one.

PostgreSQL: ``pg_dump`` does the same from a snapshot; ``pg_dump_command`` says how to call it.
"""

from __future__ import annotations

import os
import shlex
import sqlite3
import tempfile
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class BackupError(Exception):
    """The backup could not be made; the message says why."""


@dataclass(frozen=True)
class BackupReport:
    path: Path
    bytes: int
    tables: int


def backup_sqlite(source: Path, output: Path) -> BackupReport:
    """Copy the SQLite database ``source`` to ``output`` (replaced atomically) and return what was written."""
    source, output = source.resolve(), output.resolve()
    if not source.is_file():
        raise BackupError(f"no SQLite database at {source}")
    if output == source:
        raise BackupError("the backup must not overwrite the database itself")
    if not output.parent.is_dir():
        raise BackupError(f"no directory {output.parent}")
    handle, partial_name = tempfile.mkstemp(prefix=f".{output.name}.", suffix=".partial", dir=output.parent)
    os.close(handle)
    partial = Path(partial_name)
    try:
        # Read-only: a backup never writes to the live database.
        # (closing: a sqlite3 connection's own context manager commits, it does not close.)
        with (
            closing(sqlite3.connect(f"{source.as_uri()}?mode=ro", uri=True, timeout=30)) as live,
            closing(sqlite3.connect(partial)) as copy,
        ):
            live.backup(copy)  # pages=-1: one step, one snapshot
            check = copy.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise BackupError(f"the copy failed its check: {check}")
            # The live database is in WAL mode; the backup is one self-contained file.
            copy.execute("PRAGMA journal_mode=DELETE")
            tables = copy.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
        with partial.open("rb") as written:
            os.fsync(written.fileno())
        os.replace(partial, output)
    except sqlite3.Error as error:
        raise BackupError(f"SQLite refused the backup: {error}") from error
    finally:
        partial.unlink(missing_ok=True)
    return BackupReport(path=output, bytes=output.stat().st_size, tables=int(tables))


def pg_dump_command(settings_dict: dict[str, Any], output: Path) -> str:
    """The ``pg_dump`` line that backs up this PostgreSQL database to ``output`` (the password is left to
    ``PGPASSWORD`` or ``~/.pgpass``, never printed)."""
    args = ["pg_dump", "--format=custom", f"--file={output}"]
    if settings_dict.get("HOST"):
        args.append(f"--host={settings_dict['HOST']}")
    if settings_dict.get("PORT"):
        args.append(f"--port={settings_dict['PORT']}")
    if settings_dict.get("USER"):
        args.append(f"--username={settings_dict['USER']}")
    args.append(str(settings_dict["NAME"]))
    return shlex.join(args)


__all__ = ["BackupError", "BackupReport", "backup_sqlite", "pg_dump_command"]
