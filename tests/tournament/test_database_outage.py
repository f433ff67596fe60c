"""The tournament's PostgreSQL going away mid-tournament: ``tricktable tournament`` as a real process, a real cluster.

The cluster (this module's own, so stopping it disturbs no other test) is stopped with
``pg_ctl stop -m fast`` (every connection cut) while the server runner plays, its in-process
server keeping its records in the same database.

- Started again once the runner has retried a store call three times: the tournament finishes, every match
  is stored exactly once, and the server stored every table's record.
- Never started again within ``database_patience_s``: the runner stops with one ``error:`` line
  (no traceback); once the database is back, ``--resume`` finishes the tournament, every match once,
  each with its table's record.
- A save whose write landed but whose answer was lost (the connection cut after the commit) is
  retried and counts once, on SQLite and on PostgreSQL (in process, a rigged runner).
- A database that goes away between the end of the run and the report: one ``error:`` line, exit 2,
  no traceback; the same command with ``--resume`` reports the tournament once it is back.
- A save that holds its thread (as a write to a host that drops packets does, for its timeouts) leaves the
  tournament's event loop running: a heartbeat task on it beats meanwhile, and every store call of the run
  is made from one thread that is not the loop's.

No verdict on speed: every wait is a condition polled under a bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bench.postgres_cluster import PostgresCluster, running_cluster
from tests.conftest import need_postgres
from tests.tournament.conftest import StoreBackend
from tests.tournament.helpers import RiggedRunner, config
from tests.tournament.test_cli import CLI, ROOT, RUN_BOUND, tournament
from tests.tournament.test_postgres import records, stored
from tricktable.cli.main import app
from tricktable.tournament.engine import ThreadDispatcher, Tournament
from tricktable.tournament.sqlite_store import SqliteTournamentDatabase
from tricktable.tournament.store import TournamentDatabase, TournamentStore
from tricktable.tournament.store_errors import StoreUnreachableError

pytestmark = pytest.mark.timeout(4 * RUN_BOUND + 120)

MATCHES = 8
#: What the runner says at each retry (a structlog warning on its stderr).
RETRY_WARNING = "tournament database unreachable"


def _config(name: str, patience_s: float) -> str:
    return (f'name = "{name}"\ngame = "all_fives"\ngames = {MATCHES}\nseed = "{name}"\nconcurrency = 2\n'
            f'entrants = ["random", "first-legal"]\ndatabase_patience_s = {patience_s}\n')


@pytest.fixture
def own_cluster() -> Iterator[PostgresCluster]:
    need_postgres()
    with running_cluster() as cluster:
        yield cluster


def _until(condition: object, bound: float, what: str) -> None:
    deadline = time.monotonic() + bound
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {bound:g} s")
        time.sleep(0.1)


def _times_stored(url: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        rows = db.execute("SELECT match_id, COUNT(*) FROM tournament_matches GROUP BY match_id").fetchall()
    return {str(match_id): int(n) for match_id, n in rows}


def _record_sizes(url: str) -> dict[str, int]:
    """Each stored match's record, in characters of JSON beyond an empty one."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        rows = db.execute("SELECT match_id, record FROM tournament_matches").fetchall()
    return {str(match_id): len(json.loads(record)) for match_id, record in rows}


@contextlib.contextmanager
def _running_while_stopped(cluster: PostgresCluster, name: str, patience_s: float,
                           tmp_path: Path) -> Iterator[tuple[Path, str, Path, subprocess.Popen[bytes]]]:
    """The runner as its own process on a fresh database, that database's cluster stopped once two matches are
    stored; yields the config, the database URL, the runner's stderr log and the process (killed on the way out).

    Its entrants are built-in bots, trusted: this is about the database.
    """
    config = tmp_path / f"{name}.toml"
    config.write_text(_config(name, patience_s))
    url = cluster.create_database()
    log = tmp_path / "stderr.log"
    with log.open("ab") as err:
        proc = subprocess.Popen([*CLI, str(config), "--database-url", url, "--data-dir", str(tmp_path / "data"),
                                 "--out", str(tmp_path / "out"), "--no-progress", "--trusted-entrants"],
                                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
    try:
        _until(lambda: stored(url) >= 2 or proc.poll() is not None, RUN_BOUND, "two matches stored")
        assert proc.poll() is None, "the tournament ended before the database could be stopped"
        cluster.stop()
        yield config, url, log, proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)


def test_a_tournament_rides_out_its_database_restarting_and_stores_every_match_once(
        own_cluster: PostgresCluster, tmp_path: Path) -> None:
    with _running_while_stopped(own_cluster, "db-restart", 300.0, tmp_path) as (_, url, log, proc):
        # Away long enough for one store call to be tried three times (0.5 + 1 + 2 s of backoff at the least).
        _until(lambda: '"attempt": 3' in log.read_text() or proc.poll() is not None, RUN_BOUND, "third retry")
        own_cluster.start()
        assert proc.wait(timeout=RUN_BOUND) == 0, log.read_text()[-3000:]
    text = log.read_text()
    assert RETRY_WARNING in text and "Traceback" not in text, text[-3000:]
    assert _times_stored(url) and set(_times_stored(url).values()) == {1}
    assert len(_times_stored(url)) == MATCHES
    assert records(url) >= MATCHES  # the server stored every table it played, the outage's too


def test_a_database_away_past_the_patience_stops_with_one_line_and_resume_finishes(
        own_cluster: PostgresCluster, tmp_path: Path) -> None:
    with _running_while_stopped(own_cluster, "db-away", 3.0, tmp_path) as (config, url, log, proc):
        code = proc.wait(timeout=RUN_BOUND)
    text = log.read_text()
    assert code == 2, text[-3000:]
    assert "Traceback" not in text, text[-3000:]
    errors = [line for line in text.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "database_patience_s" in errors[0], text[-3000:]
    own_cluster.start()
    before = _times_stored(url)
    resumed = tournament(str(config), "--database-url", url, "--data-dir", str(tmp_path / "data"), "--out",
                         str(tmp_path / "out"), "--no-progress", "--trusted-entrants", "--resume", timeout=RUN_BOUND)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    after = _times_stored(url)
    assert len(after) == MATCHES and set(after.values()) == {1}
    assert before.items() <= after.items()
    # Every match stored has its table's record with it, those of the run that stopped included.
    assert all(n > 0 for n in _record_sizes(url).values())


class _Wrapping:
    """A store's database passed through to ``db``, noting the threads it is called from."""

    def __init__(self, db: TournamentDatabase) -> None:
        self.db = db
        self.where, self.read_only, self.missing, self.conflict = db.where, db.read_only, db.missing, db.conflict
        self.threads: set[int] = set()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        self.threads.add(threading.get_ident())
        return self.db.execute(sql, params)

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self.threads.add(threading.get_ident())
        return self.db.rows(sql, params)

    def iterate(self, sql: str, params: Sequence[Any] = ()) -> Iterator[tuple[Any, ...]]:
        self.threads.add(threading.get_ident())
        return self.db.iterate(sql, params)

    def close(self) -> None:
        self.db.close()


class _AnswerLostOnce(_Wrapping):
    """A store's database whose first write of a match lands, then fails as if the connection was cut after it."""

    def __init__(self, db: TournamentDatabase) -> None:
        super().__init__(db)
        self.lost = 0

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        changed = super().execute(sql, params)
        if sql.startswith("INSERT INTO tournament_matches") and not self.lost:
            self.lost += 1
            raise StoreUnreachableError("the connection was cut before the answer came")
        return changed


#: Beats of the loop's heartbeat a stalled save waits for before it goes on.
STALL_BEATS = 5
#: How long a stalled save waits for them at most: a save that blocks the loop waits all of it, with no beat.
STALL_BOUND_S = 20.0
HEARTBEAT_S = 0.05


class _StallsASave(_Wrapping):
    """A store's database whose first write of a match holds its thread until the loop's heartbeat beat meanwhile.

    As a write to a database host that drops packets holds its thread for its timeouts. Held until
    :data:`STALL_BEATS` beats or :data:`STALL_BOUND_S` seconds, whichever comes first: a condition
    polled under a bound, so the verdict (beats counted during the stall) does not depend on the
    machine's speed.
    """

    def __init__(self, db: TournamentDatabase, beats: Callable[[], int]) -> None:
        super().__init__(db)
        self.beats = beats
        self.beats_during_the_stall: int | None = None

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        if sql.startswith("INSERT INTO tournament_matches") and self.beats_during_the_stall is None:
            first = self.beats()
            deadline = time.monotonic() + STALL_BOUND_S
            while self.beats() - first < STALL_BEATS and time.monotonic() < deadline:
                time.sleep(0.01)
            self.beats_during_the_stall = self.beats() - first
        return super().execute(sql, params)


def _database(stores: StoreBackend, name: str) -> TournamentDatabase:
    url = stores.url(name)
    if url is None:
        return SqliteTournamentDatabase(stores.path(name))
    from tricktable.tournament.pg_store import PostgresTournamentDatabase

    return PostgresTournamentDatabase(url)


def test_a_save_whose_answer_was_lost_is_retried_and_counts_once(stores: StoreBackend) -> None:
    cfg = config(name="answer-lost", games=4, database_patience_s=30.0)
    flaky = _AnswerLostOnce(_database(stores, "answer-lost"))
    store = TournamentStore(flaky)
    try:
        tournament = Tournament(cfg, store, ThreadDispatcher(RiggedRunner({"random": 1, "first-legal": 2}),
                                                             {e.name: e for e in cfg.entrants}))
        stats = asyncio.run(tournament.run())
        assert flaky.lost == 1
        assert stats.played == stats.scheduled == store.count(cfg.name) == len(store.done_ids(cfg.name))
        assert store.status(cfg.name) == "finished"
    finally:
        store.close()


def test_a_save_that_holds_its_thread_leaves_the_loop_running(stores: StoreBackend) -> None:
    cfg = config(name="stalled", games=4)
    beats = [0]
    stalling = _StallsASave(_database(stores, "stalled"), lambda: beats[0])
    store = TournamentStore(stalling)
    stalling.threads.clear()  # the store's opening (from this thread, before the run) is not the run's

    async def run_beside_a_heartbeat() -> tuple[int, set[int]]:
        async def heartbeat() -> None:
            while True:
                await asyncio.sleep(HEARTBEAT_S)
                beats[0] += 1

        beating = asyncio.create_task(heartbeat())
        try:
            tournament = Tournament(cfg, store, ThreadDispatcher(RiggedRunner({"random": 1, "first-legal": 2}),
                                                                 {e.name: e for e in cfg.entrants}))
            stats = await tournament.run()
        finally:
            beating.cancel()
        return stats.played, set(stalling.threads)

    try:
        played, threads = asyncio.run(run_beside_a_heartbeat())
        assert stalling.beats_during_the_stall is not None and stalling.beats_during_the_stall >= STALL_BEATS
        assert played == store.count(cfg.name) == len(store.done_ids(cfg.name))
        assert store.status(cfg.name) == "finished"
        # Every store call of the run, the first (begin) to the last (its end), from one thread, not the loop's.
        assert len(threads) == 1 and threading.get_ident() not in threads
    finally:
        store.close()


class _GoneForTheReport(TournamentStore):
    """A store whose database goes away once the run has ended: the report's read of the tournament fails."""

    def status(self, tournament_id: str) -> str | None:
        raise StoreUnreachableError("db.example/tricktable can not be reached: timeout expired")


def test_a_database_gone_before_the_report_is_one_line_and_resume_reports(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "db.sqlite3"
    command = ["tournament", "--game", "all_fives", "--bots", "random,first-legal", "--games", "2", "--name", "gone",
               "--runner", "local", "--db", str(db), "--out", str(tmp_path / "out"), "--no-progress"]
    with monkeypatch.context() as patched:
        patched.setattr("tricktable.tournament.store.tournament_store",
                        lambda path, url=None, *, read_only=False: _GoneForTheReport(path, read_only=read_only))
        gone = CliRunner().invoke(app, command)
    assert gone.exit_code == 2, gone.output
    assert not isinstance(gone.exception, StoreUnreachableError) and "Traceback" not in gone.output
    errors = [line for line in gone.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "can not be reached" in errors[0] and "--resume" in errors[0], gone.output
    back = TournamentStore(db)
    try:
        assert back.status("gone") == "finished" and back.count("gone") == 2
    finally:
        back.close()
    reported = CliRunner().invoke(app, [*command, "--resume"])
    assert reported.exit_code == 0, reported.output
    assert "exports:" in reported.output and (tmp_path / "out").is_dir()
