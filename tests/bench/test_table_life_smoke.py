"""``python -m bench.table_life`` stays runnable: a tiny run of a commit and the working tree (no timing asserted)."""

from __future__ import annotations

from bench import table_life
from tricktable.server.runtime import COLLECTOR_THRESHOLDS


def test_the_table_life_bench_plays_whole_tables_on_a_commit_and_on_the_working_tree() -> None:
    report = table_life.run(["HEAD"], games=3, tables=2, rounds=1, seed="smoke")
    assert set(report["rows"]) == {"HEAD", "tree"}
    assert report["moves_per_round"] > 5
    for row in report["rows"].values():
        assert row["open_us_median"] > 0 and row["end_us_median"] > 0 and row["move_us_median"] > 0  # not judged
    assert "HEAD" in report["commits"]
    assert "tree" in table_life.render(report)


def test_the_table_life_bench_runs_the_collector_as_the_measured_trees_server_does() -> None:
    report = table_life.run([], games=2, tables=2, rounds=1, seed="smoke-gc")
    assert report["rows"]["tree"]["collector_thresholds"] == list(COLLECTOR_THRESHOLDS)
