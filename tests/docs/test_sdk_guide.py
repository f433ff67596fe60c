"""The guides' code is true: the first bots of docs/sdk.md and the README play every game, the guide quotes the
example file it names, and its arena call runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tricktable.tournament.arena import play

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "sdk.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", DOC, flags=re.S)
README_BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.S)
GAMES = ("twenty_five", "forty_five", "all_fives", "cinq_cents")


def test_the_first_bot_of_the_sdk_guide_plays_every_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "high_card.py").write_text(BLOCKS[0])
    monkeypatch.chdir(tmp_path)
    for game in GAMES:
        result = play(game, ["high_card.py:HighCard", "heuristic"], games=1, duplicate=True, seed="doc",
                      options={"target": 200} if game == "cinq_cents" else None)
        assert all(o.status == "finished" for o in result.outcomes), result.summary()
        assert result.totals()["high_card.py:HighCard"].faults == 0


def test_the_sdk_guide_quotes_the_example_it_names() -> None:
    """The guide's first bot is ``examples/python/high_card.py`` as it is, not a variant of it."""
    example = (ROOT / "examples" / "python" / "high_card.py").read_text(encoding="utf-8")
    assert BLOCKS[0].startswith("# high_card.py\n")
    assert BLOCKS[0].removeprefix("# high_card.py\n") == example[example.index("from tricktable"):]


def test_the_readmes_first_bot_plays_every_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = next(b for b in README_BLOCKS if b.startswith("# my_bot.py"))
    (tmp_path / "my_bot.py").write_text(bot)
    monkeypatch.chdir(tmp_path)
    for game in GAMES:
        result = play(game, ["my_bot.py:MyBot", "heuristic"], games=1, duplicate=True, seed="readme",
                      options={"target": 200} if game == "cinq_cents" else None)
        assert all(o.status == "finished" for o in result.outcomes), result.summary()
        assert result.totals()["my_bot.py:MyBot"].faults == 0


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
