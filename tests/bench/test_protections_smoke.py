"""``python -m bench.protections`` stays runnable: a tiny run of the working tree alone (no timing asserted)."""

from __future__ import annotations

from pathlib import Path

from bench import protections
from tests.bench.support import recorded


def test_the_protections_bench_measures_a_flood_and_three_analyses_on_the_working_tree(tmp_path: Path) -> None:
    report = protections.run([], rounds=1, seconds=1.0, in_flight=2, folder=tmp_path)
    flood = report["flood"]["tree"][0]
    assert recorded(flood["quiet"]["moves_per_second"]) and "flood_refused_per_second" in flood["flood"]
    analysis = report["analysis"]["tree"][0]
    assert recorded(analysis["quiet"]["moves_per_second"]) and "moves_per_second" in analysis["analysing"]
    assert "three analyses" in protections.render(report)
