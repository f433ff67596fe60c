"""The ISMCTS benchmark stays runnable: one duplicate pair at a few simulations writes its JSON (nothing judged)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import openspiel_ismcts
from tests.bench.support import recorded

pytest.importorskip("pyspiel", reason="open_spiel has no wheel for this platform (pip install '.[train]')")


def test_openspiel_ismcts_writes_its_share_of_points(tmp_path: Path) -> None:
    out = tmp_path / "openspiel_ismcts.json"
    assert openspiel_ismcts.main(["--pairs", "1", "--sims", "3", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["deals"] == 2
    assert recorded(report["mean_return"])
    low, high = report["interval_95"]
    assert low <= report["mean_return"] <= high
