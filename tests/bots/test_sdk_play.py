"""The heuristic and search bots play whole games as SDK clients of the real server (127.0.0.1:0)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.live_server import running_server
from tricktable.bots.heuristic import HeuristicBot
from tricktable.bots.search import SearchBot
from tricktable.client_sdk.bot import Bot
from tricktable.client_sdk.runner import Backoff, create_table, get_record, run_bot_async
from tricktable.server.app import GameServer
from tricktable.server.clocks import TimeControl

FAST = Backoff(initial=0.02, maximum=0.2, attempts=8)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[GameServer]:
    clocks = TimeControl(decision_seconds=10.0, bank_seconds=30.0, grace_seconds=5.0, join_seconds=10.0)
    async with running_server(tmp_path / "data", clocks) as game_server:
        yield game_server


@pytest.mark.parametrize("game", ["twenty_five", "all_fives"])
async def test_heuristic_and_search_finish_a_game_through_the_server(server: GameServer, game: str) -> None:
    players = 4 if game == "twenty_five" else 2
    bots: list[Bot] = [SearchBot(s, simulations=2) if s % 2 else HeuristicBot() for s in range(players)]
    table = await create_table(server.address, game=game, seed="bots-sdk",
                               seat_names=[f"bot-{i}" for i in range(players)])
    runs = [run_bot_async(bot, server.address, token=token, backoff=FAST, seed=i)
            for i, (bot, token) in enumerate(zip(bots, table.tokens, strict=True))]
    results = await asyncio.wait_for(asyncio.gather(*runs), timeout=240)
    assert results[0].status == "finished"
    record = json.loads(await get_record(server.address, table.table_id))
    assert record["result"]["status"] == "finished"
    assert any(bot.total_worlds for bot in bots if isinstance(bot, SearchBot)), "the search searched"
