"""Playing one seat with an exec or webhook bot through a real server (127.0.0.1:0), the other seat a heuristic.

The games are All Fives to 11 points: short, and a seat's every kind of decision comes up. The server's
clock is one second per decision and no bank, so that a bot that never answers costs a second a decision.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.live_server import running_server
from tricktable.bots.external.adapter import ExternalBot, ThreadedBot
from tricktable.bots.external.exec_bot import ExecBot
from tricktable.bots.heuristic import HeuristicBot
from tricktable.client_sdk.runner import Backoff, create_table, get_record, run_bot_async
from tricktable.server.app import GameServer
from tricktable.server.clocks import TimeControl

PROGRAM = Path(__file__).with_name("stdio_program.py")
GAME, OPTIONS = "all_fives", {"target": 11}
FAST = Backoff(initial=0.02, maximum=0.2, attempts=8)
#: Seconds a whole game may take in these tests: a bound against a hang, far above what any game needs.
GAME_TIMEOUT = 240.0


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[GameServer]:
    clocks = TimeControl(decision_seconds=1.0, bank_seconds=0.0, grace_seconds=5.0, join_seconds=30.0)
    async with running_server(tmp_path / "data", clocks) as game_server:
        yield game_server


def program(behaviour: str) -> ExecBot:
    """The misbehaving program of :mod:`tests.bots.stdio_program` as an exec bot."""
    return ExecBot([sys.executable, str(PROGRAM), behaviour], label=f"exec:{behaviour}")


@dataclass(frozen=True, slots=True)
class Played:
    """How the game went: its result status and its record."""

    status: str
    record: dict[str, Any]


async def play_against_heuristic(server: GameServer, bot: ExternalBot) -> Played:
    """Seat 0 played by ``bot`` (answering in a thread, as ``tricktable bot`` runs it), seat 1 by the heuristic."""
    table = await create_table(server.address, game=GAME, options=OPTIONS, seed="external-bots",
                               seat_names=["external", "heuristic"])
    runs = [run_bot_async(ThreadedBot(bot), server.address, token=table.tokens[0], backoff=FAST),
            run_bot_async(HeuristicBot(), server.address, token=table.tokens[1], backoff=FAST)]
    try:
        results = await asyncio.wait_for(asyncio.gather(*runs), timeout=GAME_TIMEOUT)
    finally:
        bot.close()
    record = json.loads(await get_record(server.address, table.table_id))
    return Played(results[0].status, record)
