"""Fixtures: a real grpc.aio server on 127.0.0.1, port 0, with short clocks, and a stub to it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from tests.live_server import running_server
from tests.server.toy_game import REGISTRY_ENTRY
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.rules import registry
from tricktable.server.app import GameServer
from tricktable.server.clocks import TimeControl
from tricktable.server.logging import configure

configure(json=True, level="WARNING")

#: Clocks for tests: generous enough for a loaded 2-core machine, short enough for timeouts to be tested.
TEST_CLOCKS = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=2.0, join_seconds=10.0)


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy game is registered as ``"toy"`` for these tests (as a real game is in ``registry.GAME_MODULES``)."""
    monkeypatch.setitem(registry.GAME_MODULES, "toy", REGISTRY_ENTRY)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[GameServer]:
    async with running_server(tmp_path / "data", TEST_CLOCKS) as game_server:
        yield game_server


@pytest.fixture
async def stub(server: GameServer) -> AsyncIterator[table_service_pb2_grpc.TableServiceStub]:
    async with grpc.aio.insecure_channel(server.address) as channel:
        yield table_service_pb2_grpc.TableServiceStub(channel)
