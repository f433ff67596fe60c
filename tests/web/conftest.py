"""Fixtures: a real game server on 127.0.0.1 (port 0) with the web viewer beside it (port 0), and an HTTP client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest

from tests.live_server import running_server
from tricktable.server.app import GameServer
from tricktable.server.clocks import TimeControl
from tricktable.server.logging import configure
from tricktable.web.catalog import ServerCatalog
from tricktable.web.viewer import WebViewer

configure(json=True, level="WARNING")

CLOCKS = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=2.0, join_seconds=30.0)


@dataclass
class Site:
    """A game server, its viewer and a client to the viewer."""

    server: GameServer
    viewer: WebViewer
    http: aiohttp.ClientSession

    @property
    def url(self) -> str:
        return self.viewer.url


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[Site]:
    async with running_server(tmp_path / "data", CLOCKS) as server:
        viewer = WebViewer(ServerCatalog(server.lobby, server.storage.path), port=0)
        await viewer.start()
        try:
            async with aiohttp.ClientSession(base_url=viewer.url) as http:
                yield Site(server, viewer, http)
        finally:
            await viewer.stop()
