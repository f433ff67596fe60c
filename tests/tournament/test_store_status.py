"""The tournament store on both backends: a status row that tells the truth after a kill, and versioned schemas."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
from contextlib import closing

import pytest

from tests.tournament.conftest import StoreBackend
from tests.tournament.helpers import config
from tricktable.server.storage import SchemaVersionError, Storage
from tricktable.tournament import sqlite_store
from tricktable.tournament.store import TournamentStore, tournament_store
from tricktable.tournament.store_errors import StoreError


def gone_pid() -> int:
    """The pid of a process that has exited."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    return int(done.stdout)


def test_a_tournament_left_running_by_a_killed_process_is_marked_interrupted_on_next_open(stores: StoreBackend):
    store = stores.open()
    store.begin(config(), resume=False)  # "running", as a kill -9 leaves it
    store.close()
    stores.sql("tricktable", "UPDATE tournaments SET runner_pid = ?", (gone_pid(),))  # ... by a process gone since
    again = stores.open()
    assert again.status("t") == "interrupted"
    again.begin(config(), resume=True)  # --resume runs it again, in this (living) process
    again.close()
    assert stores.open().status("t") == "running"


def test_a_tournament_whose_runner_is_on_another_machine_keeps_running(stores: StoreBackend):
    """A pid says nothing of a process on another machine sharing the database: its tournament is left alone."""
    store = stores.open()
    store.begin(config(), resume=False)
    store.close()
    stores.sql("tricktable", "UPDATE tournaments SET runner_pid = ?, runner_host = ?",
               (gone_pid(), f"not-{socket.gethostname()}"))
    assert stores.open().status("t") == "running"


def test_a_read_only_store_on_a_database_no_tournament_used_lists_none(stores: StoreBackend):
    if stores.postgres is None:
        Storage(stores.folder).open().close()  # the server's file, without tournament tables
        store = TournamentStore(stores.folder / "tricktable.sqlite3", read_only=True)
    else:
        store = stores.open(read_only=True)
    assert store.tournaments() == []
    store.close()


def test_a_read_only_store_can_not_write(stores: StoreBackend):
    stores.open().close()
    reader = stores.open(read_only=True)
    with pytest.raises(Exception, match=r"(?i)read.only|readonly"):
        reader.begin(config(), resume=False)
    reader.close()


def test_a_database_whose_tournaments_a_newer_version_migrated_is_refused(stores: StoreBackend):
    stores.open().close()
    stores.sql("tricktable", "INSERT INTO tournament_schema_version (version, applied_at) VALUES (?, ?)", (99, 0.0))
    with pytest.raises(SchemaVersionError, match="schema version 99"):
        stores.open()


def test_a_second_open_migrates_nothing_and_keeps_what_is_stored(stores: StoreBackend):
    store = stores.open()
    store.begin(config(), resume=False)
    store.close()
    again = stores.open()
    assert again.status("t") == "running"
    again.close()


def test_a_file_from_before_the_versions_is_migrated_and_keeps_its_tournaments(tmp_path):
    """A server file whose tournament tables predate the versions (no version table, no runner host)."""
    db = tmp_path / "tricktable.sqlite3"
    with closing(sqlite3.connect(db)) as con, con:
        for statement in sqlite_store._FIRST_SCHEMA:  # the tables as released before the versions
            con.execute(statement)
        con.execute("INSERT INTO tournaments (id, config, fingerprint, status, created_at, runner_pid)"
                    " VALUES ('old', '{}', 'f', 'finished', 1.0, NULL)")
    store = TournamentStore(db)
    assert store.status("old") == "finished"
    store.close()
    with closing(sqlite3.connect(db)) as con:
        versions = [row[0] for row in con.execute("SELECT version FROM tournament_schema_version ORDER BY version")]
        columns = {row[1] for row in con.execute("PRAGMA table_info(tournaments)")}
    assert versions == list(range(1, len(sqlite_store.MIGRATIONS) + 1)) and "runner_host" in columns


def test_the_record_store_and_the_tournaments_keep_their_versions_apart_in_one_file(tmp_path):
    """One SQLite file, two schemas: the records' version in user_version, the tournaments' in a table."""
    Storage(tmp_path).open().close()
    TournamentStore(tmp_path / "tricktable.sqlite3").close()
    Storage(tmp_path).open().close()  # neither refuses the other's file
    with closing(sqlite3.connect(tmp_path / "tricktable.sqlite3")) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] > 0
        assert con.execute("SELECT MAX(version) FROM tournament_schema_version").fetchone()[0] == len(
            sqlite_store.MIGRATIONS)


def test_a_database_url_that_is_not_postgresql_is_refused_without_showing_it(tmp_path):
    with pytest.raises(ValueError, match=r"^--database-url must begin with postgresql:// or postgres://, not mysql:$"):
        tournament_store(tmp_path / "x.sqlite3", "mysql://root:secret@db/x")


def test_an_unreachable_postgresql_is_a_store_error_naming_the_database_not_its_password(tmp_path, postgres):
    url = f"postgresql://tricktable:secret@/nothing?host={tmp_path}&port=1"
    with pytest.raises(StoreError) as refused:
        tournament_store(tmp_path / "x.sqlite3", url)
    assert "nothing" in str(refused.value) and "secret" not in str(refused.value)
