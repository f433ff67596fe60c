"""The record-store benchmark runs end to end at tiny sizes on SQLite and a real PostgreSQL (no speed is asserted)."""

from __future__ import annotations

import json
from pathlib import Path

from bench import store_cost
from tests.bench.support import recorded
from tests.conftest import need_postgres


def test_the_benchmark_measures_both_stores_for_every_game_and_batch(tmp_path: Path) -> None:
    need_postgres()
    out = tmp_path / "store_cost.json"
    assert store_cost.main(["--records", "2", "--rounds", "2", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    cells = {(r["store"], r["game"], r["batch"]) for r in report["rows"]}
    assert cells == {(s, g, b) for s in ("sqlite", "postgres") for g in store_cost.GAMES for b in store_cost.BATCHES}
    for row in report["rows"]:
        assert all(recorded(row[k]) for k in ("wall_us", "client_cpu_us", "server_cpu_us", "cpu_us_per_move"))
        assert row["records"] == 2 and row["moves_per_game"] > 0
    assert report["postgres_durable"] is True and set(report["read_wall_us"]) == {"sqlite", "postgres"}
    matches = {(r["store"], r["game"]) for r in report["tournament_matches"]}
    assert matches == {(s, g) for s in ("sqlite", "postgres") for g in store_cost.GAMES}
    assert all(recorded(r["cpu_us_per_move"]) and r["records"] == 2 for r in report["tournament_matches"])
