"""Golden playthroughs: every game and layout replays exactly as its file says (``make golden`` rewrites them)."""

from __future__ import annotations

import pytest

from tests.golden import PLAYTHROUGHS, Playthrough, render
from tricktable.rules.registry import games


@pytest.mark.parametrize("play", PLAYTHROUGHS, ids=lambda p: p.name)
def test_golden_playthrough_matches_line_by_line(play: Playthrough) -> None:
    assert play.path.exists(), f"{play.path.name} is missing: run `make golden`"
    expected = play.path.read_text(encoding="utf-8").splitlines()
    actual = render(play).splitlines()
    for number, (want, got) in enumerate(zip(expected, actual, strict=False), start=1):
        assert got == want, f"{play.path.name}:{number} differs (run `make golden` if the change is intended)"
    assert len(actual) == len(expected), f"{play.path.name}: {len(actual)} lines now, {len(expected)} in the file"


@pytest.mark.parametrize("game", games())
def test_every_game_has_a_golden_playthrough(game: str) -> None:
    files = [p for p in PLAYTHROUGHS if p.game == game]
    assert files, f"no golden playthrough for {game}"
    assert all(p.path.exists() for p in files), [p.path.name for p in files if not p.path.exists()]


def test_golden_files_are_all_listed() -> None:
    listed = {p.path.name for p in PLAYTHROUGHS}
    on_disk = {p.name for p in PLAYTHROUGHS[0].path.parent.glob("*.txt")}
    assert on_disk == listed
