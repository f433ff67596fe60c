"""The tournaments' tables in SQLite: the server's database file (WAL), beside the records of the tables it played.

The schema is versioned in a table of its own, ``tournament_schema_version``
(one row per migration applied; the file's ``PRAGMA user_version`` is the
record store's), brought up to date at open by the record store's migration
runner (:func:`tricktable.server.storage.run_migrations`) in one transaction,
so two processes opening a file together migrate it once. A file written
before the versions existed is at version 0 and runs them all: each migration
finds what it needs already there and leaves it.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tricktable.server.storage import run_migrations
from tricktable.tournament.store_errors import StoreUnreachableError

#: SQLite's primary result codes of a call the file can not take now but may later, waited out as a database
#: away is: a full disk (``SQLITE_FULL``), a read or write of the file that failed (``SQLITE_IOERR``), a lock
#: held past the busy timeout (``SQLITE_BUSY``).
_FOR_NOW = frozenset({sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_BUSY})


class FileUnwritableError(StoreUnreachableError):
    """The SQLite file can not be written or read now (a full disk, say); the message names the file and why."""


def _for_now(error: sqlite3.OperationalError, where: str) -> Exception:
    """``error`` as the store raises it: :class:`FileUnwritableError` when it may pass (:data:`_FOR_NOW`)."""
    if (error.sqlite_errorcode & 0xFF) in _FOR_NOW:
        return FileUnwritableError(f"{where} can not be written now: {error}")
    return error

#: The tables as the first versioned schema has them (``IF NOT EXISTS``: a file from before the versions has them).
_FIRST_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS tournaments (
        id TEXT PRIMARY KEY,
        config TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at REAL NOT NULL,
        finished_at REAL,
        deck_key TEXT NOT NULL DEFAULT '',
        runner_pid INTEGER,
        deck_salt TEXT NOT NULL DEFAULT '',
        deck_commitment TEXT NOT NULL DEFAULT '',
        owner_token TEXT NOT NULL DEFAULT ''
    )""",
    """CREATE TABLE IF NOT EXISTS tournament_matches (
        tournament_id TEXT NOT NULL,
        match_id TEXT NOT NULL,
        round INTEGER NOT NULL,
        deck_set INTEGER NOT NULL,
        grp INTEGER NOT NULL,
        arrangement INTEGER NOT NULL,
        seed TEXT NOT NULL,
        spec TEXT NOT NULL,
        status TEXT NOT NULL,
        winners TEXT NOT NULL,
        scores TEXT NOT NULL,
        reason TEXT NOT NULL,
        forfeit_by TEXT,
        faults TEXT NOT NULL,
        table_id TEXT,
        duration_s REAL NOT NULL,
        ended_at REAL NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (tournament_id, match_id)
    )""",
)
#: Columns a file from before the versions may lack (added one release at a time), with their definitions.
_EARLY_COLUMNS = (("deck_key", "TEXT NOT NULL DEFAULT ''"), ("runner_pid", "INTEGER"),
                  ("deck_salt", "TEXT NOT NULL DEFAULT ''"), ("deck_commitment", "TEXT NOT NULL DEFAULT ''"),
                  ("owner_token", "TEXT NOT NULL DEFAULT ''"))
VERSION_TABLE = "tournament_schema_version"


def _add_missing(db: sqlite3.Connection, columns: Sequence[tuple[str, str]]) -> None:
    present = {row[1] for row in db.execute("PRAGMA table_info(tournaments)")}
    for column, definition in columns:
        if column not in present:
            db.execute(f"ALTER TABLE tournaments ADD COLUMN {column} {definition}")


def _first_schema(db: sqlite3.Connection) -> None:
    for statement in _FIRST_SCHEMA:
        db.execute(statement)
    _add_missing(db, _EARLY_COLUMNS)


def _runner_host(db: sqlite3.Connection) -> None:
    """The machine a tournament's runner runs on: its pid means something there only."""
    _add_missing(db, (("runner_host", "TEXT NOT NULL DEFAULT ''"),))


def _fault_columns(db: sqlite3.Connection) -> None:
    """Each match's faults by entrant and kind, and the end of what each entrant's bots wrote to stderr."""
    present = {row[1] for row in db.execute("PRAGMA table_info(tournament_matches)")}
    for column in ("fault_kinds", "stderr"):
        if column not in present:
            db.execute(f"ALTER TABLE tournament_matches ADD COLUMN {column} TEXT NOT NULL DEFAULT '{{}}'")


#: The tournaments' SQLite migrations: version k is reached by running the k-th. Never edited once released.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_first_schema, _runner_host, _fault_columns)


def migrate(db: sqlite3.Connection, where: str) -> int:
    """Bring the tournaments' tables of ``db`` to the last of :data:`MIGRATIONS`, in one transaction.

    Raises:
        SchemaVersionError: the file's tournaments were migrated by a newer version.
    """
    db.execute("BEGIN IMMEDIATE")  # a second process opening the file waits here, then finds it migrated
    try:
        db.execute(f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE}"
                   " (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)")
        found = int(db.execute(f"SELECT COALESCE(MAX(version), 0) FROM {VERSION_TABLE}").fetchone()[0])
        reached = run_migrations(
            found, MIGRATIONS, lambda step: step(db),
            lambda version: db.execute(f"INSERT INTO {VERSION_TABLE} (version, applied_at) VALUES (?, ?)",
                                       (version, time.time())), where)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return reached


class SqliteTournamentDatabase:
    """One connection to the SQLite file, from one thread at a time (a tournament's store thread, a viewer request).

    Why not bound to the thread that opened it: the command line opens the store, the running tournament calls
    it from a thread of its own (off the event loop: :meth:`tricktable.tournament.engine.Tournament._patiently`),
    then the report reads it again from the command's thread.
    """

    #: What a read of a table or column that is not there raises: a read-only open of a file no tournament has
    #: used yet, or of one an older version wrote.
    missing: tuple[type[Exception], ...] = (sqlite3.OperationalError,)
    #: What a second row with the same key raises.
    conflict: tuple[type[Exception], ...] = (sqlite3.IntegrityError,)

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        """Open (creating the file and migrating it) or, ``read_only``, only read a file another process writes.

        Raises:
            sqlite3.Error: a read-only open of a file that is missing or not a database.
            SchemaVersionError: the file's tournaments were migrated by a newer version.
        """
        self.path = path
        self.where = str(path)
        self.read_only = read_only
        if read_only:  # the web viewer reads a tournament while it runs; it must never write to its file
            self._db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)
            self._db.execute("PRAGMA busy_timeout=10000")
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=10000")
            migrate(self._db, self.where)
        except BaseException:
            self._db.close()
            raise

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement (autocommit); the rows it changed.

        Raises:
            FileUnwritableError: the file can not take it now (a full disk): the statement changed nothing.
        """
        with self._for_now():
            return self._db.execute(sql, params).rowcount

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._for_now():
            return list(self._db.execute(sql, params))

    def iterate(self, sql: str, params: Sequence[Any] = ()) -> Iterator[tuple[Any, ...]]:
        """The rows one at a time, read as they are asked for (records are large)."""
        with self._for_now():
            yield from self._db.execute(sql, params)

    @contextlib.contextmanager
    def _for_now(self) -> Iterator[None]:
        """The one place a call's SQLite error becomes :class:`FileUnwritableError` when it may pass."""
        try:
            yield
        except sqlite3.OperationalError as error:
            raise _for_now(error, self.where) from error

    def close(self) -> None:
        self._db.close()
