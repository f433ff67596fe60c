"""Records and table metadata in SQLite (WAL), one file in the data directory: the embedded record store.

The data directory comes from the ``--data-dir`` flag, else the
``TRICKTABLE_DATA_DIR`` environment variable, else ``./data``. Writes run in
a worker thread (``asyncio.to_thread``) so the event loop never waits on the
disk; one connection serves every thread behind a lock. The same store in
PostgreSQL (``--database-url``) is :mod:`tricktable.server.pg_storage`; what
both offer is :class:`tricktable.server.record_store.RecordStore`.

The schema is versioned (``PRAGMA user_version``): :data:`MIGRATIONS` brings
a database from any older version to the current one at open, and a database
written by a newer version is refused (:class:`SchemaVersionError`) rather than
read half-understood.

A write that fails (``database or disk is full``) raises: the lobby keeps
the records in memory and tries again (``tricktable.server.lobby``), and
:meth:`Storage.check` tells when the file writes again.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

M = TypeVar("M")

DB_NAME = "tricktable.sqlite3"
ENV_DATA_DIR = "TRICKTABLE_DATA_DIR"

#: One row rewritten to tell whether a database writes again after a failure (the record store's and the
#: journal's ``check``): only a committed write proves it, and this one is a page, whatever the tables hold.
WRITE_CHECK_SCHEMA = """
CREATE TABLE IF NOT EXISTS write_check (id INTEGER PRIMARY KEY CHECK (id = 1), at REAL NOT NULL);
"""
WRITE_CHECK_SQL = "INSERT OR REPLACE INTO write_check (id, at) VALUES (1, ?)"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
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
    created_at REAL NOT NULL,
    started_at REAL,
    ended_at REAL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tables_ended ON tables (ended_at);
""" + WRITE_CHECK_SCHEMA
#: Columns added after the first schema, with their definitions (migration 2 adds those missing).
_ADDED_COLUMNS = {
    "seed_chosen": "INTEGER NOT NULL DEFAULT 0",
    "sealed": "INTEGER NOT NULL DEFAULT 0",
    "owner_sha256": "TEXT NOT NULL DEFAULT ''",
    "twin_key": "TEXT NOT NULL DEFAULT ''",
    "deck_set_tables": "INTEGER NOT NULL DEFAULT 0",
    "deck_set_index": "INTEGER NOT NULL DEFAULT 0",
}
#: Indexes over added columns (made once the columns exist).
_ADDED_INDEXES = "CREATE INDEX IF NOT EXISTS tables_twins ON tables (twin_key) WHERE twin_key != '';"

#: The columns of a stored table, in the order of :func:`table_row`; :data:`META_COLUMNS` are all but the record.
TABLE_COLUMNS = ("id", "game", "players", "status", "reason", "options", "names", "time_control", "seed_sha256",
                 "winners", "scores", "actions", "created_at", "started_at", "ended_at", "record", "seed_chosen",
                 "sealed", "owner_sha256", "twin_key", "deck_set_tables", "deck_set_index")
META_COLUMNS = tuple(c for c in TABLE_COLUMNS if c != "record")


class SchemaVersionError(RuntimeError):
    """The database was written by a newer version of Tricktable: its schema is not one this version knows."""


def check_schema_version(found: int, latest: int, where: str) -> None:
    """Refuse a schema newer than ``latest`` (an upgrade never runs backwards; a downgrade needs a backup).

    Raises:
        SchemaVersionError
    """
    if found > latest:
        raise SchemaVersionError(
            f"{where} has schema version {found}, newer than version {latest} that this version of tricktable "
            "knows: run the newer version, or restore a backup made before the upgrade")


def _first_schema(db: sqlite3.Connection) -> None:
    db.executescript(_SCHEMA)


def _added_columns(db: sqlite3.Connection) -> None:
    """The columns and index added before the schema had versions (some may exist already in such a file)."""
    present = {row[1] for row in db.execute("PRAGMA table_info(tables)")}
    for column, definition in _ADDED_COLUMNS.items():
        if column not in present:
            db.execute(f"ALTER TABLE tables ADD COLUMN {column} {definition}")
    db.executescript(_ADDED_INDEXES)


#: Game processes and where clients reach them (``serve --role game``; :mod:`tricktable.server.directory`).
GAMES_SCHEMA = """
CREATE TABLE IF NOT EXISTS game_processes (
    shard INTEGER PRIMARY KEY,
    address TEXT NOT NULL,
    advertised_at REAL NOT NULL
);
"""


def _game_directory(db: sqlite3.Connection) -> None:
    db.executescript(GAMES_SCHEMA)


#: Each game process's load and holder, and the lobbies (``serve --role``; :mod:`tricktable.server.directory`).
LOAD_COLUMNS = {"tables": "INTEGER NOT NULL DEFAULT 0", "taking": "INTEGER NOT NULL DEFAULT 1",
                "holder": "TEXT NOT NULL DEFAULT ''"}
LOBBIES_SCHEMA = """
CREATE TABLE IF NOT EXISTS lobby_processes (
    id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    started_at REAL NOT NULL,
    seen_at REAL NOT NULL
);
"""


def _load_directory(db: sqlite3.Connection) -> None:
    """The columns of each game process's load (those already there kept: a crash may have stopped it halfway)."""
    present = {row[1] for row in db.execute("PRAGMA table_info(game_processes)")}
    for column, definition in LOAD_COLUMNS.items():
        if column not in present:
            db.execute(f"ALTER TABLE game_processes ADD COLUMN {column} {definition}")
    db.executescript(LOBBIES_SCHEMA)


#: The SQLite schema's migrations: version k is reached by running the k-th, in order. Each finds what it needs
#: already there and leaves it (a file from before the versions, at 0, runs them all; a crash between a migration
#: and its version mark runs it again, harmlessly).
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_first_schema, _added_columns, _game_directory,
                                                                 _load_directory)


def run_migrations(found: int, migrations: Sequence[M], apply: Callable[[M], object], mark: Callable[[int], object],
                   where: str) -> int:
    """Apply the migrations after version ``found`` in order, marking each version once it is applied; the last.

    The one runner of every versioned schema (the record store's and the tournaments', in SQLite and in
    PostgreSQL): they differ only in where the version is kept (``mark``) and how a migration runs (``apply``).

    Raises:
        SchemaVersionError: ``found`` is newer than the last of ``migrations``.
    """
    check_schema_version(found, len(migrations), where)
    for version in range(found + 1, len(migrations) + 1):
        apply(migrations[version - 1])
        mark(version)
    return len(migrations)


def migrate(db: sqlite3.Connection, where: str) -> int:
    """Bring ``db`` to the last of :data:`MIGRATIONS` (its version in ``PRAGMA user_version``); the version it is at.

    Raises:
        SchemaVersionError: the file is at a newer version than this code knows.
    """
    found = int(db.execute("PRAGMA user_version").fetchone()[0])
    return run_migrations(found, MIGRATIONS, lambda step: step(db),
                          lambda version: db.execute(f"PRAGMA user_version = {version}"), where)


def resolve_data_dir(flag: str | os.PathLike[str] | None = None) -> Path:
    """The data directory: the flag, else ``$TRICKTABLE_DATA_DIR``, else ``./data``."""
    if flag:
        return Path(flag)
    env = os.environ.get(ENV_DATA_DIR)
    return Path(env) if env else Path("data")


def database_path(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The one database file (tables, and the tournaments built from them) in the data directory."""
    return resolve_data_dir(data_dir) / DB_NAME


def open_wal(path: Path) -> sqlite3.Connection:
    """A connection to the SQLite file ``path`` in WAL mode, autocommit, usable from any thread (one at a time).

    ``synchronous=NORMAL``: a commit survives the process's crash; only a checkpoint waits for the disk.
    """
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA busy_timeout=5000")
    return db


@dataclass(frozen=True, slots=True, kw_only=True)
class GameProcess:
    """A game process as the game directory knows it: where it is, its load when it last said, and when that was."""

    shard: int
    address: str
    #: Its tables not over yet.
    tables: int = 0
    #: Whether it takes new tables (false while it drains or its storage fails, and at its limit of tables).
    taking: bool = True
    #: Seconds since its last word, by the store's clock (the database's: the machines' clocks may differ).
    age: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyProcess:
    """A lobby as the directory knows it (the oldest one still heard from matches every lobby's seekers)."""

    id: str
    address: str
    #: When it first spoke and seconds since its last word, by the store's clock.
    started_at: float
    age: float


@dataclass(frozen=True, slots=True, kw_only=True)
class TableMeta:
    """What the server keeps about an ended table besides its record."""

    id: str
    game: str
    players: int
    status: str
    reason: str
    options: dict[str, Any]
    names: list[str]
    time_control: dict[str, float]
    seed_sha256: str
    winners: list[int]
    scores: list[int]
    actions: int
    created_at: float
    started_at: float | None
    ended_at: float | None
    #: The creator chose the seed (other tables may deal the same decks).
    seed_chosen: bool = False
    #: The creator sealed the table: its record is for the owner token only.
    sealed: bool = False
    #: SHA-256 (hex) of the creator's owner token; the token itself is never stored.
    owner_sha256: str = ""
    #: What groups the table with its twins (:func:`tricktable.server.withholding.twin_key`); '': a drawn seed,
    #: or stored by a version that did not keep it.
    twin_key: str = ""
    #: A sealed table's deck set (tables dealt from its seed, its index among them); 0 tables: none.
    deck_set_tables: int = 0
    deck_set_index: int = 0


def table_row(meta: TableMeta, record: dict[str, Any]) -> tuple[Any, ...]:
    """The ``tables`` row of an ended table in :data:`TABLE_COLUMNS` order (its JSON columns encoded).

    Raises:
        TypeError, ValueError: the record or metadata can not be encoded as JSON.
    """
    return (meta.id, meta.game, meta.players, meta.status, meta.reason, json.dumps(meta.options),
            json.dumps(meta.names), json.dumps(meta.time_control), meta.seed_sha256, json.dumps(meta.winners),
            json.dumps(meta.scores), meta.actions, meta.created_at, meta.started_at, meta.ended_at,
            json.dumps(record, separators=(",", ":")), meta.seed_chosen, meta.sealed, meta.owner_sha256,
            meta.twin_key, meta.deck_set_tables, meta.deck_set_index)


#: The columns :func:`game_process_from_row` and :func:`lobby_from_row` read, in order (both stores), before the
#: age each store computes with its own clock.
GAME_COLUMNS = "shard, address, tables, taking"
LOBBY_COLUMNS = "id, address, started_at"


def free_index(count: int, held: set[int], preferred: int | None) -> int | None:
    """The game index a claim takes: ``preferred`` when it is free, else the lowest free one (None: all held)."""
    for index in ([preferred] if preferred is not None else []) + list(range(count)):
        if 0 <= index < count and index not in held:
            return index
    return None


def game_process_from_row(r: Sequence[Any]) -> GameProcess:
    return GameProcess(shard=int(r[0]), address=str(r[1]), tables=int(r[2]), taking=bool(r[3]), age=float(r[4]))


def lobby_from_row(r: Sequence[Any]) -> LobbyProcess:
    return LobbyProcess(id=str(r[0]), address=str(r[1]), started_at=float(r[2]), age=float(r[3]))


def meta_from_row(r: Sequence[Any]) -> TableMeta:
    """The :class:`TableMeta` of a row selected in :data:`META_COLUMNS` order."""
    return TableMeta(id=r[0], game=r[1], players=r[2], status=r[3], reason=r[4], options=json.loads(r[5]),
                     names=json.loads(r[6]), time_control=json.loads(r[7]), seed_sha256=r[8],
                     winners=json.loads(r[9]), scores=json.loads(r[10]), actions=r[11], created_at=r[12],
                     started_at=r[13], ended_at=r[14], seed_chosen=bool(r[15]), sealed=bool(r[16]),
                     owner_sha256=r[17], twin_key=r[18], deck_set_tables=r[19], deck_set_index=r[20])


def encode_rows(ended: Sequence[tuple[TableMeta, dict[str, Any]]]) -> tuple[list[tuple[Any, ...]],
                                                                          dict[str, Exception]]:
    """The rows of ``ended``, and by id those that can not be encoded (left out alone, never the whole batch)."""
    rows: list[tuple[Any, ...]] = []
    failed: dict[str, Exception] = {}
    for meta, record in ended:
        try:
            rows.append(table_row(meta, record))
        except (TypeError, ValueError) as error:
            failed[meta.id] = error
    return rows, failed


class Storage:
    """The SQLite store of ended tables. Open with :meth:`open`; every call after is safe from any thread."""

    #: The file is on this machine: the free-space check watches it, no write of another process can fail it.
    remote = False

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.path = database_path(data_dir)
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def open(self) -> Storage:
        """Create the directory if needed, bring the schema to the current version; switch the database to WAL.

        Raises:
            SchemaVersionError: the file was written by a newer version.
        """
        self.data_dir.mkdir(parents=True, exist_ok=True)
        db = open_wal(self.path)
        try:
            migrate(db, str(self.path))
        except BaseException:
            db.close()
            raise
        self._db = db
        return self

    def close(self) -> None:
        """Close the database (a checkpoint folds the WAL back into the file)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise RuntimeError("storage is not open")
        return self._db

    # --- writes ----------------------------------------------------------

    def save(self, meta: TableMeta, record: dict[str, Any]) -> None:
        """Store (or replace) an ended table and its record."""
        failed = self.save_all([(meta, record)])
        if failed:
            raise failed[meta.id]

    def save_all(self, ended: Sequence[tuple[TableMeta, dict[str, Any]]]) -> dict[str, Exception]:
        """Store (or replace) ended tables and their records in one transaction; those that can not be encoded, by id.

        Why one transaction: each commit rewrites the index pages it
        touched, so a batch of records costs less a record than one by one.
        A record that can not be encoded is left out alone; a failure of the
        database raises (nothing of the batch is stored).
        """
        rows, failed = encode_rows(ended)
        if rows:
            with self._lock:
                db = self._conn()
                db.execute("BEGIN")
                try:
                    db.executemany(_INSERT, rows)
                    db.execute("COMMIT")
                except BaseException:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    raise
        return failed

    def check(self) -> None:
        """Commit one small write (:data:`WRITE_CHECK_SQL`): returns once the file writes again, else raises.

        Raises:
            sqlite3.Error: the write failed (the disk is still full).
        """
        with self._lock:
            db = self._conn()
            db.execute("BEGIN")
            try:
                db.execute(WRITE_CHECK_SQL, (time.time(),))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise

    async def save_all_async(self, ended: Sequence[tuple[TableMeta, dict[str, Any]]]) -> dict[str, Exception]:
        """:meth:`save_all` in a worker thread."""
        return await asyncio.to_thread(self.save_all, ended)

    def advertise(self, shard: int, address: str, *, tables: int = 0, taking: bool = True, holder: str = "") -> None:
        """Record that game process ``shard`` is reached at ``address`` with this load (replacing what it said)."""
        with self._lock:
            self._conn().execute("INSERT OR REPLACE INTO game_processes"
                                 " (shard, address, advertised_at, tables, taking, holder) VALUES (?, ?, ?, ?, ?, ?)",
                                 (shard, address, time.time(), tables, taking, holder))

    def claim_game_index(self, count: int, holder: str, preferred: int | None, stale_seconds: float) -> int | None:
        """Take a game index for ``holder``: ``preferred`` if free, else the lowest free one (None: all held).

        An index is free when no process holds it, ``holder`` does, or its holder has not spoken for
        ``stale_seconds``. The claim is the index's word (no address, taking no table) until it advertises.
        """
        with self._lock:
            db = self._conn()
            db.execute("BEGIN IMMEDIATE")
            try:
                now = time.time()
                rows = db.execute("SELECT shard, holder, advertised_at FROM game_processes").fetchall()
                held = {int(r[0]) for r in rows if r[1] != holder and now - float(r[2]) < stale_seconds}
                chosen = free_index(count, held, preferred)
                if chosen is not None:
                    db.execute("INSERT OR REPLACE INTO game_processes"
                               " (shard, address, advertised_at, tables, taking, holder) VALUES (?, '', ?, 0, 0, ?)",
                               (chosen, now, holder))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return chosen

    def game_processes(self) -> dict[int, GameProcess]:
        """Every game process's last word, by shard."""
        with self._lock:
            rows = self._conn().execute(f"SELECT {GAME_COLUMNS}, ? - advertised_at FROM game_processes",
                                        (time.time(),)).fetchall()
        return {int(r[0]): game_process_from_row(r) for r in rows}

    def advertise_lobby(self, lobby_id: str, address: str) -> None:
        """Record that lobby ``lobby_id`` at ``address`` is alive now (it started at its first word)."""
        now = time.time()
        with self._lock:
            self._conn().execute("INSERT INTO lobby_processes (id, address, started_at, seen_at) VALUES (?, ?, ?, ?)"
                                 " ON CONFLICT (id) DO UPDATE SET address = excluded.address,"
                                 " seen_at = excluded.seen_at", (lobby_id, address, now, now))

    def forget_lobby(self, lobby_id: str) -> None:
        """Remove a lobby that stops (the others stop sending their seekers to it at once)."""
        with self._lock:
            self._conn().execute("DELETE FROM lobby_processes WHERE id = ?", (lobby_id,))

    def lobbies(self) -> list[LobbyProcess]:
        """Every lobby's last word, oldest first."""
        with self._lock:
            rows = self._conn().execute(f"SELECT {LOBBY_COLUMNS}, ? - seen_at FROM lobby_processes"
                                        " ORDER BY started_at, id", (time.time(),)).fetchall()
        return [lobby_from_row(r) for r in rows]

    # --- reads -----------------------------------------------------------

    def record(self, table_id: str) -> dict[str, Any] | None:
        """The stored record of ``table_id``, or None."""
        with self._lock:
            row = self._conn().execute("SELECT record FROM tables WHERE id = ?", (table_id,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def meta(self, table_id: str) -> TableMeta | None:
        """The stored metadata of ``table_id``, or None."""
        rows = self._select("WHERE id = ?", (table_id,))
        return rows[0] if rows else None

    def list_tables(self, *, game: str | None = None, limit: int = 100) -> list[TableMeta]:
        """Ended tables, newest first, optionally of one game."""
        if game:
            return self._select("WHERE game = ? ORDER BY ended_at DESC LIMIT ?", (game, limit))
        return self._select("ORDER BY ended_at DESC LIMIT ?", (limit,))

    def ended_twins(self, key: str) -> set[int]:
        """The deck-set indexes of the stored tables grouped by twin key ``key`` (each has ended)."""
        with self._lock:
            rows = self._conn().execute("SELECT DISTINCT deck_set_index FROM tables WHERE twin_key = ?"
                                        " AND deck_set_tables > 0", (key,)).fetchall()
        return {int(r[0]) for r in rows}

    def count(self) -> int:
        """Number of stored tables."""
        with self._lock:
            return int(self._conn().execute("SELECT COUNT(*) FROM tables").fetchone()[0])

    def _select(self, where: str, params: tuple[Any, ...]) -> list[TableMeta]:
        with self._lock:
            rows = self._conn().execute(f"SELECT {', '.join(META_COLUMNS)} FROM tables {where}", params).fetchall()
        return [meta_from_row(r) for r in rows]


_INSERT = (f"INSERT OR REPLACE INTO tables ({', '.join(TABLE_COLUMNS)})"
           f" VALUES ({', '.join('?' for _ in TABLE_COLUMNS)})")
