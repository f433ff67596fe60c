"""The example bots of examples/python/ play whole games through a real server, loaded by their file spec."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.live_server import running_server
from tricktable.bots import make_bot
from tricktable.bots.random_bot import RandomBot
from tricktable.client_sdk.bot import Bot
from tricktable.client_sdk.runner import create_table, run_bot_async
from tricktable.server.clocks import TimeControl
from tricktable.tournament.arena import play

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"
BOTS = ["high_card.py:HighCard", "cheap_winner.py:CheapWinner", "thinking.py:Thinking"]
GAMES = [("all_fives", {"target": 21}), ("twenty_five", {}), ("forty_five", {"players": 2}),
         ("cinq_cents", {"target": 300})]


@pytest.mark.parametrize("spec", BOTS)
async def test_an_example_bot_finishes_a_game_on_a_real_server(spec: str, tmp_path: Path) -> None:
    clocks = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=5.0, join_seconds=20.0)
    async with running_server(tmp_path / "data", clocks) as server:
        for game, options in GAMES[:2]:
            table = await create_table(server.address, game=game, options=options, seed=f"example-{spec}")
            bots: list[Bot] = [make_bot(f"{EXAMPLES / spec}", "s") if seat == 0 else RandomBot(seat)
                               for seat in range(len(table.tokens))]
            results = await asyncio.wait_for(asyncio.gather(*(
                run_bot_async(bot, server.address, token=token) for bot, token in zip(bots, table.tokens,
                                                                                       strict=True))), 90)
            assert results[0].status == "finished", (game, results[0])


@pytest.mark.parametrize(("game", "options"), GAMES)
def test_the_synchronous_examples_play_every_game_without_a_fault(game: str, options: dict[str, object]) -> None:
    specs = [f"{EXAMPLES / spec}" for spec in BOTS[:2]]
    result = play(game, specs, games=1, duplicate=True, options=options, seed="examples")
    assert all(o.status in ("finished", "adjudicated") for o in result.outcomes), result.summary()
    assert all(t.faults == 0 for t in result.totals().values()), result.summary()
