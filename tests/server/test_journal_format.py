"""The journal's format across versions: an older journal resumes, a newer one is refused with what to do."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest

from tests.server.restarts import CLI
from tests.server.test_journal import Server, play_moves, started_table
from tricktable.server.app import GameServer, ServerConfig
from tricktable.server.journal import JOURNAL_FORMAT, JOURNAL_NAME, JournalFormatError


def journal_format(data_dir: Path) -> int:
    with closing(sqlite3.connect(data_dir / JOURNAL_NAME)) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


def mark_format(data_dir: Path, version: int) -> None:
    with closing(sqlite3.connect(data_dir / JOURNAL_NAME, isolation_level=None)) as db:
        db.execute(f"PRAGMA user_version = {version}")


async def journaled_running_table(data_dir: Path) -> tuple[str, int]:
    """A table left running in the journal by a crash; its id and the moves it had played."""
    server = Server(data_dir)
    table, _ = await started_table(server)
    play_moves(table, 6)
    server.journal.commit()
    server.crash()
    return table.id, table.actions_played


async def test_a_journal_from_before_the_formats_were_marked_resumes_and_is_marked(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    table_id, played = await journaled_running_table(data_dir)
    mark_format(data_dir, 0)  # what every version before the mark left
    again = Server(data_dir)
    assert [t.id for t in again.lobby.resume()] == [table_id]
    resumed = again.lobby.table(table_id)
    assert resumed.actions_played == played and not resumed.is_over
    assert journal_format(data_dir) == JOURNAL_FORMAT
    again.crash()


async def test_a_journal_of_a_newer_format_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    await journaled_running_table(data_dir)
    mark_format(data_dir, JOURNAL_FORMAT + 1)
    before = (data_dir / JOURNAL_NAME).read_bytes()
    server = GameServer(ServerConfig(host="127.0.0.1", port=0, data_dir=data_dir))
    with pytest.raises(JournalFormatError, match=rf"holds running tables in journal format {JOURNAL_FORMAT + 1}, "
                                                 rf"and this version of tricktable reads format {JOURNAL_FORMAT} "
                                                 "at most: start the version that wrote it"):
        await server.start()
    assert (data_dir / JOURNAL_NAME).read_bytes() == before and journal_format(data_dir) == JOURNAL_FORMAT + 1


def test_serve_says_why_it_does_not_start_on_a_journal_of_a_newer_format(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    asyncio.run(journaled_running_table(data_dir))  # the command runs its own loop: none may run around it
    mark_format(data_dir, JOURNAL_FORMAT + 1)
    done = subprocess.run([*CLI, "serve", "--data-dir", str(data_dir), "--port", "0", "--no-http"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert "error: " in done.stderr and "move the file aside to start without them" in done.stderr
