"""``tricktable tournament --database-url postgresql://...`` as a real process on a real PostgreSQL.

A tournament over the server runner kept in PostgreSQL, its runner killed with -9 mid-way and resumed,
ends with the results of an undisturbed run; the in-process server's records are in the same database.
A tournament stopped mid-way, dumped with ``pg_dump`` and restored elsewhere, resumes from the copy.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from bench.postgres_cluster import PostgresCluster
from tests.tournament.helpers import RiggedRunner, config
from tests.tournament.test_cli import CLI, ROOT, SERVER_CONFIG, bots_of, tables, tournament
from tests.tournament.test_engine import Interrupt, StopAfter
from tricktable.server.record_store import ENV_DATABASE_URL
from tricktable.tournament.engine import ThreadDispatcher, Tournament, stored_games
from tricktable.tournament.store import TournamentStore, tournament_store

pytestmark = pytest.mark.timeout(600)


def stored(url: str) -> int:
    """Matches stored in the database at ``url`` (0 before its tables exist)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        try:
            row = db.execute("SELECT COUNT(*) FROM tournament_matches").fetchone()
        except psycopg.errors.UndefinedTable:
            return 0
    return int(row[0]) if row else 0


def records(url: str) -> int:
    """Ended tables whose records the server stored in the database at ``url``."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        row = db.execute("SELECT COUNT(*) FROM tables").fetchone()
    return int(row[0]) if row else 0


def test_a_tournament_in_postgresql_killed_and_resumed_ends_as_an_undisturbed_one(postgres: PostgresCluster,
                                                                                   tmp_path: Path) -> None:
    config = tmp_path / "server.toml"
    config.write_text(SERVER_CONFIG)
    whole_url, killed_url = postgres.create_database(), postgres.create_database()
    try:
        whole = tournament(str(config), "--database-url", whole_url, "--data-dir", str(tmp_path / "whole"),
                           "--out", str(tmp_path / "whole-out"), "--no-progress")
        assert whole.returncode == 0, whole.stderr
        assert stored(whole_url) == 8 and records(whole_url) == 8
        assert not (tmp_path / "whole" / "tricktable.sqlite3").exists()  # nothing went to the SQLite file
        # Given by the environment this time, as a Secret reaches a container.
        env = {**os.environ, ENV_DATABASE_URL: killed_url}
        args = [*CLI, str(config), "--data-dir", str(tmp_path / "killed"), "--out", str(tmp_path / "killed-out"),
                "--no-progress"]
        proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True, env=env)
        try:
            deadline = time.monotonic() + 120
            while stored(killed_url) < 2 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            os.kill(proc.pid, signal.SIGKILL)  # the runner only: its bots must notice and go
        finally:
            proc.wait(timeout=30)
        at_kill = stored(killed_url)
        assert 2 <= at_kill < 8, f"the kill came too late to test anything ({at_kill} of 8 stored)"
        resumed = tournament(str(config), "--data-dir", str(tmp_path / "killed"), "--out",
                             str(tmp_path / "killed-out"), "--no-progress", "--resume", env=env)
        assert resumed.returncode == 0, resumed.stderr
        assert stored(killed_url) == 8
        summary = json.loads((tmp_path / "killed-out" / "summary.json").read_text())
        assert summary["run"]["already_done"] == at_kill and summary["run"]["played"] == 8 - at_kill
        assert tables(tmp_path / "killed-out" / "summary.json") == tables(tmp_path / "whole-out" / "summary.json")
        deadline = time.monotonic() + 10
        while (survivors := bots_of(proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not survivors
    finally:
        postgres.drop_database(whole_url)
        postgres.drop_database(killed_url)


def test_the_tournament_files_database_url_is_used_and_never_stored(postgres: PostgresCluster,
                                                                     tmp_path: Path) -> None:
    url = postgres.create_database()
    try:
        config = tmp_path / "local.toml"
        config.write_text(f'name = "in-file"\ngame = "all_fives"\ngames = 2\nentrants = ["random", "first-legal"]\n'
                          f'database_url = "{url}"\n')
        done = tournament(str(config), "--runner", "local", "--data-dir", str(tmp_path), "--no-progress")
        assert done.returncode == 0, done.stderr
        assert stored(url) == 2
        import psycopg

        with psycopg.connect(url, autocommit=True) as db:
            row = db.execute("SELECT config FROM tournaments").fetchone()
        assert row is not None and "database_url" not in json.loads(row[0])
    finally:
        postgres.drop_database(url)


def test_a_database_url_that_is_not_postgresql_is_refused_with_one_line(tmp_path: Path) -> None:
    done = tournament("--game", "all_fives", "--bots", "random,random", "--database-url", "mysql://root:pw@db/x",
                      "--data-dir", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr == "error: --database-url must begin with postgresql:// or postgres://, not mysql:\n"


def test_a_sqlite_file_and_a_database_url_together_are_refused(tmp_path: Path) -> None:
    done = tournament("--game", "all_fives", "--bots", "random,random", "--db", str(tmp_path / "x.sqlite3"),
                      "--database-url", "postgresql:///x")
    assert done.returncode == 2 and "not both" in done.stderr and not (tmp_path / "x.sqlite3").exists()


def test_an_unreachable_database_is_one_line_without_its_password(tmp_path: Path) -> None:
    url = f"postgresql://someone:hunter2@/nothing?host={tmp_path}&port=1"
    done = tournament("--game", "all_fives", "--bots", "random,random", "--database-url", url,
                      "--data-dir", str(tmp_path), "--no-progress")
    assert done.returncode == 2 and "hunter2" not in done.stderr + done.stdout
    assert done.stderr.startswith("error: cannot open ") and len(done.stderr.strip().splitlines()) == 1


def test_a_tournament_dumped_mid_way_resumes_from_the_restored_copy_to_the_undisturbed_results(
        postgres: PostgresCluster, tmp_path: Path) -> None:
    cfg = config(entrants=["a", "b", "c"], games=6)
    strengths = {"a": 3, "b": 2, "c": 1}

    def rigged() -> ThreadDispatcher:
        return ThreadDispatcher(RiggedRunner(strengths), {e.name: e for e in cfg.entrants})

    source, target = postgres.create_database(), postgres.create_database()
    try:
        store = tournament_store(tmp_path / "unused.sqlite3", source)
        with pytest.raises(Interrupt):
            asyncio.run(Tournament(cfg, store, StopAfter(rigged(), 7)).run())
        store.close()
        dump = tmp_path / "tricktable.dump"
        subprocess.run([str(postgres.bin / "pg_dump"), "--format=custom", f"--file={dump}", source],
                       check=True, timeout=120, capture_output=True)
        subprocess.run([str(postgres.bin / "pg_restore"), "--no-owner", f"--dbname={target}", str(dump)],
                       check=True, timeout=120, capture_output=True)
        restored = tournament_store(tmp_path / "unused.sqlite3", target)
        assert restored.count("t") == 7 and restored.status("t") == "interrupted"
        stats = asyncio.run(Tournament(cfg, restored, rigged()).run(resume=True))
        assert stats.already_done == 7 and restored.status("t") == "finished"
        undisturbed = tournament_store(tmp_path / "undisturbed.sqlite3")  # in SQLite: the same results
        asyncio.run(Tournament(cfg, undisturbed, rigged()).run())

        def results(store: TournamentStore) -> dict[str, tuple[str, tuple[int, ...]]]:
            return {spec.match_id: (o.status, o.scores) for spec, o in stored_games(store, "t")}

        assert results(restored) == results(undisturbed) and len(results(restored)) == stats.scheduled
        restored.close()
        undisturbed.close()
    finally:
        postgres.drop_database(source)
        postgres.drop_database(target)


def test_a_store_whose_database_restarted_opens_its_connection_again(tmp_path: Path) -> None:
    """A database restarted between two matches costs the tournament nothing; one that is down is a clear error."""
    from bench.postgres_cluster import running_cluster
    from tests.conftest import need_postgres
    from tricktable.tournament.store_errors import StoreError

    need_postgres()
    with running_cluster() as cluster:
        store = tournament_store(tmp_path / "unused.sqlite3", cluster.create_database())
        store.begin(config(), resume=False)
        cluster.stop()
        with pytest.raises(StoreError, match=r"PostgreSQL database t_[0-9a-f]+ on .* can not be reached"):
            store.status("t")
        cluster.start()
        assert store.status("t") == "running" and store.count("t") == 0  # the cut connection, opened again
        store.close()
