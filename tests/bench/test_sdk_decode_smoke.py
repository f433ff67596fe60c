"""``python -m bench.sdk_decode`` stays runnable: a tiny run of a commit and the working tree (no timing asserted)."""

from __future__ import annotations

from bench import sdk_decode
from tests.bench.support import recorded


def test_the_sdk_decode_bench_replays_the_same_recorded_decisions_on_a_commit_and_on_the_working_tree() -> None:
    report = sdk_decode.run(["HEAD"], games=1, warmup=1, rounds=1, seed="smoke")
    assert set(report["rows"]) == {"HEAD", "tree"}
    assert report["seats_replayed"] == 4 and report["decisions"] > 5
    for row in report["rows"].values():
        assert recorded(row["cpu_us_per_decision_median"])
    assert "HEAD" in report["commits"]
    assert "tree" in sdk_decode.render(report)
