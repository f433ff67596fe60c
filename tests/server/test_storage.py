"""The record store: one suite run against SQLite and against a real PostgreSQL; what is each one's own after it.

Every test taking ``backend`` runs twice: on the SQLite file of a temporary
data directory, and on a fresh database of a PostgreSQL cluster the session
started (``bench/postgres_cluster.py``; skipped, saying why, only when
PostgreSQL is not installed).
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from tricktable.server.errors import StorageUnavailableError
from tricktable.server.record_store import RecordStore, record_store, redacted
from tricktable.server.storage import (
    DB_NAME,
    ENV_DATA_DIR,
    MIGRATIONS,
    SchemaVersionError,
    Storage,
    TableMeta,
    resolve_data_dir,
)


def meta(table_id: str, *, game: str = "twenty_five", ended: float | None = 2.0, **more: Any) -> TableMeta:
    return TableMeta(id=table_id, game=game, players=4, status="finished", reason="target reached",
                     options={"players": 4}, names=["a", "b", "c", "d"], time_control={"decision_seconds": 1.0},
                     seed_sha256="ab" * 32, winners=[0], scores=[25, 10], actions=30, created_at=1.0,
                     started_at=1.5, ended_at=ended, **more)


@dataclass
class Backend:
    """One implementation under test: how to open a store on it, and the few things only it can do."""

    name: str
    data_dir: Path
    url: str | None

    def store(self) -> RecordStore:
        return record_store(self.data_dir, self.url).open()

    def sql(self, statement: str) -> None:
        """Run ``statement`` on the database beside the store (as another process would)."""
        if self.url is None:
            with closing(sqlite3.connect(self.data_dir / DB_NAME, isolation_level=None)) as db:
                db.executescript(statement)
        else:
            import psycopg

            with psycopg.connect(self.url, autocommit=True) as db:
                db.execute(statement)

    def mark_version(self, version: int) -> None:
        """Mark the schema as migrated to ``version`` (as a newer release would leave it)."""
        if self.url is None:
            self.sql(f"PRAGMA user_version = {version}")
        else:
            self.sql(f"INSERT INTO schema_version (version, applied_at) VALUES ({version}, 0)")

    def refuse_insert_of(self, table_id: str) -> None:
        """Make the database refuse the row of ``table_id`` (a write that fails mid-batch)."""
        if self.url is None:
            self.sql(f"CREATE TRIGGER fail BEFORE INSERT ON tables WHEN NEW.id = '{table_id}'"
                     " BEGIN SELECT RAISE(ABORT, 'boom'); END")
        else:
            self.sql("CREATE FUNCTION fail() RETURNS trigger LANGUAGE plpgsql AS"
                     f" $$ BEGIN IF NEW.id = '{table_id}' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$;"
                     " CREATE TRIGGER fail BEFORE INSERT ON tables FOR EACH ROW EXECUTE FUNCTION fail()")


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    url = request.getfixturevalue("database_url") if request.param == "postgres" else None
    return Backend(request.param, tmp_path / "data", url)


@pytest.fixture
def store(backend: Backend) -> Any:
    opened = backend.store()
    yield opened
    opened.close()


# --- the suite both run --------------------------------------------------------------------------------------


def test_records_and_metadata_round_trip(store: RecordStore) -> None:
    sealed = meta("t-2", seed_chosen=True, sealed=True, owner_sha256="cd" * 32, twin_key="k", deck_set_tables=4,
                  deck_set_index=2)
    store.save(meta("t-1"), {"format": "tricktable-record/1", "deals": [], "é": "ünïcode"})
    store.save(sealed, {})
    assert store.record("t-1") == {"format": "tricktable-record/1", "deals": [], "é": "ünïcode"}
    assert store.record("t-unknown") is None and store.meta("t-unknown") is None
    assert store.meta("t-1") == meta("t-1") and store.meta("t-2") == sealed


def test_list_is_newest_first_filters_by_game_and_is_limited(store: RecordStore) -> None:
    store.save(meta("t-1", ended=1.0), {})
    store.save(meta("t-2", ended=3.0, game="all_fives"), {})
    store.save(meta("t-3", ended=2.0), {})
    store.save(meta("t-4", ended=None), {})  # no end time (never started): last
    assert [m.id for m in store.list_tables()] == ["t-2", "t-3", "t-1", "t-4"]
    assert [m.id for m in store.list_tables(game="twenty_five")] == ["t-3", "t-1", "t-4"]
    assert [m.id for m in store.list_tables(limit=2)] == ["t-2", "t-3"]
    assert store.count() == 4


def test_saving_a_table_again_replaces_it(store: RecordStore) -> None:
    store.save(meta("t-1"), {"x": 1})
    store.save(replace(meta("t-1"), status="aborted", reason="server shutdown"), {"x": 2})
    assert store.record("t-1") == {"x": 2} and store.count() == 1
    stored = store.meta("t-1")
    assert stored is not None and (stored.status, stored.reason) == ("aborted", "server shutdown")


async def test_async_save_runs_in_a_thread(store: RecordStore) -> None:
    assert await store.save_all_async([(meta("t-9"), {"x": 1})]) == {}
    assert store.record("t-9") == {"x": 1}


def test_a_batch_stores_every_record_but_one_that_can_not_be_encoded(store: RecordStore) -> None:
    failed = store.save_all([(meta("t-1"), {"x": 1}), (meta("t-2"), {"x": {1, 2}}), (meta("t-3"), {"x": 3})])
    assert list(failed) == ["t-2"] and isinstance(failed["t-2"], TypeError)
    assert store.record("t-1") == {"x": 1} and store.record("t-3") == {"x": 3}
    assert store.record("t-2") is None
    with pytest.raises(TypeError):
        store.save(meta("t-4"), {"x": {4}})


def test_a_batch_the_database_refuses_stores_none_of_its_records(backend: Backend, store: RecordStore) -> None:
    backend.refuse_insert_of("t-2")
    with pytest.raises(Exception, match="boom"):
        store.save_all([(meta("t-1"), {}), (meta("t-2"), {})])
    assert store.count() == 0
    store.save(meta("t-3"), {})  # the connection is usable after it
    assert store.count() == 1


def test_ended_twins_are_the_deck_set_indexes_stored_under_a_twin_key(store: RecordStore) -> None:
    store.save_all([(meta("t-1", twin_key="k", deck_set_tables=3, deck_set_index=0), {}),
                    (meta("t-2", twin_key="k", deck_set_tables=3, deck_set_index=2), {}),
                    (meta("t-3", twin_key="k", deck_set_tables=3, deck_set_index=2), {}),
                    (meta("t-4", twin_key="k"), {}),  # a twin outside any deck set
                    (meta("t-5", twin_key="other", deck_set_tables=3, deck_set_index=1), {})])
    assert store.ended_twins("k") == {0, 2} and store.ended_twins("none") == set()


def test_the_game_directory_keeps_each_game_process_last_address_and_load(store: RecordStore) -> None:
    assert store.game_processes() == {}
    store.advertise(0, "10.0.0.5:50051")
    store.advertise(2, "10.0.0.7:50051", tables=3, taking=False)
    store.advertise(0, "10.0.0.9:50051", tables=5)  # restarted elsewhere
    found = store.game_processes()
    assert {k: (p.address, p.tables, p.taking) for k, p in found.items()} == {
        0: ("10.0.0.9:50051", 5, True), 2: ("10.0.0.7:50051", 3, False)}
    assert all(0 <= p.age < 3600 for p in found.values())  # just now, by the store's clock


def test_the_directory_keeps_the_lobbies_oldest_first_and_forgets_one_that_stops(store: RecordStore) -> None:
    assert store.lobbies() == []
    store.advertise_lobby("b", "10.0.1.2:50051")
    store.advertise_lobby("a", "10.0.1.1:50051")
    store.advertise_lobby("b", "10.0.1.3:50051")  # moved; it still started first
    found = store.lobbies()
    assert [(lobby.id, lobby.address) for lobby in found] == [("b", "10.0.1.3:50051"), ("a", "10.0.1.1:50051")]
    assert all(0 <= lobby.age < 3600 for lobby in found)
    store.forget_lobby("a")
    assert [lobby.id for lobby in store.lobbies()] == ["b"]


def test_the_write_check_commits(store: RecordStore) -> None:
    store.check()
    store.check()


def test_reopening_keeps_the_records_and_migrates_nothing_again(backend: Backend) -> None:
    first = backend.store()
    first.save(meta("t-1"), {"x": 1})
    first.close()
    first.close()  # a second close does nothing
    again = backend.store()
    assert again.record("t-1") == {"x": 1} and again.count() == 1
    again.close()


def test_a_database_a_newer_version_migrated_is_refused_with_a_clear_message(backend: Backend) -> None:
    backend.store().close()
    backend.mark_version(99)
    with pytest.raises(SchemaVersionError, match=r"schema version 99, newer than version \d+ that this version of "
                                                 r"tricktable knows: run the newer version, or restore a backup"):
        backend.store()


def test_a_store_that_is_not_open_says_so(backend: Backend) -> None:
    closed = record_store(backend.data_dir, backend.url)
    with pytest.raises(RuntimeError, match="not open"):
        closed.count()


# --- SQLite's own --------------------------------------------------------------------------------------------


def test_the_sqlite_file_is_in_wal_mode_at_the_last_schema_version(tmp_path: Path) -> None:
    Storage(tmp_path / "nested" / "data").open().close()
    with closing(sqlite3.connect(tmp_path / "nested" / "data" / DB_NAME)) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


def test_a_sqlite_file_from_before_the_schema_versions_is_migrated_and_its_records_kept(tmp_path: Path) -> None:
    tmp_path.joinpath("data").mkdir()
    with closing(sqlite3.connect(tmp_path / "data" / DB_NAME, isolation_level=None)) as db:  # the first schema
        db.executescript("""
            CREATE TABLE tables (id TEXT PRIMARY KEY, game TEXT NOT NULL, players INTEGER NOT NULL,
                status TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', options TEXT NOT NULL, names TEXT NOT NULL,
                time_control TEXT NOT NULL, seed_sha256 TEXT NOT NULL, winners TEXT NOT NULL DEFAULT '[]',
                scores TEXT NOT NULL DEFAULT '[]', actions INTEGER NOT NULL DEFAULT 0, created_at REAL NOT NULL,
                started_at REAL, ended_at REAL, record TEXT NOT NULL);
            ALTER TABLE tables ADD COLUMN sealed INTEGER NOT NULL DEFAULT 0;
            INSERT INTO tables (id, game, players, status, options, names, time_control, seed_sha256, created_at,
                record) VALUES ('t-old', 'all_fives', 2, 'finished', '{}', '[]', '{}', '', 1.0, '{"old": true}');
        """)
    store = Storage(tmp_path / "data").open()
    assert store.record("t-old") == {"old": True}
    old = store.meta("t-old")
    assert old is not None and (old.sealed, old.twin_key, old.deck_set_tables) == (False, "", 0)
    store.save(meta("t-new", twin_key="k", deck_set_tables=2), {})
    assert store.ended_twins("k") == {0}
    store.close()


def test_data_dir_comes_from_the_flag_then_the_environment_then_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_DATA_DIR, "/tmp/from-env")
    assert resolve_data_dir("/tmp/from-flag") == Path("/tmp/from-flag")
    assert resolve_data_dir(None) == Path("/tmp/from-env")
    monkeypatch.delenv(ENV_DATA_DIR)
    assert resolve_data_dir(None) == Path("data")


# --- PostgreSQL's own ----------------------------------------------------------------------------------------


def test_a_database_url_that_is_not_postgresql_is_refused_without_showing_it(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"must begin with postgresql:// or postgres://, not mysql:$"):
        record_store(tmp_path, "mysql://root:secret@db/x")
    assert redacted("postgresql://app:s3cret@db:5432/tricktable") == "postgresql://app:***@db:5432/tricktable"
    assert redacted("postgresql:///tricktable?host=/run/pg") == "postgresql:///tricktable?host=/run/pg"


def test_processes_starting_together_on_a_fresh_database_migrate_it_once(database_url: str, tmp_path: Path) -> None:
    import psycopg

    from tricktable.server import pg_storage

    errors: list[BaseException] = []
    stores: list[RecordStore] = []
    start = threading.Barrier(4)

    def open_one(index: int) -> None:
        start.wait()
        try:
            stores.append(record_store(tmp_path / f"data-{index}", database_url).open())
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=open_one, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(stores) == 4
    stores[0].save(meta("t-1"), {"x": 1})
    assert all(s.record("t-1") == {"x": 1} for s in stores)  # one database, read by every process
    with psycopg.connect(database_url) as db:
        versions = [v for (v,) in db.execute("SELECT version FROM schema_version ORDER BY version").fetchall()]
    assert versions == list(range(1, len(pg_storage.MIGRATIONS) + 1))
    for store in stores:
        store.close()


def test_an_unreachable_database_is_unavailable_and_reached_again_by_the_same_store(postgres: Any,
                                                                                  database_url: str,
                                                                                  tmp_path: Path) -> None:
    store = record_store(tmp_path, database_url).open()
    store.save(meta("t-1"), {})
    postgres.stop()
    try:
        for call in (lambda: store.save(meta("t-2"), {}), store.check, lambda: store.record("t-1")):
            with pytest.raises(StorageUnavailableError, match="the database can not be reached"):
                call()
    finally:
        postgres.start()
    store.save(meta("t-2"), {})
    assert store.count() == 2
    store.close()


def test_an_unreachable_database_at_open_is_unavailable(tmp_path: Path) -> None:
    url = f"postgresql://nobody@/none?host={tmp_path}&port=1"  # no server has a socket there
    pytest.importorskip("psycopg")
    with pytest.raises(StorageUnavailableError, match="the database can not be reached"):
        record_store(tmp_path, url).open()



def test_a_game_index_is_claimed_once_taken_back_by_its_holder_and_free_again_when_its_holder_is_silent(
        store: RecordStore) -> None:
    assert store.claim_game_index(2, "a", None, 60.0) == 0
    assert store.claim_game_index(2, "b", 0, 60.0) == 1  # 0 is held: the lowest free one
    assert store.claim_game_index(2, "c", None, 60.0) is None  # both held
    assert store.claim_game_index(2, "a", 0, 60.0) == 0  # its holder, restarted
    claimed = store.game_processes()[1]
    assert (claimed.address, claimed.taking) == ("", False)  # no table placed there before it advertises
    assert store.claim_game_index(2, "c", 1, 0.0) == 1  # with every word stale, any index is free
