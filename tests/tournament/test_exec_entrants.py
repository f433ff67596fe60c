"""Bots in other languages as tournament entrants: ``exec:`` entrants play sandboxed, like every entrant.

The tournament starts ``tricktable bot exec:...`` in each seat's sandbox, and the program runs inside it:
the Python and Node.js starters (examples/stdio-*) play a whole tournament against a built-in bot through
the real server.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest

from tests.tournament.helpers import config
from tricktable.tournament.config import ConfigError, check_bots
from tricktable.tournament.engine import Tournament, stored_games
from tricktable.tournament.sandbox import Isolation
from tricktable.tournament.server_runner import ServerDispatcher
from tricktable.tournament.store import TournamentStore

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(600)


def _play(tmp_path: Path, isolation: Isolation, entrants: list[object]) -> list[tuple[str, str]]:
    cfg = config(entrants=entrants, games=2, options={"target": 11})

    async def go() -> TournamentStore:
        store = TournamentStore(tmp_path / "tricktable.sqlite3")
        dispatcher = await ServerDispatcher.open(cfg, address=None, data_dir=tmp_path, isolation=isolation)
        await Tournament(cfg, store, dispatcher, concurrency=2).run()
        return store

    store = asyncio.run(go())
    outcomes = [(outcome.status, outcome.reason) for _, outcome in stored_games(store, "t")]
    store.close()
    return outcomes


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed (`make test` installs it)")
def test_exec_entrants_play_a_tournament_inside_their_sandboxes(tmp_path: Path) -> None:
    entrants: list[object] = [{"name": "python-stdio",
                               "bot": f"exec:{sys.executable} {ROOT / 'examples' / 'stdio-python' / 'bot.py'}"},
                              "heuristic"]
    if shutil.which("node") is not None:
        entrants.append({"name": "node-stdio", "bot": f"exec:node {ROOT / 'examples' / 'stdio-node' / 'bot.js'}"})
    outcomes = _play(tmp_path, "sandbox", entrants)
    assert outcomes and all(status == "finished" for status, _ in outcomes), outcomes


def test_a_tournament_entrant_naming_a_missing_program_is_refused_before_the_first_game(tmp_path: Path) -> None:
    cfg = config(entrants=[{"name": "ghost", "bot": f"exec:{tmp_path / 'nothing-here'}"}, "heuristic"])
    with pytest.raises(ConfigError, match=r"entrant 'ghost': .*no such program"):
        check_bots(cfg)


def test_a_tournament_entrant_whose_class_cannot_be_made_is_refused_with_its_error(tmp_path: Path) -> None:
    mine = tmp_path / "needs_two.py"
    mine.write_text("class NeedsTwo:\n    def __init__(self, a, b):\n        pass\n"
                    "    def choose_action(self, view):\n        return view.legal_actions[0]\n")
    cfg = config(entrants=[{"name": "two", "bot": f"{mine}:NeedsTwo"}, "heuristic"])
    with pytest.raises(ConfigError, match=r"entrant 'two': .*NeedsTwo\(\) failed: TypeError"):
        check_bots(cfg)
