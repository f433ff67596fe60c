"""The journal of running tables: what rebuilds them after a crash (``journal.sqlite3`` in the data directory).

A table lives in memory; without a journal, kill -9 of the server loses
every game in progress. The journal keeps, for each table not over yet, its
:class:`Opening` (everything its constructor needs: game, options, seed,
time control, names, token digests) and each *step* that changed what an
audience saw: the start, every action played (a seat's or a default), a
seat joining or leaving while it runs. On start the server replays each
table through the rules engine (``server.tables.Table.replay``), which
rebuilds every audience's log with the same sequence numbers, the pending
decision with the same id, and the seats' counters and banks.

Why one transaction per step, written before the step's events leave: a
client must never have seen an event the journal lacks, or the replayed
log would reuse sequence numbers it already saw. The write is a small
insert in SQLite WAL with ``synchronous=NORMAL``: it survives kill -9 of
the process (the WAL is in the OS's cache) but not a power cut or a kernel
crash; about 30 µs on the development machine (``bench.server_bench``
measures it). WAL checkpoints (the only fsyncs) run in a background thread
every :data:`CHECKPOINT_SECONDS`, never on the event loop. Tokens are kept
as SHA-256 digests only: a copy of the journal does not give a seat away.

A table's rows are deleted once its record is in the store
(:mod:`server.storage`); a crash between the two replays it to its end
and stores the same record again.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import structlog

log = structlog.get_logger("tricktable.journal")

JOURNAL_NAME = "journal.sqlite3"
#: Seconds between background WAL checkpoints (the journal's only fsyncs).
CHECKPOINT_SECONDS = 2.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS openings (
    table_id TEXT PRIMARY KEY,
    opening TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS steps (
    table_id TEXT NOT NULL,
    n INTEGER NOT NULL,
    step TEXT NOT NULL,
    PRIMARY KEY (table_id, n)
) WITHOUT ROWID;
"""

#: One step of a table: a JSON object whose ``"k"`` names its kind (``server.tables`` writes and reads them).
Step = dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class Opening:
    """What creates a table again: the lobby's arguments to ``Table`` plus the seats' token digests."""

    table_id: str
    game: str
    #: The options as the engine resolved them (first dealer included), so a replay deals the same.
    options: dict[str, Any]
    seed: str
    time_control: dict[str, float]
    names: list[str]
    token_digests: list[str]
    created_at: float
    #: The address that created the table (its per-client limit counts it).
    client: str = ""

    def to_json(self) -> str:
        """The stored form."""
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Opening:
        """The opening stored as ``text``."""
        return cls(**json.loads(text))


@dataclass(frozen=True, slots=True)
class JournaledTable:
    """A table found in the journal: its opening and its steps in order."""

    opening: Opening
    steps: list[Step]


class Journal:
    """The journal file. Writes come from the event loop's thread only (each one a short transaction)."""

    def __init__(self, data_dir: Path, *, checkpoint_seconds: float = CHECKPOINT_SECONDS) -> None:
        self.path = data_dir / JOURNAL_NAME
        self._checkpoint_seconds = checkpoint_seconds
        self._db: sqlite3.Connection | None = None
        self._next: dict[str, int] = {}
        self._stop = threading.Event()
        self._checkpointer: threading.Thread | None = None
        #: Tables whose journal write failed: they play on, but can not be resumed (logged once each).
        self.broken: set[str] = set()

    def open(self) -> Journal:
        """Create the file and schema if needed; start the background checkpoints."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA busy_timeout=5000")
        db.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints fsync: the background thread does them
        db.executescript(_SCHEMA)
        self._db = db
        self._stop.clear()
        self._checkpointer = threading.Thread(target=self._checkpoint_loop, name="journal-checkpoint", daemon=True)
        self._checkpointer.start()
        return self

    def close(self) -> None:
        """Stop the checkpoints, fold the WAL into the file and close it."""
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join()
            self._checkpointer = None
        if self._db is not None:
            self._db.close()
            self._db = None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise RuntimeError("the journal is not open")
        return self._db

    def _checkpoint_loop(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None)
        try:
            while not self._stop.wait(self._checkpoint_seconds):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error:
                    log.exception("journal checkpoint failed")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            db.close()

    # --- writes (event loop) ---------------------------------------------

    def open_table(self, opening: Opening) -> None:
        """Record a new table (before any of its tokens leaves the server)."""
        self._write(opening.table_id, "INSERT OR REPLACE INTO openings (table_id, opening) VALUES (?, ?)",
                    (opening.table_id, opening.to_json()))
        self._next.setdefault(opening.table_id, 0)

    def append(self, table_id: str, step: Step) -> None:
        """Record one step of ``table_id``, durably before it returns (one transaction)."""
        n = self._next.get(table_id, 0)
        self._next[table_id] = n + 1
        self._write(table_id, "INSERT INTO steps (table_id, n, step) VALUES (?, ?, ?)",
                    (table_id, n, json.dumps(step, separators=(",", ":"))))

    def close_table(self, table_id: str) -> None:
        """Forget a table whose record is stored."""
        self._next.pop(table_id, None)
        self.broken.discard(table_id)
        try:
            db = self._conn()
            db.execute("BEGIN")
            db.execute("DELETE FROM steps WHERE table_id = ?", (table_id,))
            db.execute("DELETE FROM openings WHERE table_id = ?", (table_id,))
            db.execute("COMMIT")
        except sqlite3.Error:
            log.exception("journal delete failed", table=table_id)
            self._rollback()

    def _write(self, table_id: str, sql: str, params: tuple[Any, ...]) -> None:
        """One statement in its own transaction; after a failure the table is dropped from the journal."""
        if table_id in self.broken:
            return
        try:
            self._conn().execute(sql, params)
        except sqlite3.Error:
            log.exception("journal write failed; this table will not survive a restart", table=table_id)
            self._rollback()
            self.close_table(table_id)  # a partial journal would resume it at an earlier point: better none
            self.broken.add(table_id)

    def _rollback(self) -> None:
        db = self._db
        if db is not None and db.in_transaction:
            db.execute("ROLLBACK")

    # --- reads (start-up) ------------------------------------------------

    def tables(self) -> list[JournaledTable]:
        """Every journaled table, oldest first, with its steps in order; unreadable rows are logged and skipped."""
        db = self._conn()
        found = []
        for table_id, text in db.execute("SELECT table_id, opening FROM openings ORDER BY rowid").fetchall():
            try:
                opening = Opening.from_json(text)
                steps = [json.loads(s) for (s,) in db.execute(
                    "SELECT step FROM steps WHERE table_id = ? ORDER BY n", (table_id,)).fetchall()]
            except (ValueError, TypeError):
                log.exception("unreadable journal entry skipped", table=table_id)
                continue
            self._next[table_id] = len(steps)
            found.append(JournaledTable(opening, steps))
        return found

    def count(self) -> int:
        """Number of journaled tables."""
        return int(self._conn().execute("SELECT COUNT(*) FROM openings").fetchone()[0])
