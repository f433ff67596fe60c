"""A tournament's SQLite file on a full disk: the results wait for space, none is lost, none counts twice.

The disk is filled for real as SQLite sees it: the store's own connection is capped at the pages
its file has (``PRAGMA max_page_count``), so the next match's write fails inside SQLite with
``database or disk is full`` (``SQLITE_FULL``), the error a full disk gives; lifting the cap is
the space coming back.

- Space freed while the runner waits: the tournament finishes, every match stored once, and the
  runner warned at each retry.
- Never freed within ``database_patience_s``: the run stops with an error that says the disk is
  full and how to go on; the matches stored before are kept, and once there is space a resume
  stores the rest, every match once.
- The exports' disk full (``tricktable tournament`` on the command line; the records file
  written onto ``/dev/full``, which fails every write with ``ENOSPC``): one ``error:`` line,
  exit status 2, the export written before left whole, no file cut short; ``--resume`` writes
  them once there is room.

No verdict on speed: the waits are the engine's own, bounded by the patience.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import structlog
from typer.testing import CliRunner

from tests.tournament.helpers import RiggedRunner, config
from tricktable.cli.main import app
from tricktable.tournament.config import TournamentConfig
from tricktable.tournament.engine import ThreadDispatcher, Tournament
from tricktable.tournament.entrants import EntrantSpec
from tricktable.tournament.runner import MatchOutcome
from tricktable.tournament.schedule import MatchSpec
from tricktable.tournament.sqlite_store import FileUnwritableError, SqliteTournamentDatabase
from tricktable.tournament.store import TournamentStore
from tricktable.tournament.store_errors import StoreUnreachableError

MATCHES = 6
#: A record this size needs pages of its own, so a capped file can not take it in the space it has free.
RECORD_PADDING = 20_000


class _LargeRecords(RiggedRunner):
    """The rigged runner's results, each with a record as large as a real match's."""

    def run(self, spec: MatchSpec, entrants: Mapping[str, EntrantSpec]) -> MatchOutcome:
        outcome = super().run(spec, entrants)
        return MatchOutcome(match_id=outcome.match_id, status=outcome.status, winners=outcome.winners,
                            scores=outcome.scores, reason=outcome.reason, faults=outcome.faults,
                            record={"match": spec.match_id, "padding": "x" * RECORD_PADDING})


class _FillingDisk(SqliteTournamentDatabase):
    """A SQLite file whose disk fills before match ``fill_at``'s write, and frees after ``free_after`` failures.

    ``free_after=None``: the space never comes back.
    """

    def __init__(self, path: Path, *, fill_at: int, free_after: int | None) -> None:
        super().__init__(path)
        self.fill_at = fill_at
        self.free_after = free_after
        self.saves_tried = 0
        self.failures: list[str] = []

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        if sql.startswith("INSERT INTO tournament_matches"):
            self.saves_tried += 1
            if self.saves_tried == self.fill_at:
                self._cap(at_pages=self._pages())
            if self.free_after is not None and len(self.failures) >= self.free_after:
                self._cap(at_pages=None)
        try:
            return super().execute(sql, params)
        except FileUnwritableError as full:
            self.failures.append(str(full))
            raise

    def _pages(self) -> int:
        return int(self._db.execute("PRAGMA page_count").fetchone()[0])

    def _cap(self, *, at_pages: int | None) -> None:
        self._db.execute(f"PRAGMA max_page_count = {at_pages if at_pages is not None else 2**31 - 2}")


def _tournament(cfg: TournamentConfig, store: TournamentStore) -> Tournament:
    runner = _LargeRecords({"random": 1, "first-legal": 2})
    return Tournament(cfg, store, ThreadDispatcher(runner, {e.name: e for e in cfg.entrants}))


def test_a_full_disk_freed_while_the_runner_waits_loses_no_result(tmp_path: Path) -> None:
    cfg = config(name="full-then-freed", games=MATCHES, database_patience_s=60.0)
    disk = _FillingDisk(tmp_path / "t.sqlite3", fill_at=3, free_after=2)
    store = TournamentStore(disk)
    try:
        with structlog.testing.capture_logs() as logs:
            stats = asyncio.run(_tournament(cfg, store).run())
        assert len(disk.failures) == 2
        assert all("database or disk is full" in failure for failure in disk.failures)
        retries = [entry for entry in logs if entry["event"] == "tournament database unreachable; retrying"]
        assert len(retries) == 2 and all("disk is full" in entry["error"] for entry in retries)
        assert stats.played == stats.scheduled == store.count(cfg.name) == len(store.done_ids(cfg.name))
        assert store.status(cfg.name) == "finished"
        assert all(len(stored.outcome.record["padding"]) == RECORD_PADDING
                   for stored in store.matches(cfg.name, with_records=True))
    finally:
        store.close()


def test_a_disk_full_past_the_patience_stops_saying_so_and_resume_stores_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    cfg = config(name="full-for-good", games=MATCHES, database_patience_s=1.0)
    disk = _FillingDisk(path, fill_at=3, free_after=None)
    store = TournamentStore(disk)
    try:
        with pytest.raises(StoreUnreachableError) as stopped:
            asyncio.run(_tournament(cfg, store).run())
        message = str(stopped.value)
        assert "database or disk is full" in message and str(path) in message and "--resume" in message
        assert disk.failures
    finally:
        store.close()
    with sqlite3.connect(path) as db:  # the matches stored before the disk filled are kept, each once
        kept = db.execute("SELECT match_id, COUNT(*) FROM tournament_matches GROUP BY match_id").fetchall()
    assert len(kept) == 2 and all(count == 1 for _match, count in kept)

    store = TournamentStore(path)  # space again
    try:
        stats = asyncio.run(_tournament(cfg, store).run(resume=True))
        assert stats.scheduled == MATCHES
        assert store.count(cfg.name) == len(store.done_ids(cfg.name)) == MATCHES
        assert store.status(cfg.name) == "finished"
    finally:
        store.close()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (a device every write to fails: ENOSPC)")
def test_exports_on_a_full_disk_fail_with_one_line_and_leave_no_file_cut_short(tmp_path: Path) -> None:
    out = tmp_path / "out"
    command = ["tournament", "--game", "all_fives", "--bots", "random,first-legal", "--games", "2", "--name",
               "exports-full", "--runner", "local", "--db", str(tmp_path / "t.sqlite3"), "--out", str(out),
               "--no-progress"]
    first = CliRunner().invoke(app, command)
    assert first.exit_code == 0, first.output
    records = out / "records.jsonl"
    whole = records.read_bytes()
    assert whole.count(b"\n") == 2

    (out / "records.jsonl.partial").symlink_to("/dev/full")  # where the next records file is written: no room
    full = CliRunner().invoke(app, [*command, "--resume"])
    assert full.exit_code == 2, full.output
    assert full.exception is None or isinstance(full.exception, SystemExit)
    errors = [line for line in full.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "No space left on device" in errors[0] and "--resume" in errors[0], full.output
    assert "Traceback" not in full.output
    assert records.read_bytes() == whole  # the earlier export, whole
    assert not list(out.glob("*.partial"))

    again = CliRunner().invoke(app, [*command, "--resume"])
    assert again.exit_code == 0, again.output
    assert records.read_bytes().count(b"\n") == 2 and (out / "matches.csv").is_file()
