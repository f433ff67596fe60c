"""Tournaments in a database: the server's SQLite file by default, or the PostgreSQL database it shares.

By default the tables live in the server's SQLite file (the caller passes
:func:`tricktable.server.storage.database_path`; :mod:`tricktable.tournament.sqlite_store`),
so one database holds the tables the server played and the tournaments built
from them; ``--database-url postgresql://...`` puts them in that PostgreSQL
database instead (:mod:`tricktable.tournament.pg_store`), beside the records
of the servers that share it. :class:`TournamentStore` is the one place that
knows what a tournament's rows mean; each backend is a
:class:`TournamentDatabase` that runs its SQL and keeps its schema versioned.

A match is written in one statement once it is complete (record, result,
faults), so after a crash or a kill it is either stored whole or not at all -
and a match not stored is played again on ``--resume``. The schedule itself is
not stored: it is recomputed from the config (and, for Swiss, from the stored
results), which gives the same match ids.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tricktable.server.record_store import check_database_url
from tricktable.tournament.config import TournamentConfig, config_from_mapping
from tricktable.tournament.deck_key import DeckKeyDisclosure, commitment, draw_salt
from tricktable.tournament.runner import MatchOutcome
from tricktable.tournament.schedule import MatchSpec
from tricktable.tournament.sqlite_store import SqliteTournamentDatabase
from tricktable.tournament.store_errors import StoreError

#: Bytes of randomness in a tournament's deck key (tricktable.tournament.schedule.deck_seed).
DECK_KEY_BYTES = 32
#: Environment variable that sets a new tournament's deck key instead of a random one: for reproducible
#: runs (the same key and config deal the same decks). An environment variable, not a flag, so it does
#: not show in the process list.
DECK_KEY_ENV = "TRICKTABLE_DECK_KEY"
#: Statuses of a tournament every table of which has ended: its records may be shown, its deck key revealed.
#: (``interrupted`` is not one: ``--resume`` deals the decks still to play.)
ENDED_STATUSES = ("finished", "stopped by sprt")
#: Bytes of randomness in a tournament's organiser credential (:meth:`TournamentStore.owner_token`).
OWNER_TOKEN_BYTES = 32


def _alive(pid: int | None) -> bool:
    """Whether process ``pid`` runs on this machine (None, from an older version: assume it is gone)."""
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        return True
    return True


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredMatch:
    """A completed match as stored: its spec and its outcome."""

    spec: MatchSpec
    outcome: MatchOutcome


class TournamentDatabase(Protocol):
    """Where a :class:`TournamentStore` keeps its rows: a SQLite file or a PostgreSQL database, schema migrated.

    Statements are written once, with SQLite's ``?`` placeholders (a backend translates them), in SQL both
    databases run alike.
    """

    #: The database, for messages (a file, or a PostgreSQL database and host; never a password).
    where: str
    read_only: bool
    #: What a read of a table or column that is not there raises (a read-only open before any tournament).
    missing: tuple[type[Exception], ...]
    #: What a second row with the same key raises.
    conflict: tuple[type[Exception], ...]

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement (autocommit); the rows it changed."""
        ...

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Every row of a query."""
        ...

    def iterate(self, sql: str, params: Sequence[Any] = ()) -> Iterator[tuple[Any, ...]]:
        """The rows of a query, one at a time."""
        ...

    def close(self) -> None:
        """Close the connection."""
        ...


def tournament_store(path: Path, database_url: str | None = None, *, read_only: bool = False) -> TournamentStore:
    """The store of ``tricktable tournament``: PostgreSQL at ``database_url`` when given, else the SQLite file ``path``.

    Raises:
        ValueError: ``database_url`` is not a PostgreSQL URL.
        RuntimeError: it is, and psycopg (the ``postgres`` extra) is not installed.
        StoreError: the database can not be reached.
    """
    if not database_url:
        return TournamentStore(path, read_only=read_only)
    check_database_url(database_url)
    try:
        from tricktable.tournament.pg_store import PostgresTournamentDatabase
    except ImportError as missing:
        raise RuntimeError("--database-url needs psycopg: pip install 'tricktable[postgres]'") from missing
    return TournamentStore(PostgresTournamentDatabase(database_url, read_only=read_only))


class TournamentStore:
    """Tournaments and their matches in one database; used from one thread at a time (a running tournament's own)."""

    def __init__(self, where: Path | TournamentDatabase, *, read_only: bool = False) -> None:
        """Over ``where``: a SQLite file (opened, created and migrated unless ``read_only``), or an open database.

        Every tournament its runner left ``running`` when it was killed is marked ``interrupted`` (unless read-only).

        Raises:
            sqlite3.Error: a read-only open of a file that is missing or not a database.
            SchemaVersionError: the database's tournaments were migrated by a newer version.
        """
        self._db: TournamentDatabase = (SqliteTournamentDatabase(where, read_only=read_only)
                                        if isinstance(where, Path) else where)
        self.where = self._db.where
        self.read_only = self._db.read_only
        if not self.read_only:
            self._mark_interrupted()

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def _one(self, sql: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
        rows = self._db.rows(sql, params)
        return rows[0] if rows else None

    # --- tournaments ---------------------------------------------------------

    def tournaments(self) -> list[tuple[str, TournamentConfig, str]]:
        """Every tournament of the database: name, config and status, newest first (none before any was run)."""
        try:
            rows = self._db.rows("SELECT id, config, status FROM tournaments ORDER BY created_at DESC")
        except self._db.missing:  # a server database no tournament has used yet has no such table
            return []
        return [(r[0], config_from_mapping(json.loads(r[1])), r[2]) for r in rows]

    def begin(self, config: TournamentConfig, *, resume: bool) -> int:
        """Register ``config`` (new) or check it against the stored one (resume); returns matches already stored.

        Raises:
            StoreError: a new tournament whose name exists, or a resume whose config differs or is unknown.
        """
        row = self._one("SELECT fingerprint FROM tournaments WHERE id = ?", (config.name,))
        if row is None:
            if resume:
                raise StoreError(f"no tournament {config.name!r} in {self.where} to resume")
            key, salt = os.environ.get(DECK_KEY_ENV) or secrets.token_hex(DECK_KEY_BYTES), draw_salt()
            committed = commitment(tournament=config.name, seed=config.seed, salt=salt, key=key)
            try:
                self._db.execute(
                    "INSERT INTO tournaments (id, config, fingerprint, status, created_at, deck_key, runner_pid,"
                    " runner_host, deck_salt, deck_commitment, owner_token) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (config.name, json.dumps(config.to_json(), sort_keys=True), config.fingerprint(), "running",
                     time.time(), key, os.getpid(), socket.gethostname(), salt, committed,
                     secrets.token_urlsafe(OWNER_TOKEN_BYTES)))
            except self._db.conflict:  # another runner registered it since the read above
                raise StoreError(f"tournament {config.name!r} was just begun in {self.where} by another runner: "
                                 "use --resume to continue it, or another name (--name)") from None
            return 0
        if not resume and row[0] != config.fingerprint():
            raise StoreError(f"another tournament named {config.name!r} (other entrants or settings) is in "
                             f"{self.where}: give this one another name (--name)")
        if not resume:
            raise StoreError(f"tournament {config.name!r} already exists in {self.where}: "
                             "use --resume to continue it, or another name (--name) or database")
        if row[0] != config.fingerprint():
            raise StoreError(f"tournament {config.name!r} in {self.where} was started with a different config; "
                             "only concurrency may change on --resume")
        self._db.execute("UPDATE tournaments SET status = 'running', runner_pid = ?, runner_host = ? WHERE id = ?",
                         (os.getpid(), socket.gethostname(), config.name))
        return self.count(config.name)

    def _mark_interrupted(self) -> None:
        """Mark ``interrupted`` every tournament left ``running`` by a process that is gone (killed with -9).

        Why at open: a killed process can not mark itself; the next command that opens the database does.
        A process id means something on its own machine only: a tournament whose runner runs (or ran) on
        another machine sharing the database keeps ``running`` until it ends, or is resumed from here.
        ('' is a runner of a version that did not say: this machine, as the SQLite file was.)
        """
        here = socket.gethostname()
        rows = self._db.rows("SELECT id, runner_pid, runner_host FROM tournaments WHERE status = 'running'")
        for tournament_id, pid, host in rows:
            if host in ("", here) and not _alive(pid):
                self._db.execute("UPDATE tournaments SET status = 'interrupted' WHERE id = ? AND status = 'running'",
                                 (tournament_id,))

    def set_status(self, tournament_id: str, status: str) -> None:
        """Mark the tournament ``running``, ``interrupted`` or ``finished``."""
        finished = time.time() if status == "finished" else None
        self._db.execute("UPDATE tournaments SET status = ?, finished_at = ? WHERE id = ?",
                         (status, finished, tournament_id))

    def deck_key(self, tournament_id: str) -> str:
        """The tournament's secret deck key (drawn at :meth:`begin`; '' for one begun by an older version)."""
        row = self._one("SELECT deck_key FROM tournaments WHERE id = ?", (tournament_id,))
        return "" if row is None else str(row[0])

    def deck_key_disclosure(self, tournament_id: str) -> DeckKeyDisclosure | None:
        """What the tournament shows of its deck key: the commitment, and the key and salt once it has ended.

        Why the status decides: until every table has ended (:data:`ENDED_STATUSES`), the key would
        tell an entrant the decks still to come; a resume makes the tournament ``running`` again, so
        it is hidden again until that run ends. None for an unknown tournament.
        """
        try:
            row = self._one("SELECT status, deck_commitment, deck_key, deck_salt FROM tournaments WHERE id = ?",
                            (tournament_id,))
        except self._db.missing:  # read-only, a database of an older version: no commitment column
            return None if self.status(tournament_id) is None else DeckKeyDisclosure(commitment=None)
        if row is None:
            return None
        status, committed, key, salt = row
        if not committed:  # begun by an older version: no commitment was published at its start
            return DeckKeyDisclosure(commitment=None)
        if status not in ENDED_STATUSES:
            return DeckKeyDisclosure(commitment=committed)
        return DeckKeyDisclosure(commitment=committed, key=key, salt=salt)

    def owner_token(self, tournament_id: str) -> str:
        """The tournament's organiser credential: the owner token of every table it creates on a server.

        Drawn at :meth:`begin` (a tournament begun by an older version gets one at its next run), so a
        resumed tournament keeps it. Whoever holds it follows every table of the tournament live and sees
        its whole page while deck sets are still being played (docs/tournament.md).
        """
        row = self._one("SELECT owner_token FROM tournaments WHERE id = ?", (tournament_id,))
        if row is None:
            return ""
        if not row[0] and not self.read_only:
            token = secrets.token_urlsafe(OWNER_TOKEN_BYTES)
            self._db.execute("UPDATE tournaments SET owner_token = ? WHERE id = ? AND owner_token = ''",
                             (token, tournament_id))
            return self.owner_token(tournament_id)
        return str(row[0])

    def status(self, tournament_id: str) -> str | None:
        """The stored status, or None for an unknown tournament."""
        row = self._one("SELECT status FROM tournaments WHERE id = ?", (tournament_id,))
        return None if row is None else str(row[0])

    # --- matches -------------------------------------------------------------

    def save(self, tournament_id: str, spec: MatchSpec, outcome: MatchOutcome) -> bool:
        """Store a completed match in one statement; False when that match id was stored already (kept as it was).

        Why a second save is not an error: a save retried after the database cut the connection may find the
        first one's write committed (the answer was lost, not the row), and a match must count once.
        """
        return self._db.execute(
            "INSERT INTO tournament_matches (tournament_id, match_id, round, deck_set, grp, arrangement, seed, spec,"
            " status, winners, scores, reason, forfeit_by, faults, table_id, duration_s, ended_at, record,"
            " fault_kinds, stderr) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (tournament_id, match_id) DO NOTHING",
            (tournament_id, spec.match_id, spec.round, spec.deck_set, spec.group, spec.arrangement, spec.seed,
             json.dumps(spec.to_json()), outcome.status, json.dumps(list(outcome.winners)),
             json.dumps(list(outcome.scores)), outcome.reason, outcome.forfeit_by, json.dumps(dict(outcome.faults)),
             outcome.table_id, outcome.duration_s, time.time(),
             json.dumps(dict(outcome.record), separators=(",", ":")),
             json.dumps({name: dict(kinds) for name, kinds in outcome.fault_kinds.items()}),
             json.dumps(dict(outcome.stderr)))) == 1

    def forget_unplayed(self, tournament_id: str, reason_prefix: str) -> int:
        """Delete the matches stored as errors whose reason starts with ``reason_prefix``; returns how many.

        Why: such a match was not played (the machinery failed, not a bot), so a resume plays it again.
        """
        return self._db.execute(
            "DELETE FROM tournament_matches WHERE tournament_id = ? AND status = 'error'"
            " AND substr(reason, 1, ?) = ?", (tournament_id, len(reason_prefix), reason_prefix))

    def done_ids(self, tournament_id: str) -> set[str]:
        """Ids of the matches stored."""
        rows = self._db.rows("SELECT match_id FROM tournament_matches WHERE tournament_id = ?", (tournament_id,))
        return {r[0] for r in rows}

    def count(self, tournament_id: str) -> int:
        """Number of matches stored."""
        row = self._one("SELECT COUNT(*) FROM tournament_matches WHERE tournament_id = ?", (tournament_id,))
        return int(row[0]) if row else 0

    def matches(self, tournament_id: str, *, with_records: bool = False) -> list[StoredMatch]:
        """Every stored match, in schedule order (round, deck set, group, arrangement)."""
        return list(self.iter_matches(tournament_id, with_records=with_records))

    def iter_matches(self, tournament_id: str, *, with_records: bool = False) -> Iterator[StoredMatch]:
        """:meth:`matches`, one at a time (records, and the bots' stderr that comes with them, are large)."""
        kinds, stderr = ("fault_kinds", "stderr" if with_records else "'{}'") if self._has_fault_columns() \
            else ("'{}'", "'{}'")
        rows = self._db.iterate(
            "SELECT spec, match_id, status, winners, scores, reason, forfeit_by, faults, table_id, duration_s,"
            f" {'record' if with_records else 'NULL'}, {kinds}, {stderr} FROM tournament_matches"
            " WHERE tournament_id = ? ORDER BY round, deck_set, grp, arrangement", (tournament_id,))
        for r in rows:
            yield StoredMatch(spec=MatchSpec.from_json(json.loads(r[0])), outcome=MatchOutcome(
                match_id=r[1], status=r[2], winners=tuple(json.loads(r[3])), scores=tuple(json.loads(r[4])),
                reason=r[5], forfeit_by=r[6], faults=json.loads(r[7]), table_id=r[8], duration_s=r[9],
                record=json.loads(r[10]) if r[10] is not None else {}, fault_kinds=json.loads(r[11]),
                stderr=json.loads(r[12])))

    def _has_fault_columns(self) -> bool:
        """Whether the matches have their faults by kind and stderr (an older database opened read-only may not)."""
        try:
            self._db.rows("SELECT fault_kinds, stderr FROM tournament_matches WHERE 1 = 0")
        except self._db.missing:
            return False
        return True

    def record(self, tournament_id: str, match_id: str) -> Mapping[str, Any] | None:
        """The record of one match, or None."""
        row = self._one("SELECT record FROM tournament_matches WHERE tournament_id = ? AND match_id = ?",
                        (tournament_id, match_id))
        return None if row is None else dict(json.loads(row[0]))
