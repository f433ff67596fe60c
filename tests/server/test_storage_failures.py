"""Writes that fail (as on a full disk), made to fail by SQLite triggers: no new tables, held ends, kept records.

The end-to-end test on a real full file system is ``tests/server/test_full_disk.py`` (it needs root to mount a
tmpfs); these run anywhere, on the lobby, its tables, journal and record store without the network.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
import structlog
from structlog.testing import capture_logs

from tests.server.test_journal import CLOCKS, Server, play_moves, started_table
from tricktable.server import lobby as lobby_module
from tricktable.server.errors import StorageUnavailableError, TableNotOverError
from tricktable.server.events import Event, TableEnded
from tricktable.server.journal import JOURNAL_NAME
from tricktable.server.limits import Limits
from tricktable.server.lobby import Lobby
from tricktable.server.storage import DB_NAME, Storage
from tricktable.server.store_health import JOURNAL, RECORDS
from tricktable.server.tables import Table

FULL = "database or disk is full"


def fail_writes(database: Path, table: str, *kinds: str) -> None:
    """Make every ``kinds`` (INSERT, DELETE) on ``table`` of ``database`` fail, as a full disk would."""
    with closing(sqlite3.connect(database, isolation_level=None)) as db:
        for kind in kinds:
            db.execute(f"CREATE TRIGGER fail_{kind.lower()} BEFORE {kind} ON {table}"
                       f" BEGIN SELECT RAISE(ABORT, '{FULL}'); END")


def allow_writes(database: Path, *kinds: str) -> None:
    with closing(sqlite3.connect(database, isolation_level=None)) as db:
        for kind in kinds:
            db.execute(f"DROP TRIGGER fail_{kind.lower()}")


def ended_events(table: Table, audience: int | None) -> list[Event]:
    return [e for e in table._log(audience) if isinstance(e.body, TableEnded)]


async def until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.01)


async def test_a_table_the_journal_lost_part_of_holds_its_end_until_the_journal_holds_none_of_it(
        tmp_path: Path) -> None:
    server = Server(tmp_path)
    table, _ = await started_table(server)
    play_moves(table, 4)
    server.journal.commit()  # the moves' group, which holds the file's write lock until the loop's next turn
    fail_writes(tmp_path / JOURNAL_NAME, "steps", "INSERT", "DELETE")
    play_moves(table, 1)  # its journal write fails, and so does the delete of what the journal holds of it
    assert table.id in server.journal.stale and server.lobby.health.failing(JOURNAL)
    with pytest.raises(StorageUnavailableError, match="storage unavailable: journal"):
        server.lobby.create_table(game="all_fives", options={"players": 2})
    while not table.is_over:
        play_moves(table, 1)
    assert table.end_held and all(not ended_events(table, a) for a in (0, 1, None))
    with pytest.raises(TableNotOverError):
        await server.lobby.record(table.id)
    await server.lobby.check_storage_once()  # the delete fails again: still held
    assert table.end_held

    allow_writes(tmp_path / JOURNAL_NAME, "INSERT", "DELETE")
    await server.lobby.check_storage_once()
    assert not table.end_held and all(len(ended_events(table, a)) == 1 for a in (0, 1, None))
    assert server.lobby.health.writable and server.journal.tables() == []  # a restart resumes nothing of it
    await until(lambda: server.lobby.unstored() == 0)
    assert server.storage.record(table.id) == table.record
    server.lobby.create_table(game="all_fives", options={"players": 2})  # tables again
    server.crash()


async def test_records_that_fail_to_be_stored_are_kept_and_stored_once_the_store_writes(tmp_path: Path) -> None:
    server = Server(tmp_path)
    fail_writes(tmp_path / DB_NAME, "tables", "INSERT")
    table, _ = await started_table(server)
    while not table.is_over:
        play_moves(table, 1)
    assert len(ended_events(table, 0)) == 1  # the journal holds every move: the end goes out at once
    await until(lambda: server.lobby.health.failing(RECORDS))
    assert server.lobby.unstored() == 1 and server.storage.record(table.id) is None
    assert await server.lobby.record(table.id) == table.record  # kept in memory, still served
    with pytest.raises(StorageUnavailableError, match="storage unavailable: records"):
        server.lobby.create_table(game="all_fives", options={"players": 2})
    await server.lobby.check_storage_once()  # tried again, fails again, kept
    await until(lambda: server.lobby._storer is None)
    assert server.lobby.unstored() == 1

    allow_writes(tmp_path / DB_NAME, "INSERT")
    await server.lobby.check_storage_once()
    await until(lambda: server.lobby.unstored() == 0)
    assert server.storage.record(table.id) == table.record and server.lobby.health.writable
    server.crash()


async def test_a_shutdown_that_can_not_store_a_record_leaves_its_table_for_the_next_start_to_store(
        tmp_path: Path) -> None:
    server = Server(tmp_path)
    fail_writes(tmp_path / DB_NAME, "tables", "INSERT")
    table, _ = await started_table(server, seed="kept-for-the-next-start")
    while not table.is_over:
        play_moves(table, 1)
    await server.lobby.shutdown(drain_seconds=0)  # tries for a while, then gives up on it
    await server.lobby.drain(patience=0.2)
    assert server.lobby.unstored() == 1 and server.journal.count() == 1
    server.crash()
    allow_writes(tmp_path / DB_NAME, "INSERT")

    again = Server(tmp_path)
    (replayed,) = again.lobby.resume()
    assert replayed.is_over and replayed.record == table.record
    await again.lobby.drain()
    assert again.storage.record(table.id) == replayed.record and again.journal.count() == 0
    again.crash()


async def test_a_shutdown_without_a_journal_says_the_records_it_could_not_store_are_lost(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tournament's in-process server has no journal: its log must not promise one."""
    monkeypatch.setattr(lobby_module, "log", structlog.get_logger("tricktable.lobby"))  # reached by capture_logs
    storage = Storage(tmp_path).open()
    lobby = Lobby(storage, time_control=CLOCKS, limits=Limits(retain_seconds=60))
    fail_writes(tmp_path / DB_NAME, "tables", "INSERT")
    table, _tokens = lobby.create_table(game="all_fives", options={"players": 2}, seed="no-journal")
    for seat in range(2):
        table.connect(seat, f"bot-{seat}")
    while not table.is_over:
        play_moves(table, 1)
    with capture_logs() as lines:
        await lobby.shutdown(drain_seconds=0)
        await lobby.drain(patience=0.2)
    given_up = [line for line in lines if line["log_level"] == "error" and line.get("table") == table.id]
    assert given_up and {line["event"] for line in given_up} == {"record not stored at shutdown and lost: no journal"}
    storage.close()


async def test_ended_twins_not_read_while_the_store_is_away_is_a_warning_and_read_again_later(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unreachable store is expected (the keeper says so): one warning line, no traceback, and the next ask reads."""
    monkeypatch.setattr(lobby_module, "log", structlog.get_logger("tricktable.lobby"))
    server = Server(tmp_path)
    real = server.storage.ended_twins

    def away(key: str) -> set[int]:
        raise StorageUnavailableError("storage unavailable: records: the database can not be reached")

    monkeypatch.setattr(server.storage, "ended_twins", away)
    with capture_logs() as lines:
        await server.lobby._read_ended("twin-key-of-test")
    (line,) = [line for line in lines if line["event"].startswith("ended twins not read")]
    assert line["log_level"] == "warning" and "exc_info" not in line
    assert "the database can not be reached" in line["error"]
    assert server.lobby._ended_indexes("twin-key-of-test") is None  # the seal holds
    monkeypatch.setattr(server.storage, "ended_twins", real)
    await server.lobby._read_ended("twin-key-of-test")
    assert server.lobby._ended_indexes("twin-key-of-test") == set()
    server.crash()


async def test_no_table_is_created_while_as_many_records_as_allowed_wait(tmp_path: Path) -> None:
    server = Server(tmp_path)
    server.lobby.limits = Limits(max_unstored_records=1)
    table, _ = await started_table(server)
    while not table.is_over:
        play_moves(table, 1)
    with pytest.raises(StorageUnavailableError, match="1 records wait to be stored"):
        server.lobby.create_table(game="all_fives", options={"players": 2})
    await until(lambda: server.lobby.unstored() == 0)
    server.lobby.create_table(game="all_fives", options={"players": 2})
    server.crash()
