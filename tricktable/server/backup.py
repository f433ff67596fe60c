"""A consistent copy of the data directory's SQLite files while the server runs (``tricktable backup``).

Why not ``cp``: a SQLite file in WAL mode is the file plus its ``-wal``, and
a copy of either taken while the server writes may hold half a transaction.
SQLite's online backup API copies a file as one read transaction sees it, so
each copy is a database as it was at one commit; in WAL mode the server's
writes go on meanwhile. The files are the record store (``tricktable.sqlite3``,
also the tournaments') and the journals of running tables (``journal.sqlite3``,
``shard-K/journal.sqlite3``). A PostgreSQL record store is backed up with
PostgreSQL's own tools (``pg_dump``; docs/operations.md).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from tricktable.server.journal import JOURNAL_NAME
from tricktable.server.storage import DB_NAME


def database_files(data_dir: Path) -> list[Path]:
    """The SQLite files of ``data_dir`` a backup copies, relative to it (those that exist)."""
    found = [Path(DB_NAME), Path(JOURNAL_NAME),
             *(p.relative_to(data_dir) for p in sorted(data_dir.glob(f"shard-*/{JOURNAL_NAME}")))]
    return [name for name in found if (data_dir / name).is_file()]


def backup_data_dir(data_dir: Path, destination: Path) -> list[Path]:
    """Copy every database file of ``data_dir`` into ``destination`` (created; must hold none of them yet).

    Returns the files written. Each is consistent on its own (one commit's
    state); the record store and a journal are copied one after the other,
    so a table that ended in between may be in both (a start from the copy
    then forgets it in the journal, as after a crash).

    Raises:
        FileNotFoundError: ``data_dir`` holds no database.
        FileExistsError: ``destination`` already holds one of the files.
    """
    names = database_files(data_dir)
    if not names:
        raise FileNotFoundError(f"no {DB_NAME} or {JOURNAL_NAME} in {data_dir}")
    for name in names:
        if (destination / name).exists():
            raise FileExistsError(f"{destination / name} exists: back up into a new folder")
    written = []
    for name in names:
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(data_dir / name)) as source, \
                closing(sqlite3.connect(target)) as copy:
            source.execute("PRAGMA busy_timeout=5000")
            source.backup(copy)
        written.append(target)
    return written
