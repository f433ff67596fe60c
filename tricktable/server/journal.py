"""The journal of running tables: what rebuilds them after a crash (``journal.sqlite3`` in the data directory).

A table lives in memory; without a journal, kill -9 of the server loses
every game in progress. The journal keeps, for each table not over yet, its
:class:`Opening` (everything its constructor needs: game, options, seed,
time control, names, token digests) and each *step* that changed what an
audience saw: the start, every action played (a seat's or a default), a
seat joining or leaving while it runs. On start the server replays each
table through the rules engine (``tricktable.server.tables.Table.replay``), which
rebuilds every audience's log with the same sequence numbers, the pending
decision with the same id, and the seats' counters and banks.

The rule that makes a resume consistent: a client never sees an event the
journal lacks, or the rebuilt log would reuse sequence numbers it already
saw. Steps other than moves are committed at once. Moves are written into
one open transaction, a *group*, committed when the first of its table's
followers is about to send something (``TableJournal.flush``, called by
the table before it hands out events, decisions or a snapshot), and at the
latest on the event loop's next turn (``call_soon``): the moves of every
table made in one loop turn share one commit. Writes go to SQLite WAL with
``synchronous=NORMAL``: they survive kill -9 of the process (the WAL is in
the OS's cache), not a power cut or a kernel crash. WAL checkpoints (the
only fsyncs) run in a background thread every :data:`CHECKPOINT_SECONDS`;
when the WAL has grown past :data:`WAL_RESTART_PAGES`, the loop then copies
the little the thread left, so that its next write starts the WAL over
(:meth:`Journal._start_wal_over`). ``python -m bench.journal_cost`` measures the cost
per move. Tokens are kept as SHA-256 digests only: a copy of the journal
does not give a seat away.

A table's rows are deleted once its record is in the store
(:mod:`tricktable.server.storage`), in batches: the tables forgotten within
:data:`FORGET_SECONDS` (at most :data:`FORGET_BATCH`) leave in one
transaction. Why batches: a table's steps are spread over the pages of every
table that played beside it, so deleting one table rewrites some thirty
pages and deleting forty of them rewrites about as many (200 -> 25-40 µs a
table on the development machine). A crash before a batch is deleted leaves
tables whose records are stored: the next start forgets them instead of
resuming them (``tricktable.server.lobby.Lobby.resume``).

When a write fails (a full disk: ``database or disk is full``), the table
it was for is *broken*: it plays on in memory, but a journal that lacks its
latest steps would resume it at an earlier point than its seats saw, so its
rows are deleted (:meth:`Journal.settle`). While that delete fails too, the
table is *stale* and its end is not sent (``TableJournal.settled``): a
restart may resume a table whose last moves it lost, never one whose end
its seats received. The storage keeper retries the delete every second
(``tricktable.server.lobby.Lobby.keep_storage``); once it is done, or the
table's record is stored, the held ends go out. Every failure is reported
to the server's :class:`tricktable.server.store_health.StoreHealth`, which
refuses new tables until the journal writes again (:meth:`Journal.check`).

The file's format is versioned (:data:`JOURNAL_FORMAT`): a journal written by
a newer version is refused at start with what to do (:class:`JournalFormatError`).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from tricktable.server.storage import WRITE_CHECK_SCHEMA, WRITE_CHECK_SQL, open_wal
from tricktable.server.store_health import JOURNAL, StoreHealth

if TYPE_CHECKING:
    from tricktable.server.metrics import Metrics

log = structlog.get_logger("tricktable.journal")

JOURNAL_NAME = "journal.sqlite3"
#: Seconds between background WAL checkpoints (the journal's only fsyncs).
CHECKPOINT_SECONDS = 2.0
#: Pages (4 KiB) the WAL may hold after a background checkpoint before the loop starts it over
#: (:meth:`Journal._start_wal_over`): its file stays about the size of the writes of :data:`CHECKPOINT_SECONDS`
#: (30-40 MB at 40 busy tables) instead of growing for as long as the load lasts.
WAL_RESTART_PAGES = 4096
#: Longest a table whose record is stored waits to leave the journal, and how many wait at most
#: (:meth:`Journal.close_table`): their rows are deleted together.
FORGET_SECONDS = 1.0
FORGET_BATCH = 100

#: The journal's format (``PRAGMA user_version``): what its rows mean. A journal written before formats were
#: marked reads 0 and is format 1. A start refuses a journal of a newer format (:class:`JournalFormatError`), so
#: running tables are never replayed by a version that misreads them; a change of what a row means is a new format.
JOURNAL_FORMAT = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS openings (
    table_id TEXT PRIMARY KEY,
    opening TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS steps (
    seq INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    step TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS steps_of_table ON steps (table_id);
""" + WRITE_CHECK_SCHEMA
#: Why steps are rows in the order written (``seq``) rather than clustered by table: a group commit of
#: moves of many tables then writes one or two pages of the WAL, not one per table (on the development
#: machine, 5-8 µs a move instead of 8-13 in groups of 20 moves of 20 to 2,000 tables).

#: One step of a table: a JSON object whose ``"k"`` names its kind (``tricktable.server.tables`` writes and reads them).
Step = dict[str, Any]
#: Steps that wait for the group commit: moves, written by a stream's reader, a unary call or a timer, never
#: by the stream that sends their events (it flushes first). The rest (start, presence, abort) are written
#: by the joining or leaving stream itself, just before it sends: they commit at once.
GROUPED_STEPS = frozenset({"play"})


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
    #: The table's salt (its published commitment must stay the same across a restart), whether the creator
    #: chose the seed or sealed the table, and the digest of the creator's owner token (docs/protocol.md, 19).
    salt: str = ""
    seed_chosen: bool = False
    sealed: bool = False
    owner_digest: str = ""
    #: A sealed table's deck set as ``[tables, index]`` (when its seal lifts); None: sealed for good, or unsealed.
    deck_set: list[int] | None = None

    def to_json(self) -> str:
        """The stored form (the fields read as they are: ``asdict`` would deep-copy every list first)."""
        return json.dumps({name: getattr(self, name) for name in _OPENING_FIELDS}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Opening:
        """The opening stored as ``text``."""
        return cls(**json.loads(text))


_OPENING_FIELDS = tuple(f.name for f in fields(Opening))


@dataclass(frozen=True, slots=True)
class JournaledTable:
    """A table found in the journal: its opening and its steps in order."""

    opening: Opening
    steps: list[Step]


class JournalFormatError(RuntimeError):
    """The journal was written by a newer version of Tricktable, in a format this version does not read."""


def check_format(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a journal whose format is newer than :data:`JOURNAL_FORMAT`; mark an older one (or a new file).

    Raises:
        JournalFormatError: with what to do about it.
    """
    found = int(db.execute("PRAGMA user_version").fetchone()[0])
    if found > JOURNAL_FORMAT:
        raise JournalFormatError(
            f"{path} holds running tables in journal format {found}, and this version of tricktable reads format "
            f"{JOURNAL_FORMAT} at most: start the version that wrote it (its tables resume; a stop with "
            "--drain-seconds lets them finish), or move the file aside to start without them (they are lost)")
    if found < JOURNAL_FORMAT:
        db.execute(f"PRAGMA user_version = {JOURNAL_FORMAT}")


def _passive_checkpoint(db: sqlite3.Connection) -> int | None:
    """Copy what it can of the WAL into the file without waiting for any lock; the pages the WAL held (None: failed,
    logged)."""
    try:
        _busy, pages, _copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    except sqlite3.Error:
        log.exception("journal checkpoint failed")
        return None
    return int(pages)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class TableJournal:
    """One table's side of the journal: what a :class:`tricktable.server.tables.Table` holds."""

    __slots__ = ("_journal", "table_id")

    def __init__(self, journal: Journal, table_id: str) -> None:
        self._journal = journal
        self.table_id = table_id

    def write(self, step: Step) -> None:
        """Journal ``step`` (a move: in the open group commit)."""
        self._journal.append(self.table_id, step)

    def flush(self) -> None:
        """Commit the open group: called before anything of the table is sent (cheap when nothing is open)."""
        self._journal.commit()

    def settled(self, release: Callable[[], None]) -> bool:
        """Whether the table's end may be sent now: the journal holds all of it, or nothing.

        Called when the table ends, before its end is published: its open
        steps are committed first. False when a failed write left part of it
        that can not be deleted yet; ``release`` is then called once it is
        (or once its record is stored), and the end is sent then.
        """
        journal = self._journal
        journal.commit()
        if self.table_id not in journal.stale or journal.settle():
            return True
        journal.on_settled(self.table_id, release)
        return False


class Journal:
    """The journal file. Writes come from the event loop's thread only; moves are committed in groups."""

    def __init__(self, data_dir: Path, *, checkpoint_seconds: float = CHECKPOINT_SECONDS) -> None:
        self.path = data_dir / JOURNAL_NAME
        self._checkpoint_seconds = checkpoint_seconds
        self._db: sqlite3.Connection | None = None
        #: Tables with a step in the open group commit.
        self._group: set[str] = set()
        self._stop = threading.Event()
        self._checkpointer: threading.Thread | None = None
        #: Tables whose journal write failed: they play on, but can not be resumed (logged once each).
        self.broken: set[str] = set()
        #: Broken tables whose rows are still in the file (their delete failed too): :meth:`settle` retries it.
        self.stale: set[str] = set()
        #: What to call once a stale table's rows are gone (the table's held end).
        self._releases: dict[str, list[Callable[[], None]]] = {}
        #: Where failures are reported (the lobby's); None: only logged.
        self.health: StoreHealth | None = None
        #: Tables whose record is stored, waiting to leave the journal together (:meth:`close_table`).
        self._forgotten: list[str] = []
        self._forget_timer: asyncio.TimerHandle | None = None
        #: Where commit times and failures are counted (the lobby's); None: not counted.
        self.metrics: Metrics | None = None
        #: Set by the checkpoint thread when it left the WAL longer than :data:`WAL_RESTART_PAGES`.
        self._wal_restart_due = False

    def open(self) -> Journal:
        """Create the file and schema if needed (refusing a newer format); start the background checkpoints.

        Raises:
            JournalFormatError: the file was written by a newer version (it is left as it is).
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = open_wal(self.path)
        try:
            check_format(db, self.path)
        except BaseException:
            db.close()
            raise
        db.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints fsync: the background thread does them
        db.executescript(_SCHEMA)
        self._db = db
        self._stop.clear()
        self._checkpointer = threading.Thread(target=self._checkpoint_loop, name="journal-checkpoint", daemon=True)
        self._checkpointer.start()
        return self

    def close(self) -> None:
        """Commit the open group and the waiting forgets, stop the checkpoints, fold the WAL in, close the file."""
        self.forget_now()
        self.commit()
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
                self.background_checkpoint(db)
            try:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:  # a full disk: the WAL stays, and the next start reads it
                log.exception("journal checkpoint at close failed")
        finally:
            db.close()

    def background_checkpoint(self, db: sqlite3.Connection) -> None:
        """One checkpoint of the background thread, on its own connection ``db``: copy the WAL into the file
        without waiting for any lock, and ask the loop to start the WAL over when more than
        :data:`WAL_RESTART_PAGES` were in it (:meth:`_start_wal_over`)."""
        pages = _passive_checkpoint(db)
        if pages is not None and pages > WAL_RESTART_PAGES:
            self._wal_restart_due = True

    # --- writes (event loop) ---------------------------------------------

    def open_table(self, opening: Opening) -> None:
        """Record a new table, committed before it returns (before any of its tokens leaves the server)."""
        self._write(opening.table_id, [("INSERT OR REPLACE INTO openings (table_id, opening) VALUES (?, ?)",
                                        (opening.table_id, opening.to_json()))])

    def append(self, table_id: str, step: Step) -> None:
        """Record one step of ``table_id``: a move joins the open group commit, any other step commits at once."""
        self._write(table_id, [("INSERT INTO steps (table_id, step) VALUES (?, ?)",
                                (table_id, json.dumps(step, separators=(",", ":"))))],
                    grouped=step.get("k") in GROUPED_STEPS)

    def close_table(self, table_id: str) -> None:
        """Forget a table whose record is stored: with the next batch, within :data:`FORGET_SECONDS` on a loop."""
        self.broken.discard(table_id)
        if table_id in self.stale:  # its record is stored: a start forgets it whatever rows are left
            self.stale.discard(table_id)
            self._release(table_id)
        self._forgotten.append(table_id)
        loop = _running_loop()
        if loop is None or len(self._forgotten) >= FORGET_BATCH:
            self.forget_now()
        elif self._forget_timer is None:
            self._forget_timer = loop.call_later(FORGET_SECONDS, self.forget_now)

    def forget_now(self) -> None:
        """Delete the rows of every table :meth:`close_table` was given, in one transaction of their own.

        A failure is logged and leaves the rows: the next start forgets those tables (their records are stored).
        """
        if self._forget_timer is not None:
            self._forget_timer.cancel()
            self._forget_timer = None
        gone, self._forgotten = self._forgotten, []
        if not gone or self._db is None:
            return
        self.commit()  # the open group first, so a failed delete can not take its moves with it
        marks = ", ".join("?" * len(gone))
        db = self._db
        try:
            db.execute("BEGIN")
            db.execute(f"DELETE FROM steps WHERE table_id IN ({marks})", gone)
            db.execute(f"DELETE FROM openings WHERE table_id IN ({marks})", gone)
            db.execute("COMMIT")
        except sqlite3.Error as error:
            log.exception("journal delete of finished tables failed; the next start forgets them", tables=gone)
            self._failed(error)
            self._rollback()

    def commit(self) -> None:
        """Commit the open group, if any: before anything it holds is sent, and at the latest on the next loop turn."""
        db = self._db
        if db is None or not db.in_transaction:
            return
        group, self._group = self._group, set()
        started = time.perf_counter()
        try:
            db.execute("COMMIT")
            if self.metrics is not None:
                self.metrics.journal_commit.observe(time.perf_counter() - started)
        except sqlite3.Error as error:
            log.exception("journal commit failed; these tables will not survive a restart", tables=sorted(group))
            self._failed(error)
            self._rollback()
            for table_id in group:
                self._drop(table_id)

    def _write(self, table_id: str, statements: list[tuple[str, tuple[Any, ...]]], *, grouped: bool = False) -> None:
        """Run ``statements`` in the open group (``grouped``, on a running loop) or in a transaction of their own.

        After a failure the table is dropped from the journal: a partial
        journal would resume it at an earlier point than its clients saw.
        """
        if table_id in self.broken:
            return
        db = self._conn()
        loop = _running_loop() if grouped else None
        try:
            if not db.in_transaction:
                if self._wal_restart_due:
                    self._start_wal_over(db)
                db.execute("BEGIN")
                if loop is not None:
                    loop.call_soon(self.commit)
            self._group.add(table_id)
            for sql, params in statements:
                db.execute(sql, params)
        except sqlite3.Error as error:
            log.exception("journal write failed; this table will not survive a restart", table=table_id)
            self._failed(error)
            if db.in_transaction:  # only the statement failed
                self._drop(table_id)
            else:  # SQLite rolled the whole group back
                lost, self._group = self._group | {table_id}, set()
                for lost_id in lost:
                    self._drop(lost_id)
            self.settle()
        if loop is None:
            self.commit()

    def _start_wal_over(self, db: sqlite3.Connection) -> None:
        """Copy what the WAL holds beyond the checkpoint thread's last copy, so that the write that follows (no
        transaction is open) starts the WAL over from its beginning.

        Why on the loop: SQLite starts the WAL over only at a write that
        finds it wholly copied into the file, and under moves that never
        pause the thread's checkpoint never does (a group commit lands while
        it runs): the WAL file then grows for as long as the load lasts,
        about 15 MB a second at 40 busy tables. Between two of the loop's
        transactions nothing can land. What is left to copy is the moves
        since the thread's checkpoint (a few pages), with its two fsyncs:
        about 1 ms on the loop once per :data:`CHECKPOINT_SECONDS` under
        that load (0.99 ms median, 1.7 at most, on the development machine).
        A PASSIVE checkpoint never waits for a lock: if the thread's own
        checkpoint or a reader's snapshot is in the way, the WAL starts over
        after a later one.
        """
        self._wal_restart_due = False
        _passive_checkpoint(db)

    def _drop(self, table_id: str) -> None:
        """Stop journaling ``table_id``; what the journal holds of it is deleted by :meth:`settle`."""
        self.broken.add(table_id)
        self.stale.add(table_id)
        self._group.discard(table_id)

    def settle(self) -> bool:
        """Delete the rows of every stale table (one transaction, after the open group); True when none is left.

        A failure is logged and reported, and leaves them stale: the
        storage keeper calls this again.
        """
        if not self.stale:
            return True
        db = self._db
        if db is None:
            return False
        self.commit()
        if db.in_transaction:
            return False
        gone = sorted(self.stale)
        marks = ", ".join("?" * len(gone))
        try:
            db.execute("BEGIN")
            db.execute(f"DELETE FROM steps WHERE table_id IN ({marks})", gone)
            db.execute(f"DELETE FROM openings WHERE table_id IN ({marks})", gone)
            db.execute("COMMIT")
        except sqlite3.Error as error:
            log.warning("journal delete of broken tables failed; their ends wait", tables=len(gone), error=str(error))
            self._failed(error)
            self._rollback()
            return False
        self.stale.difference_update(gone)
        for table_id in gone:
            self._release(table_id)
        return True

    def on_settled(self, table_id: str, release: Callable[[], None]) -> None:
        """Call ``release`` once the stale ``table_id`` is settled (its rows deleted, or its record stored)."""
        self._releases.setdefault(table_id, []).append(release)

    def _release(self, table_id: str) -> None:
        for release in self._releases.pop(table_id, ()):
            try:
                release()
            except Exception:
                log.exception("release of a held table end failed", table=table_id)

    def check(self) -> bool:
        """Settle the stale tables and commit one small write: True when the journal writes (its failure cleared).

        The storage keeper's retry while the journal fails; a write that
        commits is the only proof that it writes again.
        """
        if not self.settle():
            return False
        db = self._db
        if db is None:
            return False
        try:
            db.execute("BEGIN")
            db.execute(WRITE_CHECK_SQL, (time.time(),))
            db.execute("COMMIT")
        except sqlite3.Error as error:
            self._failed(error)
            self._rollback()
            return False
        if self.health is not None:
            self.health.recovered(JOURNAL)
        return True

    def _failed(self, error: sqlite3.Error) -> None:
        """Count and report a failed write (the health refuses new tables until :meth:`check` passes)."""
        if self.metrics is not None:
            self.metrics.storage_errors.labels(JOURNAL).inc()
        if self.health is not None:
            self.health.failed(JOURNAL, error)

    def _rollback(self) -> None:
        db = self._db
        if db is not None and db.in_transaction:
            db.execute("ROLLBACK")

    # --- reads (start-up) ------------------------------------------------

    def tables(self) -> list[JournaledTable]:
        """Every journaled table, oldest first, with its steps in order; unreadable rows are logged and skipped."""
        self.forget_now()
        self.settle()
        db = self._conn()
        found = []
        for table_id, text in db.execute("SELECT table_id, opening FROM openings ORDER BY rowid").fetchall():
            try:
                opening = Opening.from_json(text)
                steps = [json.loads(s) for (s,) in db.execute(
                    "SELECT step FROM steps WHERE table_id = ? ORDER BY seq", (table_id,)).fetchall()]
            except (ValueError, TypeError):
                log.exception("unreadable journal entry skipped", table=table_id)
                continue
            found.append(JournaledTable(opening, steps))
        return found

    def count(self) -> int:
        """Number of journaled tables (those forgotten already left)."""
        self.forget_now()
        return int(self._conn().execute("SELECT COUNT(*) FROM openings").fetchone()[0])
