"""``python -m bench.external_bots`` stays runnable: one game per kind of bot (no timing asserted)."""

from __future__ import annotations

from bench import external_bots
from tests.bench.support import recorded


def test_the_external_bots_bench_times_every_kind_of_bot_in_one_run() -> None:
    report = external_bots.run(games=1, seed="smoke")
    assert set(report["rows"]) == {"sdk", "exec", "webhook"}
    for kind, row in report["rows"].items():
        assert row["decisions"] > 5, kind
        assert recorded(row["us_per_decision_median"]) and recorded(row["us_per_decision_p90"])
    assert recorded(report["rows"]["exec"]["overhead_us_median"])
    assert "webhook" in external_bots.render(report)
