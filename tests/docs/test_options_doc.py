"""docs/games.md's "Options at a glance" table lists every game's options, as its definition declares them.

The table is what players read to set up a table; a game's option schema
(:class:`tricktable.rules.definition.GameDefinition` ``options``) is what the
engine and the protocol accept. Each row names games (``every game``, or a
comma-separated list) and one option; a default written as a plain value
(``4``, ``true``, ``"3-2"``) must be the default the game's config resolves.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tricktable.rules.registry import game_definition, games

GAMES_DOC = Path(__file__).resolve().parents[2] / "docs" / "games.md"
#: A row's game cell that means every registered game.
EVERY_GAME = "every game"


def _rows() -> list[tuple[str, str, str]]:
    """(game, option, default cell) for every row of the table, a multi-game row once per game."""
    text = GAMES_DOC.read_text(encoding="utf-8")
    section = text.split("## Options at a glance", 1)[1].split("\n## ", 1)[0]
    rows: list[tuple[str, str, str]] = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("game", "---"):
            continue
        named = games() if cells[0] == EVERY_GAME else tuple(g.strip() for g in cells[0].split(","))
        rows.extend((game, cells[1].strip("`"), cells[2]) for game in named)
    return rows


def test_the_table_names_only_registered_games() -> None:
    assert {game for game, _, _ in _rows()} <= set(games())


@pytest.mark.parametrize("game", games())
def test_the_table_lists_exactly_the_schema_of_each_game(game: str) -> None:
    documented = sorted(option for g, option, _ in _rows() if g == game)
    assert documented == sorted(o.name for o in game_definition(game).options)


@pytest.mark.parametrize("game", games())
def test_a_plain_default_in_the_table_is_the_resolved_default(game: str) -> None:
    defaults = game_definition(game).rules.config({}).to_options()
    checked = 0
    for g, option, cell in _rows():
        try:
            value = json.loads(cell.strip("`"))
        except ValueError:
            continue  # a default told in words ("drawn from the seed")
        if g == game:
            assert defaults[option] == value, f"{game} {option}: the table says {cell}, the game {defaults[option]!r}"
            checked += 1
    assert checked, f"no plain default of {game} was checked"
