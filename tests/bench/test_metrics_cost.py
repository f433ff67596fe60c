"""``bench.server_bench --metrics-cost``'s arithmetic and order, on a stand-in for the throughput run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench import metrics_cost


def test_the_settings_alternate_and_the_ratio_and_cost_are_per_round_medians(tmp_path: Path) -> None:
    calls: list[tuple[str, tuple[str, ...], str]] = []
    cpu = {(): [500.0, 520.0, 510.0], ("--no-metrics",): [450.0, 480.0, 455.0]}

    def load(folder: Path, flags: tuple[str, ...], game: str) -> dict[str, Any]:
        calls.append((folder.name, flags, game))
        value = cpu[flags].pop(0)
        return {"server_cpu_us_per_move": value, "moves_per_second": 1e6 / value, "errors": 0,
                "load_average_1min_at_start": 1.0}

    report = metrics_cost.measure(tmp_path, 3, ["twenty_five"], load, {"load_average": [1.0]})
    assert [flags for _, flags, _ in calls] == [(), ("--no-metrics",), ("--no-metrics",), (), (), ("--no-metrics",)]
    assert len({folder for folder, _, _ in calls}) == 6  # a fresh server each time
    row = report["rows"]["twenty_five"]
    assert row["metrics_cpu_us_per_move_by_round"] == [50.0, 40.0, 55.0] and row["metrics_cpu_us_per_move"] == 50.0
    assert row["cpu_ratio_by_round"] == [round(500 / 450, 3), round(520 / 480, 3), round(510 / 455, 3)]
    assert row["cpu_ratio_on_over_off"] == round(500 / 450, 3)  # the median of the rounds' ratios
    assert row["metrics_on"]["server_cpu_us_per_move"] == 510.0 and row["metrics_off"]["errors"] == 0
    assert "x1.111" in metrics_cost.render(report, 40, 2, 10.0)
