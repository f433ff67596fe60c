"""The training throughput benchmark stays runnable: a tiny run writes its JSON (no speed is judged here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import training_throughput
from tests.bench.support import recorded

pytest.importorskip("pyspiel", reason="open_spiel has no wheel for this platform (pip install '.[train]')")


def test_training_throughput_writes_every_loop_of_one_game_and_euchre(tmp_path: Path) -> None:
    out = tmp_path / "training_throughput.json"
    argv = ["--seconds", "0.05", "--rounds", "1", "--only", "all_fives", "--out", str(out)]
    assert training_throughput.main(argv) == 0
    report = json.loads(out.read_text())
    assert {"platform", "cpu_count", "load_average"} <= set(report["machine"])
    assert set(report["results"]) == {"pettingzoo/all_fives", "openspiel/all_fives", "openspiel_obs/all_fives"}
    for entry in report["results"].values():
        assert entry["games_played"] >= 1
        assert recorded(entry["decisions_per_second"])
    assert report["results"]["openspiel/all_fives"]["chance_events_per_game"] >= 51  # a card dealt a node


def test_the_plan_covers_both_libraries_in_every_game_and_the_euchre_yardstick() -> None:
    keys = {key for key, _ in training_throughput.plan()}
    for game in training_throughput.GAMES:
        assert {f"pettingzoo/{game}", f"openspiel/{game}", f"openspiel_obs/{game}"} <= keys
    assert {"openspiel/euchre", "openspiel_obs/euchre"} <= keys
