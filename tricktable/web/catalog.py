"""Where the pages' data comes from: a running game server, or files on disk.

:class:`ServerCatalog` reads a server's lobby (tables in memory, live),
its store (ended tables and their records) and the tournament tables of
its database. For ``tricktable view``, with no server: :class:`FileCatalog`
reads a record, a ``records.jsonl`` or a tournament's export folder once,
:class:`DatabaseCatalog` the tournaments of a database file as they are
stored (:func:`open_catalog` picks one).

What a table shows follows the server's one rule of what is withheld
(:mod:`tricktable.server.withholding`, through the lobby, as gRPC applies it):
a withheld table is not listed, not followed live and has no record here,
except for the holder of its owner token (``owner_token`` of each method, an
organiser's); a tournament's page shows a deck set once all its tables are
over (:func:`tricktable.web.standings.page_from_database`).
"""

from __future__ import annotations

import asyncio
import functools
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from tricktable.server.errors import ServerError
from tricktable.server.lobby import Lobby
from tricktable.server.storage import TableMeta
from tricktable.server.tables import Table
from tricktable.web import standings


def table_path(table_id: str) -> str:
    """The live page of a table."""
    return f"/table/{quote(table_id, safe='')}"


def replay_path(table_id: str) -> str:
    """The replay page (permalink) of an ended table."""
    return f"/replay/{quote(table_id, safe='')}"


class Catalog(Protocol):
    """What the pages read."""

    #: Whether tables may be live (a server) or only ended (files).
    live: bool

    async def tables(self, owner_token: str = "") -> list[dict[str, Any]]:
        """The lobby's rows: open tables first, then ended ones, newest first (withheld ones for their owner)."""
        ...

    def table(self, table_id: str, owner_token: str = "") -> Table | None:
        """A table in memory (open, or ended moments ago) that may be followed, or None."""
        ...

    def gate(self, table: Table, owner_token: str = "") -> Callable[[], None] | None:
        """What a live stream of ``table`` checks before each batch (raises once it is withheld); None: nothing."""
        ...

    async def record(self, table_id: str, owner_token: str = "") -> dict[str, Any] | None:
        """The record of an ended table, or None."""
        ...

    async def tournaments(self) -> list[dict[str, Any]]:
        """The tournaments to list."""
        ...

    async def tournament(self, name: str, owner_token: str = "") -> dict[str, Any] | None:
        """The tournament page's data (every game for its organiser's token), or None."""
        ...

    async def tournament_record(self, name: str, match_id: str) -> dict[str, Any] | None:
        """The record of one game of a tournament, or None."""
        ...


def open_row(table: Table) -> dict[str, Any]:
    """A lobby row of a table in memory. Scores and the deal number are public (everyone sees them)."""
    match = table.match
    return {"id": table.id, "game": table.game, "players": table.players, "status": table.status.value,
            "names": table.names, "scores": list(match.scores), "deal": match.deal.number,
            "winners": list(match.result.winners) if match.result else [], "created_at": table.created_at,
            "ended_at": table.ended_at, "url": replay_path(table.id) if table.is_over else table_path(table.id)}


def stored_row(meta: TableMeta) -> dict[str, Any]:
    """A lobby row of a stored (ended) table."""
    return {"id": meta.id, "game": meta.game, "players": meta.players, "status": meta.status, "names": meta.names,
            "scores": meta.scores, "deal": None, "winners": meta.winners, "reason": meta.reason,
            "created_at": meta.created_at, "ended_at": meta.ended_at, "url": replay_path(meta.id)}


class DatabaseCatalog:
    """The tournaments of a database file, read-only, as they are stored (``tricktable view FILE.sqlite3``).

    A tournament being played into the file shows up as it plays. Its tables are not listed: the
    server that played them lists those.
    """

    live = False

    def __init__(self, database: Path, *, database_url: str | None = None) -> None:
        """``database_url``: the tournaments are in that PostgreSQL database (a server's), not in the file."""
        self.database = database
        self.database_url = database_url

    async def tables(self, owner_token: str = "") -> list[dict[str, Any]]:
        return []

    def table(self, table_id: str, owner_token: str = "") -> Table | None:
        return None

    def gate(self, table: Table, owner_token: str = "") -> Callable[[], None] | None:
        return None

    async def record(self, table_id: str, owner_token: str = "") -> dict[str, Any] | None:
        return None

    async def tournaments(self) -> list[dict[str, Any]]:
        return await asyncio.to_thread(standings.list_database, self.database, self.database_url)

    async def tournament(self, name: str, owner_token: str = "") -> dict[str, Any] | None:
        return await asyncio.to_thread(standings.page_from_database, self.database, name, owner_token,
                                       self.database_url)

    async def tournament_record(self, name: str, match_id: str) -> dict[str, Any] | None:
        return await asyncio.to_thread(standings.record_from_database, self.database, name, match_id,
                                       self.database_url)


class ServerCatalog(DatabaseCatalog):
    """A running server's tables, records and tournaments (its database holds both: the file, or --database-url's)."""

    live = True

    def __init__(self, lobby: Lobby, database: Path, *, ended_rows: int = 100, open_rows: int = 200,
                 database_url: str | None = None) -> None:
        super().__init__(database, database_url=database_url)
        self.lobby = lobby
        self.ended_rows = ended_rows
        self.open_rows = open_rows

    async def tables(self, owner_token: str = "") -> list[dict[str, Any]]:
        in_memory = sorted((t for t in self.lobby.tables() if self._shown(t, owner_token)),
                           key=lambda t: t.created_at, reverse=True)
        rows = [open_row(t) for t in in_memory if not t.is_over][: self.open_rows]
        listed = {r["id"] for r in rows}
        stored = await self.lobby.stored(limit=self.ended_rows)
        for meta in stored:
            if meta.id not in listed and (self.lobby.owns_stored(meta, owner_token)
                                          or not await self.lobby.withheld_meta(meta)):
                rows.append(stored_row(meta))
        listed |= {m.id for m in stored}
        rows += [open_row(t) for t in in_memory if t.is_over and t.id not in listed]  # ended, not stored yet
        return rows

    def _shown(self, table: Table, owner_token: str) -> bool:
        """Fair play (docs/protocol.md, section 19): a withheld table only for its owner, as Spectate and GetTable."""
        return self.lobby.owns(table, owner_token) or not self.lobby.withheld(table)

    def table(self, table_id: str, owner_token: str = "") -> Table | None:
        table = self.lobby.find(table_id)
        return None if table is None or not self._shown(table, owner_token) else table

    def gate(self, table: Table, owner_token: str = "") -> Callable[[], None] | None:
        # A page let in while the table was not withheld stops once a twin withholds it (as a Spectate stream).
        return None if self.lobby.owns(table, owner_token) else functools.partial(self.lobby.check_open, table)

    async def record(self, table_id: str, owner_token: str = "") -> dict[str, Any] | None:
        try:
            return await self.lobby.record(table_id, owner_token)  # as GetRecord gives it, withheld or not
        except ServerError:
            return None


class FileCatalog:
    """Records and a tournament read from files once (``tricktable view``): ended tables only."""

    live = False

    def __init__(self, records: dict[str, dict[str, Any]], export: standings.ExportFolder | None = None) -> None:
        self.records = records
        self.export = export

    @classmethod
    def open(cls, path: Path) -> FileCatalog:
        """A record (``.json``), records (``.jsonl``, one per line) or a tournament's export folder.

        Raises:
            OSError, ValueError: a file that can not be read, or is not JSON.
        """
        if path.is_dir():
            export = standings.read_export(path)
            return cls({}, export)
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".jsonl":
            lines = [json.loads(line) for line in text.splitlines() if line.strip()]
            return cls({str(i): r for i, r in enumerate(lines, start=1) if isinstance(r, dict)})
        record = json.loads(text)
        if not isinstance(record, dict):
            raise ValueError(f"{path}: expected a record (a JSON object)")
        return cls({path.stem: record})

    async def tables(self, owner_token: str = "") -> list[dict[str, Any]]:
        rows = []
        for table_id, record in self.records.items():
            result = record.get("result") or {}
            rows.append({"id": table_id, "game": record.get("game"), "players": len(record.get("seats", [])),
                         "status": result.get("status"), "names": [s.get("name") for s in record.get("seats", [])],
                         "scores": result.get("scores", []), "winners": result.get("winners", []),
                         "reason": result.get("reason", ""), "deal": len(record.get("deals", [])),
                         "url": replay_path(table_id)})
        return rows

    def table(self, table_id: str, owner_token: str = "") -> Table | None:
        return None

    def gate(self, table: Table, owner_token: str = "") -> Callable[[], None] | None:
        return None

    async def record(self, table_id: str, owner_token: str = "") -> dict[str, Any] | None:
        return self.records.get(table_id)

    async def tournaments(self) -> list[dict[str, Any]]:
        if self.export is None:
            return []
        page = self.export.page
        return [{"name": self.export.name, "game": page.get("config", {}).get("game"),
                 "format": page.get("config", {}).get("format"), "status": page.get("status"),
                 "games": page.get("games"), "scheduled": page.get("scheduled"),
                 "url": standings.tournament_path(self.export.name)}]

    async def tournament(self, name: str, owner_token: str = "") -> dict[str, Any] | None:
        return self.export.page if self.export is not None and self.export.name == name else None

    async def tournament_record(self, name: str, match_id: str) -> dict[str, Any] | None:
        if self.export is None or self.export.name != name:
            return None
        return self.export.records.get(match_id)


#: Suffixes of a SQLite database file (the server's is ``tricktable.sqlite3``).
DATABASE_SUFFIXES = (".sqlite3", ".sqlite", ".db")


def open_catalog(path: Path) -> FileCatalog | DatabaseCatalog:
    """What ``tricktable view PATH`` shows: a database's tournaments, or records and an export folder's files.

    Raises:
        OSError, ValueError: a missing or unreadable file, or one that is not what it should be.
    """
    if path.suffix in DATABASE_SUFFIXES:
        if not path.is_file():
            raise FileNotFoundError(f"no database file {path}")
        try:
            standings.list_database(path)  # fails now, not on the first page, when it is not a database
        except sqlite3.Error as error:
            raise ValueError(f"not a Tricktable database: {error}") from None
        return DatabaseCatalog(path)
    return FileCatalog.open(path)
