"""The record store's one interface, and the choice between its two implementations.

The server stores every ended table (its metadata and record) in a
*record store*: SQLite in the data directory by default
(:class:`tricktable.server.storage.Storage`, nothing to install or run), or a
PostgreSQL database named by ``--database-url postgresql://...``
(:class:`tricktable.server.pg_storage.PostgresStorage`, the ``postgres``
extra), which several server processes on several machines can share. The
lobby sees only :class:`RecordStore`; ``tests/server/test_storage.py`` runs
one suite against both.

Either way the journal of running tables (:mod:`tricktable.server.journal`)
stays a SQLite file in the data directory: it is written at every move and
read only by the process that wrote it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from tricktable.server.storage import GameProcess, LobbyProcess, Storage, TableMeta

#: The URL schemes ``--database-url`` takes.
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
#: The environment variable ``--database-url`` is read from when not given (how a Secret reaches a container).
ENV_DATABASE_URL = "TRICKTABLE_DATABASE_URL"


def redacted(url: str) -> str:
    """``url`` with its password replaced by ``***`` (what ``--print-config`` and the logs may show)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


class RecordStore(Protocol):
    """Where ended tables are kept. Every method may be called from any thread once :meth:`open` returned.

    A write that fails raises (nothing of its batch is stored): the lobby keeps
    the records in memory and writes them again (``Lobby.keep_storage``).
    """

    #: The local data directory (the journal's; the free-space check looks at its file system).
    data_dir: Path
    #: The data directory's SQLite file: the records' with the SQLite store (and the tournaments' by default,
    #: ``tricktable.tournament.store``).
    path: Path
    #: Whether the store lives in another process that can go away with no write of ours failing first: the
    #: storage keeper then checks it every second (``Lobby.check_storage_once``), so readiness follows it.
    remote: bool

    def open(self) -> RecordStore:
        """Connect, and bring the schema to the current version (a newer one is refused)."""
        ...

    def close(self) -> None:
        """Close the connection (a second close does nothing)."""
        ...

    def save(self, meta: TableMeta, record: dict[str, Any]) -> None:
        """Store (or replace) an ended table and its record."""
        ...

    def save_all(self, ended: Sequence[tuple[TableMeta, dict[str, Any]]]) -> dict[str, Exception]:
        """Store (or replace) ended tables in one transaction; those that can not be encoded, by id."""
        ...

    async def save_all_async(self, ended: Sequence[tuple[TableMeta, dict[str, Any]]]) -> dict[str, Exception]:
        """:meth:`save_all` in a worker thread."""
        ...

    def check(self) -> None:
        """Commit one small write: returns once the store writes again, else raises."""
        ...

    def record(self, table_id: str) -> dict[str, Any] | None:
        """The stored record of ``table_id``, or None."""
        ...

    def meta(self, table_id: str) -> TableMeta | None:
        """The stored metadata of ``table_id``, or None."""
        ...

    def list_tables(self, *, game: str | None = None, limit: int = 100) -> list[TableMeta]:
        """Ended tables, newest first, optionally of one game."""
        ...

    def ended_twins(self, key: str) -> set[int]:
        """The deck-set indexes of the stored tables grouped by twin key ``key``."""
        ...

    def count(self) -> int:
        """Number of stored tables."""
        ...

    def advertise(self, shard: int, address: str, *, tables: int = 0, taking: bool = True, holder: str = "") -> None:
        """Record that game process ``shard`` is reached at ``address`` with this load, now (the game directory)."""
        ...

    def claim_game_index(self, count: int, holder: str, preferred: int | None, stale_seconds: float) -> int | None:
        """Take a free game index for ``holder`` (``preferred`` if free), or None when all are held."""
        ...

    def game_processes(self) -> dict[int, GameProcess]:
        """Every game process's last word, by shard."""
        ...

    def advertise_lobby(self, lobby_id: str, address: str) -> None:
        """Record that lobby ``lobby_id`` at ``address`` is alive now (it started at its first word)."""
        ...

    def forget_lobby(self, lobby_id: str) -> None:
        """Remove a lobby that stops."""
        ...

    def lobbies(self) -> list[LobbyProcess]:
        """Every lobby's last word, oldest first."""
        ...


def check_database_url(url: str) -> None:
    """Refuse a ``--database-url`` that is not a PostgreSQL URL (saying only its scheme: the rest may hold a password).

    Raises:
        ValueError
    """
    if not url.startswith(POSTGRES_SCHEMES):
        scheme = url.partition(":")[0]
        raise ValueError(f"--database-url must begin with {' or '.join(POSTGRES_SCHEMES)}, not {scheme}:")


def record_store(data_dir: Path, database_url: str | None = None) -> RecordStore:
    """The store a server uses: PostgreSQL at ``database_url`` when given, else SQLite in ``data_dir`` (not opened).

    Raises:
        ValueError: ``database_url`` is not a PostgreSQL URL.
        RuntimeError: it is, and psycopg (the ``postgres`` extra) is not installed.
    """
    if not database_url:
        return Storage(data_dir)
    check_database_url(database_url)
    try:
        from tricktable.server.pg_storage import PostgresStorage
    except ImportError as missing:
        raise RuntimeError("--database-url needs psycopg: pip install 'tricktable[postgres]'") from missing
    return PostgresStorage(database_url, data_dir)
