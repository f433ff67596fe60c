"""End to end with real processes over 127.0.0.1: ``tricktable serve``, ``tricktable bot``, ``tricktable match``."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.rules.verify import verify_record

CLI = [sys.executable, "-m", "tricktable.cli.main"]
ROOT = Path(__file__).resolve().parents[2]
#: Bots per game: random where a random game ends; Cinq Cents' random auction may never end (docs/games.md 3.6).
BOTS = {"twenty_five": ("random", {}), "forty_five": ("random", {}), "all_fives": ("random", {"target": 31}),
        "cinq_cents": ("first-legal", {"target": 200})}


async def run(*args: str, timeout: float = 90) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(*CLI, *args, cwd=ROOT, stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(process.communicate(), timeout)
    except BaseException:  # timed out or cancelled: leave no process behind
        if process.returncode is None:
            process.kill()
            await process.wait()
        raise
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


class Served:
    """A ``tricktable serve`` process on a free port."""

    def __init__(self, process: asyncio.subprocess.Process, address: str) -> None:
        self.process = process
        self.address = address

    async def terminate(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return await asyncio.wait_for(self.process.wait(), 30)


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    process = await asyncio.create_subprocess_exec(
        *CLI, "serve", "--port", "0", "--http-port", "0", "--data-dir", str(tmp_path / "data"),
        "--log-level", "WARNING", "--grace-ms", "60000", cwd=ROOT, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert process.stdout is not None
    line = (await asyncio.wait_for(process.stdout.readline(), 60)).decode().strip()
    assert line.startswith("listening on "), line
    served = Served(process, line.removeprefix("listening on "))
    try:
        yield served
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_bot_processes_play_every_game_and_the_records_verify(served: Served, tmp_path: Path) -> None:
    async with grpc.aio.insecure_channel(served.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        bots = []
        tables = {}
        for game, (bot, options) in BOTS.items():
            created = await stub.CreateTable(pb.CreateTableRequest(
                game=convert.game_to_proto(game), options=convert.options_to_proto(game, options)))
            tables[game] = created.table_id
            bots += [run("bot", bot, "--server", served.address, "--token", t.token, "--seed", f"{game}{t.seat}")
                     for t in created.seat_tokens]
        outcomes = await asyncio.gather(*bots)
        assert all(code == 0 and out.startswith("game 1: table ") and "aborted" not in out
                   for code, out, _ in outcomes), outcomes
        files = []
        for game, table_id in tables.items():
            record = json.loads((await stub.GetRecord(pb.GetRecordRequest(table_id=table_id))).record_json)
            assert record["game"] == game and record["result"]["status"] == "finished"
            path = tmp_path / f"{game}.json"
            path.write_text(json.dumps(record))
            files.append(str(path))
    code, out, err = await run("verify", *files)
    assert code == 0, out + err
    assert await served.terminate() == 0



async def test_match_command_plays_a_game_over_grpc(tmp_path: Path) -> None:
    code, out, err = await run("match", "--game", "twenty_five", "--bots", "random,random,first-legal,random",
                               "--data-dir", str(tmp_path), "--seed", "match-test", timeout=120)
    assert code == 0, out + err
    assert "finished: won by" in out
    [path] = (tmp_path / "records").glob("*.json")
    assert str(path.name) in out.replace("\n", "")
    record: dict[str, Any] = json.loads(path.read_text())
    assert record["seed"] == "match-test" and verify_record(record) is None
    assert [s["name"] for s in record["seats"]] == ["random-0", "random-1", "first-legal-2", "random-3"]


async def test_match_command_refuses_a_wrong_bot_count(tmp_path: Path) -> None:
    code, out, _ = await run("match", "--game", "twenty_five", "--bots", "random,random", "--data-dir", str(tmp_path))
    assert code == 2 and "error" in out and "players" in out
    code, out, _ = await run("match", "--game", "all_fives", "--bots", "random,nobody", "--data-dir", str(tmp_path))
    assert code == 2 and "unknown bot 'nobody'" in out
