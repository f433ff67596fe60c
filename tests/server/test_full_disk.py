"""A full disk end to end: the real server over gRPC on 127.0.0.1, its data directory on a small tmpfs, SDK bots.

The disk is filled while tables play: the server must refuse new tables,
seekers and first joins (``UNAVAILABLE``, reason ``STORAGE_UNAVAILABLE``)
and say ``NOT_SERVING``; every table plays out; no seat receives the end of
a game the journal could resume; once the disk is freed every record is
stored and valid, tables are taken again, and a restart resumes no ended
table. Mounting needs root (CI runs the tests as root).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import sqlite3
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.live_server import running_server
from tests.server.clients import create
from tricktable.client_sdk import runner
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.protocol.trailers import REASON_KEY
from tricktable.rules.actions import Action
from tricktable.rules.game import Result, SeatView
from tricktable.rules.record import action_from_json
from tricktable.rules.registry import new_match
from tricktable.rules.verify import verify_record
from tricktable.server.app import GameServer
from tricktable.server.clocks import TimeControl
from tricktable.server.errors import StorageUnavailableError
from tricktable.server.journal import JOURNAL_NAME, Opening
from tricktable.server.limits import Limits
from tricktable.server.storage import DB_NAME

#: The file system's size: room for the databases and their WALs, small enough to fill in a moment.
DISK = "8m"
#: Tables playing when the disk fills (All Fives, two seats: 130-310 moves each).
TABLES = 6
#: Each bot's thinking per decision (seconds): the games last long enough to be playing when the disk fills.
THINK = 0.01
#: Clocks no loaded machine runs out of (the waiting table waits for its seats through every phase).
CLOCKS = TimeControl(decision_seconds=20.0, bank_seconds=20.0, grace_seconds=20.0, join_seconds=600.0)
#: Free space the server keeps (far under the disk, which the filler fills to the last byte).
MIN_FREE = 256 * 1024


class ThinkingBot:
    """The first legal action, after :data:`THINK` seconds (an asynchronous SDK bot)."""

    name = "thinking"

    async def choose_action(self, view: SeatView) -> Action:
        await asyncio.sleep(THINK)
        return view.legal_actions[0]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of :data:`DISK` mounted for the test (skipped when it can not be mounted: not root)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs the tests as root)")
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK}", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"could not mount a tmpfs: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> Path:
    """Write a file until the file system is full (ENOSPC); return it."""
    filler = disk / "filler"
    chunk = b"\0" * 65536
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(chunk)
        except OSError as error:
            assert error.errno == errno.ENOSPC, error
    with contextlib.suppress(OSError), filler.open("ab", buffering=0) as out:  # the last partial pages
        while True:
            out.write(b"\0" * 512)
    return filler


async def until(condition: Callable[[], Any], seconds: float, what: str) -> Any:
    """Poll the (async or plain) ``condition`` until it is true, under a deadline (then fail naming ``what``)."""
    try:
        async with asyncio.timeout(seconds):
            while True:
                got = condition()
                if asyncio.iscoroutine(got):
                    got = await got
                if got:
                    return got
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"not within {seconds:g} s: {what}") from None


def resumable_running(data_dir: Path, table_id: str) -> bool:
    """Whether a restart now would resume ``table_id`` as running (``Lobby.resume``): its record is not stored,
    the journal holds it, and its journaled steps do not end it."""
    with contextlib.closing(sqlite3.connect(data_dir / DB_NAME)) as db:
        if db.execute("SELECT 1 FROM tables WHERE id = ?", (table_id,)).fetchone() is not None:
            return False
    with contextlib.closing(sqlite3.connect(data_dir / JOURNAL_NAME)) as db:
        row = db.execute("SELECT opening FROM openings WHERE table_id = ?", (table_id,)).fetchone()
        if row is None:
            return False
        steps = [json.loads(s) for (s,) in db.execute(
            "SELECT step FROM steps WHERE table_id = ? ORDER BY seq", (table_id,)).fetchall()]
    opening = Opening.from_json(row[0])
    match = new_match(opening.game, opening.options, seed=opening.seed)
    for step in steps:
        if step["k"] == "abort":
            return False
        if step["k"] == "play":
            match = match.apply(action_from_json(step["a"]), step["s"])
    return not match.is_over


async def refusal(call: Any) -> tuple[grpc.StatusCode, str, str]:
    """The status code, message and reason metadata a refused call ends with."""
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        result = call()
        if hasattr(result, "__aiter__"):
            async for _ in result:
                pass
        else:
            await result
    metadata: Any = refused.value.trailing_metadata() or ()
    reasons = [str(value) for key, value in metadata if key == REASON_KEY]
    return refused.value.code(), refused.value.details() or "", "".join(reasons)


async def serving(channel: grpc.aio.Channel) -> int:
    """The server's status as its health service answers it (for the server as a whole)."""
    health = health_pb2_grpc.HealthStub(channel)
    answer = await health.Check(health_pb2.HealthCheckRequest(service=""))
    return int(answer.status)


async def is_serving(channel: grpc.aio.Channel) -> bool:
    return bool(await serving(channel) == health_pb2.HealthCheckResponse.SERVING)


@contextlib.asynccontextmanager
async def server_on(data_dir: Path) -> AsyncIterator[tuple[GameServer, Any, grpc.aio.Channel]]:
    async with running_server(data_dir, CLOCKS, Limits(retain_seconds=120.0, min_free_bytes=MIN_FREE)) as server, \
            grpc.aio.insecure_channel(server.address) as channel:
        yield server, table_service_pb2_grpc.TableServiceStub(channel), channel


async def test_a_full_disk_refuses_new_tables_keeps_every_record_and_a_restart_resumes_no_ended_table(
        small_disk: Path) -> None:
    data_dir = small_disk / "data"
    ends_seen_resumable: list[str] = []
    async with server_on(data_dir) as (server, stub, channel):
        tables = [await create(stub, "all_fives", players=2) for _ in range(TABLES)]
        waiting = await create(stub, "all_fives", players=2)  # no seat joins it until the disk is freed
        ids = [t.table_id for t in tables]

        async def seat(table_id: str, token: str) -> Result:
            result = await runner.run_bot_async(ThinkingBot(), server.address, token=token)
            if resumable_running(data_dir, table_id):  # the end came: a restart now must not resume it
                ends_seen_resumable.append(table_id)
            return result

        bots = [asyncio.create_task(seat(t.table_id, s.token)) for t in tables for s in t.seat_tokens]
        await until(lambda: all(server.lobby.table(i).actions_played >= 5 for i in ids), 60, "tables playing")

        filler = fill(small_disk)
        await until(lambda: not server.lobby.health.writable, 30, "storage failing")
        code, message, reason = await refusal(lambda: create(stub, "all_fives", players=2))
        assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, StorageUnavailableError.reason), message
        assert message.startswith("storage unavailable: ")
        assert await serving(channel) == health_pb2.HealthCheckResponse.NOT_SERVING
        seek = pb.SeekGameRequest(game=convert.game_to_proto("all_fives"), players=2)
        assert (await refusal(lambda: stub.SeekGame(seek)))[::2] == (grpc.StatusCode.UNAVAILABLE,
                                                                     StorageUnavailableError.reason)

        async def join() -> AsyncIterator[pb.PlayRequest]:
            yield pb.PlayRequest(join=pb.Join(token=waiting.seat_tokens[0].token))
        assert (await refusal(lambda: stub.Play(join())))[::2] == (grpc.StatusCode.UNAVAILABLE,
                                                                   StorageUnavailableError.reason)

        # Every table plays out on the full disk; the records of those that ended on it are kept in memory.
        await until(lambda: all(server.lobby.table(i).is_over for i in ids), 120, "every table over")
        kept = server.lobby.unstored()
        assert kept >= 1
        assert not server.lobby.health.writable and await serving(channel) == health_pb2.HealthCheckResponse.NOT_SERVING

        filler.unlink()
        await until(lambda: server.lobby.health.writable, 30, "storage writes again")
        await until(lambda: server.lobby.unstored() == 0, 30, "every kept record stored")
        await until(lambda: all(b.done() for b in bots), 60, "every seat got its end")
        assert all(b.result().status == "finished" for b in bots)
        await until(lambda: is_serving(channel), 10, "serving again")
        late = [asyncio.create_task(runner.run_bot_async(ThinkingBot(), server.address, token=s.token))
                for s in waiting.seat_tokens]  # joins are taken again, and so are new tables
        again = await create(stub, "twenty_five")
        assert again.table_id
        await asyncio.wait_for(asyncio.gather(*late), 120)
        ids.append(waiting.table_id)
        records = {i: json.loads((await stub.GetRecord(pb.GetRecordRequest(table_id=i))).record_json) for i in ids}
    assert ends_seen_resumable == []
    for table_id, record in records.items():
        assert verify_record(record) is None, table_id
        assert record["result"]["status"] == "finished", table_id

    async with server_on(data_dir) as (restarted, stub, _):
        resumed = [t.id for t in restarted.lobby.open_tables()]
        assert resumed == [again.table_id]  # the one table not over; none of the ended ones
        stored = {i: json.loads((await stub.GetRecord(pb.GetRecordRequest(table_id=i))).record_json) for i in ids}
    assert stored == records

