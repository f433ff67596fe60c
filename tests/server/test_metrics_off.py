"""``serve --no-metrics``: a server that counts nothing still plays and stores its games, and /metrics is empty."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import grpc
from typer.testing import CliRunner

from tests.server.clients import PlaySeat, create
from tests.server.conftest import TEST_CLOCKS
from tricktable.cli.main import app
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.server.app import GameServer, ServerConfig
from tricktable.web.catalog import ServerCatalog
from tricktable.web.viewer import WebViewer


async def test_a_server_with_metrics_off_plays_stores_and_exposes_nothing(tmp_path: Path) -> None:
    server = GameServer(ServerConfig(host="127.0.0.1", port=0, data_dir=tmp_path, time_control=TEST_CLOCKS,
                                     stop_grace=1.0, metrics=False))
    await server.start()
    viewer = WebViewer(ServerCatalog(server.lobby, server.storage.path), port=0, pages=False)
    await viewer.start()
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = table_service_pb2_grpc.TableServiceStub(channel)
            created = await create(stub, "all_fives", names=["alpha-0", "beta-1"])
            seats = [PlaySeat(stub, t.token) for t in created.seat_tokens]
            await asyncio.wait_for(asyncio.gather(*(seat.play() for seat in seats)), 120)

        async def stored() -> None:
            while server.storage.count() < 1:
                await asyncio.sleep(0.05)

        await asyncio.wait_for(stored(), 60)
        async with aiohttp.ClientSession() as session, session.get(f"{viewer.url}metrics") as response:
            assert (response.status, await response.text()) == (200, "")
        assert not server.lobby.metrics.counting
    finally:
        await viewer.stop()
        await server.stop()


def test_metrics_is_a_flag_and_a_key_of_the_config_file(tmp_path: Path) -> None:
    shown = CliRunner().invoke(app, ["serve", "--no-metrics", "--print-config"])
    assert shown.exit_code == 0 and "metrics = false" in shown.output
    config = tmp_path / "serve.toml"
    config.write_text("metrics = false\n")
    from_file = CliRunner().invoke(app, ["serve", "--config", str(config), "--print-config"])
    assert from_file.exit_code == 0 and "metrics = false" in from_file.output
