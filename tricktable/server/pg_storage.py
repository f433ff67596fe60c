"""The record store in PostgreSQL (``tricktable serve --database-url postgresql://...``), through psycopg 3.

The same tables and calls as the SQLite store (:mod:`tricktable.server.storage`;
the interface is :class:`tricktable.server.record_store.RecordStore`), in a
database several server processes share. The schema is versioned in
``schema_version`` (one row per migration applied): :meth:`PostgresStorage.open`
applies the missing migrations in one transaction under an advisory lock, so
processes starting together migrate once, and refuses a database a newer
version migrated further.

When the database goes away (restarted, a network cut), the call that meets
it fails with :class:`DatabaseUnreachableError` (``STORAGE_UNAVAILABLE``), and
the connection is dropped and opened again by the next call: the lobby keeps
the ended tables' records in memory and writes them once the database answers
(its storage keeper checks it every second, since no write of ours may fail
while no table ends). :data:`CONNECT_OPTIONS` bound how long a call waits for
a database that does not answer.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import psycopg
import structlog

from tricktable.server.errors import StorageUnavailableError
from tricktable.server.storage import (
    GAME_COLUMNS,
    LOBBY_COLUMNS,
    META_COLUMNS,
    TABLE_COLUMNS,
    GameProcess,
    LobbyProcess,
    TableMeta,
    database_path,
    encode_rows,
    free_index,
    game_process_from_row,
    lobby_from_row,
    meta_from_row,
    run_migrations,
)

T = TypeVar("T")

log = structlog.get_logger("tricktable.storage")

#: How long a connection attempt waits for the server (libpq's connect_timeout, seconds), and how long a TCP
#: connection's unacknowledged data or silent idle peer is borne before the connection is dropped (libpq's
#: tcp_user_timeout and keepalives): without them a database cut off by the network holds a call for minutes.
CONNECT_OPTIONS: dict[str, Any] = {"connect_timeout": 3, "tcp_user_timeout": 10_000, "keepalives": 1,
                                   "keepalives_idle": 5, "keepalives_interval": 2, "keepalives_count": 3}
#: The advisory lock migrations run under (any constant; one per application sharing the database).
MIGRATION_LOCK = 0x7472_6963_6B74  # "trickt"
#: The advisory lock game index claims run under (``serve --game-index auto``): one claim at a time.
CLAIM_LOCK = MIGRATION_LOCK + 1

#: Version 3: each game process's load, and the lobbies (:mod:`tricktable.server.directory`).
LOAD_MIGRATION = """
    ALTER TABLE game_processes ADD COLUMN tables INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE game_processes ADD COLUMN taking BOOLEAN NOT NULL DEFAULT TRUE;
    ALTER TABLE game_processes ADD COLUMN holder TEXT NOT NULL DEFAULT '';
    CREATE TABLE lobby_processes (
        id TEXT PRIMARY KEY,
        address TEXT NOT NULL,
        started_at DOUBLE PRECISION NOT NULL,
        seen_at DOUBLE PRECISION NOT NULL
    );
"""

#: The schema's migrations, in order: version k is reached by running the k-th. A migration is never edited
#: once released; a change is a new one at the end.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE tables (
        id TEXT PRIMARY KEY,
        game TEXT NOT NULL,
        players INTEGER NOT NULL,
        status TEXT NOT NULL,
        reason TEXT NOT NULL DEFAULT '',
        options TEXT NOT NULL,
        names TEXT NOT NULL,
        time_control TEXT NOT NULL,
        seed_sha256 TEXT NOT NULL,
        winners TEXT NOT NULL DEFAULT '[]',
        scores TEXT NOT NULL DEFAULT '[]',
        actions INTEGER NOT NULL DEFAULT 0,
        created_at DOUBLE PRECISION NOT NULL,
        started_at DOUBLE PRECISION,
        ended_at DOUBLE PRECISION,
        record TEXT NOT NULL,
        seed_chosen BOOLEAN NOT NULL DEFAULT FALSE,
        sealed BOOLEAN NOT NULL DEFAULT FALSE,
        owner_sha256 TEXT NOT NULL DEFAULT '',
        twin_key TEXT NOT NULL DEFAULT '',
        deck_set_tables INTEGER NOT NULL DEFAULT 0,
        deck_set_index INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX tables_ended ON tables (ended_at);
    CREATE INDEX tables_twins ON tables (twin_key) WHERE twin_key <> '';
    CREATE TABLE write_check (id INTEGER PRIMARY KEY CHECK (id = 1), at DOUBLE PRECISION NOT NULL);
    """,
    """
    CREATE TABLE game_processes (
        shard INTEGER PRIMARY KEY,
        address TEXT NOT NULL,
        advertised_at DOUBLE PRECISION NOT NULL
    );
    """,
    LOAD_MIGRATION,
)

_INSERT = (f"INSERT INTO tables ({', '.join(TABLE_COLUMNS)}) VALUES ({', '.join('%s' for _ in TABLE_COLUMNS)})"
           f" ON CONFLICT (id) DO UPDATE SET {', '.join(f'{c} = EXCLUDED.{c}' for c in TABLE_COLUMNS[1:])}")
_SELECT = f"SELECT {', '.join(META_COLUMNS)} FROM tables"
#: The database's clock in Unix seconds: the directory's times are all by it, so machines whose clocks differ agree
#: on how long ago a process last spoke.
_NOW = "EXTRACT(EPOCH FROM clock_timestamp())::double precision"


class DatabaseUnreachableError(StorageUnavailableError):
    """The database can not be reached, or cut the connection: what every call fails with until it answers."""

    #: What :class:`tricktable.server.store_health.StoreHealth` (readiness, refusals) says of it.
    why = "the database can not be reached"

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or f"storage unavailable: records: {self.why}")


#: The errors that say the database can not be reached (or cut the connection), not that a statement is wrong.
_GONE = (psycopg.OperationalError, psycopg.InterfaceError)


def migrate(db: psycopg.Connection[Any], where: str, migrations: Sequence[str] = MIGRATIONS,
            version_table: str = "schema_version") -> int:
    """Bring ``db`` to the last of ``migrations`` in one transaction; the version it is at.

    ``version_table`` keeps the versions applied, one row each: ``schema_version`` is the record store's,
    and another schema sharing the database (the tournaments') keeps its own.

    Raises:
        SchemaVersionError: the database is at a newer version than this code knows.
    """
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        db.execute(f"CREATE TABLE IF NOT EXISTS {version_table}"
                   " (version INTEGER PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)")
        row = db.execute(f"SELECT COALESCE(MAX(version), 0) FROM {version_table}").fetchone()
        return run_migrations(
            int(row[0]) if row else 0, migrations, db.execute,
            lambda version: db.execute(f"INSERT INTO {version_table} (version, applied_at) VALUES (%s, %s)",
                                       (version, time.time())), where)


def database_where(url: str) -> str:
    """The database a URL names, for messages: its host and name, never its user or password."""
    info = psycopg.conninfo.conninfo_to_dict(url)
    return f"PostgreSQL database {info.get('dbname', '')!s} on {info.get('host', 'localhost')!s}"


class PostgresStorage:
    """The PostgreSQL store of ended tables: one connection behind a lock, opened again after a failure."""

    remote = True

    def __init__(self, url: str, data_dir: Path) -> None:
        self.url = url
        self.data_dir = data_dir
        self.path = database_path(data_dir)
        self.where = database_where(url)
        self._db: psycopg.Connection[Any] | None = None
        self._lock = threading.Lock()
        self._open = False
        #: Whether the last call reached the database (a change is logged once, with the cause).
        self._reachable = True

    def open(self) -> PostgresStorage:
        """Connect and migrate.

        Raises:
            DatabaseUnreachableError: the database can not be reached.
            SchemaVersionError: it was migrated by a newer version.
        """
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with self._lock:
            db = self._connection()
            try:
                migrate(db, self.where)
            except _GONE as error:
                self._drop()
                raise self._unavailable(error) from error
            self._open = True
        return self

    def close(self) -> None:
        with self._lock:
            self._open = False
            self._drop()

    def _connection(self) -> psycopg.Connection[Any]:
        """The open connection, or a new one (the last one broke, or the database came back)."""
        if self._db is not None and not self._db.closed and not self._db.broken:
            return self._db
        self._drop()
        try:
            self._db = psycopg.connect(self.url, autocommit=True, application_name="tricktable", **CONNECT_OPTIONS)
        except _GONE as error:
            raise self._unavailable(error) from error
        return self._db

    def _drop(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _unavailable(self, error: BaseException) -> DatabaseUnreachableError:
        """What a caller gets when the database is out of reach (the cause is logged, not sent to clients)."""
        if self._reachable:
            self._reachable = False
            first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
            log.error("record store unreachable", database=self.where, error=first_line)
        return DatabaseUnreachableError()

    def _reached(self) -> None:
        if not self._reachable:
            self._reachable = True
            log.warning("record store reachable again", database=self.where)

    def _run(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """``work`` on the connection, under the lock; a lost connection is dropped and reported unavailable.

        Raises:
            DatabaseUnreachableError: the database can not be reached, or cut the connection.
        """
        with self._lock:
            if not self._open:
                raise RuntimeError("storage is not open")
            db = self._connection()
            try:
                done = work(db)
            except _GONE as error:
                self._drop()
                raise self._unavailable(error) from error
            self._reached()
            return done

    # --- writes ----------------------------------------------------------

    def save(self, meta: TableMeta, record: dict[str, Any]) -> None:
        failed = self.save_all([(meta, record)])
        if failed:
            raise failed[meta.id]

    def save_all(self, ended: Sequence[tuple[TableMeta, dict[str, Any]]]) -> dict[str, Exception]:
        """Store (or replace) ended tables in one transaction; those that can not be encoded, by id."""
        rows, failed = encode_rows(ended)
        if rows:
            def write(db: psycopg.Connection[Any]) -> None:
                with db.transaction(), db.cursor() as cursor:
                    cursor.executemany(_INSERT, rows)

            self._run(write)
        return failed

    def check(self) -> None:
        def write(db: psycopg.Connection[Any]) -> None:
            db.execute("INSERT INTO write_check (id, at) VALUES (1, %s)"
                       " ON CONFLICT (id) DO UPDATE SET at = EXCLUDED.at", (time.time(),))

        self._run(write)

    async def save_all_async(self, ended: Sequence[tuple[TableMeta, dict[str, Any]]]) -> dict[str, Exception]:
        return await asyncio.to_thread(self.save_all, ended)

    def advertise(self, shard: int, address: str, *, tables: int = 0, taking: bool = True, holder: str = "") -> None:
        def write(db: psycopg.Connection[Any]) -> None:
            db.execute(f"INSERT INTO game_processes (shard, address, advertised_at, tables, taking, holder)"
                       f" VALUES (%s, %s, {_NOW}, %s, %s, %s) ON CONFLICT (shard) DO UPDATE SET"
                       " address = EXCLUDED.address, advertised_at = EXCLUDED.advertised_at,"
                       " tables = EXCLUDED.tables, taking = EXCLUDED.taking, holder = EXCLUDED.holder",
                       (shard, address, tables, taking, holder))

        self._run(write)

    def claim_game_index(self, count: int, holder: str, preferred: int | None, stale_seconds: float) -> int | None:
        def claim(db: psycopg.Connection[Any]) -> int | None:
            with db.transaction():
                db.execute("SELECT pg_advisory_xact_lock(%s)", (CLAIM_LOCK,))
                rows = db.execute(f"SELECT shard, holder, {_NOW} - advertised_at FROM game_processes").fetchall()
                held = {int(r[0]) for r in rows if r[1] != holder and float(r[2]) < stale_seconds}
                chosen = free_index(count, held, preferred)
                if chosen is not None:
                    db.execute(f"INSERT INTO game_processes (shard, address, advertised_at, tables, taking, holder)"
                               f" VALUES (%s, '', {_NOW}, 0, FALSE, %s) ON CONFLICT (shard) DO UPDATE SET"
                               " address = '', advertised_at = EXCLUDED.advertised_at, tables = 0, taking = FALSE,"
                               " holder = EXCLUDED.holder", (chosen, holder))
                return chosen

        return self._run(claim)

    def game_processes(self) -> dict[int, GameProcess]:
        return {int(r[0]): game_process_from_row(r) for r in
                self._rows(f"SELECT {GAME_COLUMNS}, {_NOW} - advertised_at FROM game_processes", ())}

    def advertise_lobby(self, lobby_id: str, address: str) -> None:
        def write(db: psycopg.Connection[Any]) -> None:
            db.execute(f"INSERT INTO lobby_processes (id, address, started_at, seen_at) VALUES (%s, %s, {_NOW}, {_NOW})"
                       " ON CONFLICT (id) DO UPDATE SET address = EXCLUDED.address, seen_at = EXCLUDED.seen_at",
                       (lobby_id, address))

        self._run(write)

    def forget_lobby(self, lobby_id: str) -> None:
        self._run(lambda db: db.execute("DELETE FROM lobby_processes WHERE id = %s", (lobby_id,)))

    def lobbies(self) -> list[LobbyProcess]:
        return [lobby_from_row(r) for r in
                self._rows(f"SELECT {LOBBY_COLUMNS}, {_NOW} - seen_at FROM lobby_processes ORDER BY started_at, id",
                           ())]

    # --- reads -----------------------------------------------------------

    def _rows(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return self._run(lambda db: db.execute(sql, params).fetchall())

    def record(self, table_id: str) -> dict[str, Any] | None:
        rows = self._rows("SELECT record FROM tables WHERE id = %s", (table_id,))
        return dict(json.loads(rows[0][0])) if rows else None

    def meta(self, table_id: str) -> TableMeta | None:
        rows = self._rows(f"{_SELECT} WHERE id = %s", (table_id,))
        return meta_from_row(rows[0]) if rows else None

    def list_tables(self, *, game: str | None = None, limit: int = 100) -> list[TableMeta]:
        # NULLS LAST: SQLite sorts NULL lowest, so a table without an end comes last there too when newest is first.
        if game:
            rows = self._rows(f"{_SELECT} WHERE game = %s ORDER BY ended_at DESC NULLS LAST LIMIT %s", (game, limit))
        else:
            rows = self._rows(f"{_SELECT} ORDER BY ended_at DESC NULLS LAST LIMIT %s", (limit,))
        return [meta_from_row(r) for r in rows]

    def ended_twins(self, key: str) -> set[int]:
        rows = self._rows("SELECT DISTINCT deck_set_index FROM tables WHERE twin_key = %s AND deck_set_tables > 0",
                          (key,))
        return {int(r[0]) for r in rows}

    def count(self) -> int:
        rows = self._rows("SELECT COUNT(*) FROM tables", ())
        return int(rows[0][0])
