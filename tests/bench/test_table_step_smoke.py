"""``python -m bench.table_step`` stays runnable: a tiny run of a commit and the working tree (no timing asserted)."""

from __future__ import annotations

from bench import table_step


def test_the_table_step_bench_plays_the_same_moves_on_a_commit_and_on_the_working_tree() -> None:
    report = table_step.run(["HEAD"], games=1, rounds=1, seed="smoke")
    assert set(report["rows"]) == {"HEAD", "tree"}
    assert report["moves_per_game_set"] > 5
    for row in report["rows"].values():
        assert row["cpu_us_per_move_median"] > 0  # recorded, not judged
    assert "HEAD" in report["commits"]
    assert "tree" in table_step.render(report)


def test_the_metrics_run_measures_the_tree_with_and_without_metrics_in_alternating_rounds() -> None:
    report = table_step.run([], games=1, rounds=2, seed="smoke", metrics=True)
    assert set(report["rows"]) == {"metrics_off", "metrics_on"} and report["commits"] == {}
    assert all(len(row["cpu_us_per_move_by_round"]) == 2 for row in report["rows"].values())
    assert "metrics_cpu_us_per_move" in report and "metrics:" in table_step.render(report)
