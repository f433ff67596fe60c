"""docs/sdk.md's code is true: its first bot plays through the arena, and its arena call runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tricktable.tournament.arena import play

DOC = (Path(__file__).resolve().parents[1] / "docs" / "sdk.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", DOC, flags=re.S)


def test_the_first_bot_of_the_sdk_guide_plays_every_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "high_card.py").write_text(BLOCKS[0])
    monkeypatch.chdir(tmp_path)
    for game in ("twenty_five", "forty_five", "all_fives"):
        result = play(game, ["high_card.py:HighCard", "random"], games=1, duplicate=True, seed="doc")
        assert all(o.status == "finished" for o in result.outcomes), result.summary()
        assert result.totals()["high_card.py:HighCard"].faults == 0


def test_the_arena_example_of_the_sdk_guide_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    arena = next(b for b in BLOCKS if "from tricktable.tournament.arena import play" in b)
    (tmp_path / "high_card.py").write_text(BLOCKS[0])
    monkeypatch.chdir(tmp_path)
    exec(compile(arena, "sdk.md", "exec"), {})  # the guide's own example, run as a reader would


def test_the_annotated_bot_of_the_sdk_guide_plays_with_no_fault(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    noting = next(b for b in BLOCKS if "AnnotatedAction(" in b)
    (tmp_path / "noting_high_card.py").write_text(noting)
    monkeypatch.chdir(tmp_path)
    result = play("all_fives", ["noting_high_card.py:NotingHighCard", "random"], games=1, duplicate=True, seed="doc")
    assert all(o.status == "finished" for o in result.outcomes), result.summary()
    assert result.totals()["noting_high_card.py:NotingHighCard"].faults == 0
