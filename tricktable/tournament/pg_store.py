"""The tournaments' tables in PostgreSQL (``tricktable tournament --database-url postgresql://...``), through psycopg 3.

The same tables and statements as in SQLite (:mod:`tricktable.tournament.sqlite_store`),
in the database the servers keep their records in, so a tournament outlives the
machine its runner ran on: ``--resume`` continues it from any machine that reaches
the database. The schema is versioned in ``tournament_schema_version`` (the record
store keeps ``schema_version``), migrated at open by the record store's runner
(:func:`tricktable.server.pg_storage.migrate`: one transaction, under the advisory
lock, so runners starting together migrate once).

A connection the database cut (restarted, a network cut) is opened again and the
statement tried once more; a database that still does not answer fails the call with
:class:`DatabaseUnreachableError`, a :class:`~tricktable.tournament.store.StoreUnreachableError`:
the running tournament waits for it and tries again, up to its ``database_patience_s``
(:class:`tricktable.tournament.engine.Tournament`), then stops; ``--resume`` plays what was
not stored once it is back.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
import psycopg.errors

from tricktable.server.pg_storage import CONNECT_OPTIONS, database_where, migrate
from tricktable.tournament.store_errors import StoreUnreachableError

#: The tournaments' PostgreSQL migrations: version k is reached by running the k-th. Never edited once released;
#: a change is a new one at the end.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE tournaments (
        id TEXT PRIMARY KEY,
        config TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        finished_at DOUBLE PRECISION,
        deck_key TEXT NOT NULL DEFAULT '',
        runner_pid INTEGER,
        deck_salt TEXT NOT NULL DEFAULT '',
        deck_commitment TEXT NOT NULL DEFAULT '',
        owner_token TEXT NOT NULL DEFAULT '',
        runner_host TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE tournament_matches (
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
        duration_s DOUBLE PRECISION NOT NULL,
        ended_at DOUBLE PRECISION NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (tournament_id, match_id)
    );
    """,
    # Each match's faults by entrant and kind, and the end of what each entrant's bots wrote to stderr.
    """
    ALTER TABLE tournament_matches ADD COLUMN fault_kinds TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE tournament_matches ADD COLUMN stderr TEXT NOT NULL DEFAULT '{}';
    """,
)
VERSION_TABLE = "tournament_schema_version"
#: The errors that say the database can not be reached (or cut the connection), not that a statement is wrong.
_GONE = (psycopg.OperationalError, psycopg.InterfaceError)


def _placeholders(sql: str) -> str:
    """The statement with psycopg's placeholders: the store writes ``?`` (SQLite's), psycopg takes ``%s``."""
    return sql.replace("?", "%s")


class DatabaseUnreachableError(StoreUnreachableError):
    """The database can not be reached; the message names it (never its user or password)."""


class PostgresTournamentDatabase:
    """One autocommit connection, from one thread at a time; opened again once after the database cut it."""

    missing: tuple[type[Exception], ...] = (psycopg.errors.UndefinedTable, psycopg.errors.UndefinedColumn)
    conflict: tuple[type[Exception], ...] = (psycopg.errors.UniqueViolation,)

    def __init__(self, url: str, *, read_only: bool = False) -> None:
        """Connect and migrate or, ``read_only``, connect in read-only transactions (the viewer's).

        Raises:
            DatabaseUnreachableError: the database can not be reached.
            SchemaVersionError: its tournaments were migrated by a newer version.
        """
        self.url = url
        self.where = database_where(url)
        self.read_only = read_only
        self._db = self._connect()
        if not read_only:
            try:
                migrate(self._db, self.where, MIGRATIONS, VERSION_TABLE)
            except _GONE as error:
                self._db.close()
                raise self._unreachable(error) from error
            except BaseException:
                self._db.close()
                raise

    def _connect(self) -> psycopg.Connection[Any]:
        options = "-c default_transaction_read_only=on" if self.read_only else ""
        try:
            return psycopg.connect(self.url, autocommit=True, application_name="tricktable-tournament",
                                   options=options, **CONNECT_OPTIONS)
        except _GONE as error:
            raise self._unreachable(error) from error

    def _unreachable(self, error: BaseException) -> DatabaseUnreachableError:
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
        return DatabaseUnreachableError(f"{self.where} can not be reached: {first_line}")

    def _cursor(self, sql: str, params: Sequence[Any]) -> psycopg.Cursor[Any]:
        """``sql`` executed; a connection found cut is opened again and the statement run once more."""
        for attempt in (1, 2):
            try:
                if self._db.closed or self._db.broken:
                    self._db = self._connect()
                return self._db.execute(_placeholders(sql), params)
            except _GONE as error:
                if not self._db.broken or attempt == 2:
                    raise self._unreachable(error) from error
        raise AssertionError("unreachable")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement (autocommit); the rows it changed."""
        return self._cursor(sql, params).rowcount

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._cursor(sql, params).fetchall()

    def iterate(self, sql: str, params: Sequence[Any] = ()) -> Iterator[tuple[Any, ...]]:
        """The rows, fetched at once (the connection is then free for the next call while they are read)."""
        return iter(self.rows(sql, params))

    def close(self) -> None:
        self._db.close()
