"""SQLite storage: WAL, round trip of records and metadata, the data directory rule."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tricktable.server.storage import DB_NAME, ENV_DATA_DIR, Storage, TableMeta, resolve_data_dir


def meta(table_id: str, *, game: str = "twenty_five", ended: float = 2.0) -> TableMeta:
    return TableMeta(id=table_id, game=game, players=4, status="finished", reason="target reached",
                     options={"players": 4}, names=["a", "b", "c", "d"], time_control={"decision_seconds": 1.0},
                     seed_sha256="ab" * 32, winners=[0], scores=[25, 10], actions=30, created_at=1.0,
                     started_at=1.5, ended_at=ended)


def test_records_round_trip_and_the_database_is_in_wal_mode(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "nested" / "data").open()
    storage.save(meta("t-1"), {"format": "tricktable-record/1", "deals": []})
    assert storage.record("t-1") == {"format": "tricktable-record/1", "deals": []}
    assert storage.record("t-unknown") is None
    assert storage.meta("t-1") == meta("t-1")
    storage.close()
    mode = sqlite3.connect(tmp_path / "nested" / "data" / DB_NAME).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_list_is_newest_first_and_filters_by_game(tmp_path: Path) -> None:
    storage = Storage(tmp_path).open()
    storage.save(meta("t-1", ended=1.0), {})
    storage.save(meta("t-2", ended=3.0, game="all_fives"), {})
    storage.save(meta("t-3", ended=2.0), {})
    assert [m.id for m in storage.list_tables()] == ["t-2", "t-3", "t-1"]
    assert [m.id for m in storage.list_tables(game="twenty_five")] == ["t-3", "t-1"]
    assert storage.count() == 3


async def test_async_save_runs_in_a_thread(tmp_path: Path) -> None:
    storage = Storage(tmp_path).open()
    assert await storage.save_all_async([(meta("t-9"), {"x": 1})]) == {}
    assert storage.record("t-9") == {"x": 1}


def test_a_batch_stores_every_record_but_one_that_can_not_be_encoded(tmp_path: Path) -> None:
    storage = Storage(tmp_path).open()
    failed = storage.save_all([(meta("t-1"), {"x": 1}), (meta("t-2"), {"x": {1, 2}}), (meta("t-3"), {"x": 3})])
    assert list(failed) == ["t-2"] and isinstance(failed["t-2"], TypeError)
    assert storage.record("t-1") == {"x": 1} and storage.record("t-3") == {"x": 3}
    assert storage.record("t-2") is None
    with pytest.raises(TypeError):
        storage.save(meta("t-4"), {"x": {4}})


def test_a_batch_the_database_refuses_stores_none_of_its_records(tmp_path: Path) -> None:
    storage = Storage(tmp_path).open()
    with sqlite3.connect(tmp_path / DB_NAME) as db:  # a write that fails, as a full disk would
        db.execute("CREATE TRIGGER fail BEFORE INSERT ON tables WHEN NEW.id = 't-2'"
                   " BEGIN SELECT RAISE(ABORT, 'boom'); END")
    with pytest.raises(sqlite3.Error):
        storage.save_all([(meta("t-1"), {}), (meta("t-2"), {})])
    assert storage.count() == 0
    storage.save(meta("t-3"), {})  # the connection is usable after it
    assert storage.count() == 1


def test_data_dir_comes_from_the_flag_then_the_environment_then_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_DATA_DIR, "/tmp/from-env")
    assert resolve_data_dir("/tmp/from-flag") == Path("/tmp/from-flag")
    assert resolve_data_dir(None) == Path("/tmp/from-env")
    monkeypatch.delenv(ENV_DATA_DIR)
    assert resolve_data_dir(None) == Path("data")
