"""Backups while the server runs: ``tricktable backup`` of the SQLite files, ``pg_dump`` of a PostgreSQL store."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from bench.postgres_cluster import PostgresCluster
from tests.server.restarts import CLI
from tests.server.test_journal import Server, play_moves, started_table
from tests.server.test_storage import meta
from tests.server.test_storage_failures import until
from tricktable.server.journal import JOURNAL_NAME
from tricktable.server.record_store import record_store
from tricktable.server.storage import DB_NAME

#: Moves the running table has played at most by the backup's end (All Fives: 130-310 to its end).
MOVES_DURING = 40


async def test_a_backup_taken_while_tables_play_restores_the_records_and_resumes_the_running_table(
        tmp_path: Path) -> None:
    data_dir, copy = tmp_path / "data", tmp_path / "backup"
    server = Server(data_dir)
    ended, _ = await started_table(server, seed="ends")
    while not ended.is_over:
        play_moves(ended, 1)
    running, _ = await started_table(server, seed="runs")
    play_moves(running, 6)
    server.journal.commit()
    await until(lambda: server.lobby.unstored() == 0)

    backup = await asyncio.create_subprocess_exec(*CLI, "backup", str(copy), "--data-dir", str(data_dir),
                                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    while backup.returncode is None:  # the server plays on while the copy is made (never to the table's end)
        if running.actions_played < MOVES_DURING:
            play_moves(running, 1)
        server.journal.commit()
        await asyncio.sleep(0.01)
    out, err = await backup.communicate()
    assert backup.returncode == 0, err.decode()
    assert out.decode().split() == [str(copy / DB_NAME), str(copy / JOURNAL_NAME)]
    played_after = running.actions_played
    server.crash()

    restored = Server(copy)
    (resumed,) = restored.lobby.resume()
    assert resumed.id == running.id and 6 <= resumed.actions_played <= played_after
    assert restored.storage.record(ended.id) == ended.record
    restored.crash()


def test_a_backup_refuses_a_folder_that_holds_one_already_and_a_folder_without_databases(tmp_path: Path) -> None:
    Server(tmp_path / "data").crash()
    first = subprocess.run([*CLI, "backup", str(tmp_path / "copy"), "--data-dir", str(tmp_path / "data")],
                           capture_output=True, text=True, timeout=120, check=False)
    assert first.returncode == 0, first.stderr
    again = subprocess.run([*CLI, "backup", str(tmp_path / "copy"), "--data-dir", str(tmp_path / "data")],
                           capture_output=True, text=True, timeout=120, check=False)
    assert again.returncode == 2 and "exists: back up into a new folder" in again.stderr
    empty = subprocess.run([*CLI, "backup", str(tmp_path / "other"), "--data-dir", str(tmp_path / "none")],
                           capture_output=True, text=True, timeout=120, check=False)
    assert empty.returncode == 2 and "no tricktable.sqlite3 or journal.sqlite3 in" in empty.stderr


def test_pg_dump_while_the_store_writes_restores_into_a_database_the_store_opens(
        postgres: PostgresCluster, database_url: str, tmp_path: Path) -> None:
    store = record_store(tmp_path / "data", database_url).open()
    store.save_all([(meta(f"t-{n}"), {"n": n}) for n in range(50)])
    dump = tmp_path / "tricktable.dump"
    subprocess.run([str(postgres.bin / "pg_dump"), "--format=custom", f"--file={dump}", database_url],
                   check=True, timeout=120, capture_output=True)
    store.save(meta("t-after"), {})  # after the dump: not in it
    store.close()

    target = postgres.create_database()
    try:
        subprocess.run([str(postgres.bin / "pg_restore"), "--no-owner", f"--dbname={target}", str(dump)],
                       check=True, timeout=120, capture_output=True)
        restored = record_store(tmp_path / "restored", target).open()
        assert restored.count() == 50 and restored.record("t-7") == {"n": 7} and restored.meta("t-after") is None
        restored.save(meta("t-new"), {})  # at the current schema version: it writes
        restored.close()
    finally:
        postgres.drop_database(target)
