"""Restarting ``tricktable serve`` in tests: the server process, SDK bot fleets, and the record of a game played
through without a restart."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.rules.registry import new_match
from tricktable.rules.shuffle import seed_commitment

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "tricktable.cli.main"]
#: Clocks that a loaded machine never runs out of: a timeout would make a record differ.
SERVE_FLAGS = ("--decision-ms", "60000", "--grace-ms", "60000", "--log-level", "WARNING", "--no-http")
ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}


class Served:
    """A ``tricktable serve`` process."""

    def __init__(self, process: asyncio.subprocess.Process, address: str) -> None:
        self.process = process
        self.address = address
        self.port = int(address.rpartition(":")[2])

    async def signal(self, sig: signal.Signals) -> int:
        self.process.send_signal(sig)
        return await asyncio.wait_for(self.process.wait(), 60)


@asynccontextmanager
async def serve(data_dir: Path, port: int = 0, *flags: str) -> AsyncIterator[Served]:
    """A server on ``data_dir`` at ``port`` (0: a free one), killed at the end if still running."""
    process = await asyncio.create_subprocess_exec(
        *CLI, "serve", "--port", str(port), "--data-dir", str(data_dir), *SERVE_FLAGS, *flags, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=ENV)
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), 60)).decode().strip()
        assert line.startswith("listening on "), line
        yield Served(process, line.removeprefix("listening on "))
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


@contextmanager
def killed_at_exit(processes: list[asyncio.subprocess.Process]) -> Iterator[None]:
    """Kill whatever of ``processes`` still runs when the block ends (a failed test leaves nothing behind)."""
    try:
        yield
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()


async def start_fleet(address: str, tokens: list[str], attempts: int | None = None) -> asyncio.subprocess.Process:
    """A process of SDK first-legal bots (``tests.server.bot_fleet``), one per token (``attempts``: reconnects)."""
    fleet = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.server.bot_fleet", address, *([str(attempts)] if attempts else []), cwd=ROOT,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=ENV)
    assert fleet.stdin is not None
    fleet.stdin.write(json.dumps(tokens).encode())
    fleet.stdin.close()
    return fleet


async def fleet_outcomes(fleet: asyncio.subprocess.Process) -> list[dict[str, Any]]:
    """Each seat's outcome, once the fleet's bots are all done."""
    out, _ = await asyncio.wait_for(fleet.communicate(), 120)
    return [json.loads(line) for line in out.decode().splitlines()]


def uninterrupted_record(game: str, options: dict[str, Any], seed: str) -> dict[str, Any]:
    """The record a server writes for first-legal seats that play the game through without a hitch."""
    match = new_match(game, options, seed=seed)
    while not match.is_over:
        match = match.apply(match.legal_actions()[0])
    record = match.to_record(seed=seed, names=[f"seat-{s}" for s in range(match.config.players)])
    for entry in record["seats"]:
        entry.update({"timeouts": 0, "rejected": 0, "disconnects": 0, "default_actions": 0})
    return record


def opened(record: dict[str, Any]) -> dict[str, Any]:
    """The record without the table's own commitment fields, once they check out (the salt is drawn per table)."""
    assert record["seed_sha256"] == seed_commitment(record["seed"], record["salt"])
    return {k: v for k, v in record.items() if k not in ("seed_sha256", "salt", "seed_chosen")}


async def running_tables(stub: Any) -> list[pb.TableInfo]:
    """The tables the server is playing."""
    listed = await stub.ListTables(pb.ListTablesRequest(status=pb.TABLE_STATUS_RUNNING))
    return list(listed.tables)
