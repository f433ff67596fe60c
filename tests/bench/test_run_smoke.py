"""``make bench`` stays runnable: a tiny run writes the JSON the README describes (no timing is asserted)."""

from __future__ import annotations

import json
from pathlib import Path

from bench import run
from tests.bench.support import recorded


def test_bench_run_writes_results_with_machine_info_and_ratios(tmp_path: Path) -> None:
    out = tmp_path / "latest.json"
    assert run.main(["--seconds", "0.05", "--rounds", "1", "--only", "twenty_five", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert {"platform", "cpu_count", "python"} <= set(report["machine"])
    assert set(report["results"]) == {"twenty_five/4/readable", "twenty_five/4/fast"}
    for entry in report["results"].values():
        assert entry["games_played"] >= 1
        assert isinstance(entry["decisions_per_second"], int) and recorded(entry["decisions_per_second"])
        assert entry["decisions_per_game"] >= 5
    assert "twenty_five/4: fast / readable" in report["ratios"]


def test_bench_plan_covers_every_game_and_the_yardstick() -> None:
    keys = {key for key, *_ in run.plan()}
    for game in ("twenty_five/4", "forty_five/4", "all_fives/2", "all_fives/3", "cinq_cents/4"):
        assert {f"{game}/readable", f"{game}/fast"} <= keys
    assert "euchre/4/openspiel" in keys
