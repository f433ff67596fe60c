"""Helpers of the web tests: tables played in-process, a small tournament, reading an event stream."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp

from tricktable.server.tables import Table
from tricktable.tournament.config import config_from_mapping
from tricktable.tournament.engine import Tournament, local_dispatcher
from tricktable.tournament.store import TournamentStore


def play(table: Table, actions: int, *, prefer: str | None = None) -> None:
    """Answer ``actions`` pending decisions with the first legal action (or the first of type ``prefer``)."""
    for _ in range(actions):
        seat = table.match.to_act
        assert seat is not None
        pending = table.pending_for(seat)
        assert pending is not None
        chosen = next((a for a in pending.legal_actions if a.type == prefer), pending.legal_actions[0])
        assert table.submit(seat, pending.decision_id, chosen).accepted


async def sse_messages(response: aiohttp.ClientResponse) -> AsyncIterator[tuple[str, dict[str, Any]]]:
    """(event name, data) of each message of a Server-Sent Events response."""
    kind, data = "message", ""
    async for raw in response.content:
        line = raw.decode().rstrip("\n")
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: "):
            data += line.removeprefix("data: ")
        elif not line and data:
            yield kind, json.loads(data)
            kind, data = "message", ""


async def run_tournament(db: Path, name: str = "web-cup", games: int = 2) -> None:
    """A small All Fives round robin of built-in bots, in-process, stored in ``db``."""
    config = config_from_mapping({"name": name, "game": "all_fives", "entrants": ["random", "first-legal", "heuristic"],
                                  "games": games, "seed": "web"})
    store = TournamentStore(db)
    try:
        await Tournament(config, store, local_dispatcher(config, 1)).run()
    finally:
        store.close()
