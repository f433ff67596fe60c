"""A real grpc.aio game server on 127.0.0.1 (port 0) for the tests that talk to one.

Each test package wraps it in its own ``server`` fixture with the clocks its
games need (search bots think longer than first-legal ones); the server, its
limits and its clean stop are the same everywhere.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from tricktable.server.app import GameServer, ServerConfig
from tricktable.server.clocks import TimeControl
from tricktable.server.limits import Limits


@asynccontextmanager
async def running_server(data_dir: Path, clocks: TimeControl, limits: Limits | None = None, *,
                         database_url: str | None = None) -> AsyncIterator[GameServer]:
    """A started server storing in ``data_dir``, stopped (records kept) when the block ends.

    ``limits``: small ones, for the tests that reach them; the defaults (records kept 30 s) otherwise.
    ``database_url``: records in that PostgreSQL database instead of ``data_dir``'s SQLite file.
    """
    game_server = GameServer(ServerConfig(host="127.0.0.1", port=0, data_dir=data_dir, time_control=clocks,
                                          limits=limits or Limits(retain_seconds=30.0), stop_grace=1.0,
                                          database_url=database_url))
    await game_server.start()
    try:
        yield game_server
    finally:
        await game_server.stop()
