"""``tricktable serve --shards N``: real shard processes behind one address, placement, routing, one record store.

The server runs as a real ``tricktable serve --shards 2`` (shard 0 in the
command's process, shard 1 a child process); clients are raw protocol
clients on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest

from tests.server.clients import PlayMany, PlaySeat, create, result_of, spectate
from tests.server.conftest import TEST_CLOCKS
from tests.server.test_hostile_streams import UNDECODABLE, final_code, join, raw_play, read_until
from tricktable.bots.first_legal import FirstLegalBot
from tricktable.client_sdk.runner import play_target, run_bot_async, seek_and_run_async
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import game_pb2, table_service_pb2_grpc
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.server.app import GameServer, ServerConfig
from tricktable.server.limits import Limits
from tricktable.server.shard_ids import shard_of_table, shard_of_token, table_id_for, token_prefix
from tricktable.server.sharded import shard_count
from tricktable.server.storage import DB_NAME

CLI = [sys.executable, "-m", "tricktable.cli.main"]
ROOT = Path(__file__).resolve().parents[2]
OPTIONS = {"target": 11}  # All Fives to 11: a game of a few seconds


def test_table_ids_and_tokens_name_their_shard() -> None:
    assert shard_of_table(table_id_for(3, "abc")) == 3 and shard_of_table(table_id_for(None, "abc")) is None
    assert shard_of_token(token_prefix(12) + "x.y-z") == 12 and shard_of_token("AbC.def") is None
    assert shard_of_table("no-table") is None and shard_of_token("") is None


def test_zero_shards_means_one_per_core() -> None:
    assert shard_count(0) == (os.cpu_count() or 1) and shard_count(3) == 3
    with pytest.raises(ValueError, match="--shards"):
        shard_count(-1)


def test_clients_dial_the_tables_shard_keeping_their_own_host_for_a_wildcard_bind() -> None:
    assert play_target("example.org:50051", "") == "example.org:50051"
    assert play_target("example.org:50051", "10.0.0.7:50052") == "10.0.0.7:50052"
    assert play_target("example.org:50051", "0.0.0.0:50052") == "example.org:50052"
    assert play_target("[::1]:50051", "[::]:50053") == "[::1]:50053"


@dataclass
class ShardedServer:
    process: asyncio.subprocess.Process
    address: str
    shards: dict[int, tuple[int, str]]  # shard -> (pid, address)
    data_dir: Path


@contextlib.asynccontextmanager
async def start_sharded(data_dir: Path) -> AsyncIterator[ShardedServer]:
    """``tricktable serve --shards 2`` on free ports with ``data_dir``; SIGTERM (then kill) at the end."""
    process = await asyncio.create_subprocess_exec(
        *CLI, "serve", "--port", "0", "--no-http", "--shards", "2", "--data-dir", str(data_dir),
        "--log-level", "WARNING", "--drain-seconds", "0",
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert process.stdout is not None
    shards: dict[int, tuple[int, str]] = {}
    try:
        while True:
            line = (await asyncio.wait_for(process.stdout.readline(), 90)).decode().strip()
            assert line, "the server ended before it listened"
            if line.startswith("shard "):
                words = line.split()  # shard K pid P listening on ADDR
                shards[int(words[1])] = (int(words[3]), words[-1])
            elif line.startswith("listening on "):
                break
        yield ShardedServer(process, line.removeprefix("listening on "), shards, data_dir)
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 60)
            except TimeoutError:
                process.kill()
                await process.wait()


@pytest.fixture
async def sharded(tmp_path: Path) -> AsyncIterator[ShardedServer]:
    async with start_sharded(tmp_path / "data") as server:
        yield server


async def _play_table(address: str, tokens: list[str]) -> list[Any]:
    """Play every seat first-legal through ``address`` to the end; each seat's run."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        return list(await asyncio.wait_for(asyncio.gather(*(PlaySeat(stub, t).play() for t in tokens)), 90))


async def _record_listed(stub: Any, table_ids: set[str]) -> set[str]:
    for _ in range(100):  # records are stored just after the streams end
        listed = await stub.ListTables(pb.ListTablesRequest(status=pb.TABLE_STATUS_FINISHED))
        found = {t.table_id for t in listed.tables} & table_ids
        if found == table_ids:
            return found
        await asyncio.sleep(0.05)
    return found


async def _stored(data_dir: Path, table_ids: set[str]) -> set[str]:
    """The ids of ``table_ids`` in the one store, once all are (records are stored in batches, lobby.STORE_SECONDS;
    no verdict on how long that takes: the suite's timeout bounds the wait)."""
    while True:
        with sqlite3.connect(data_dir / DB_NAME) as db:
            found = {row[0] for row in db.execute("SELECT id FROM tables")} & table_ids
        if found == table_ids:
            return found
        await asyncio.sleep(0.05)


async def test_tables_are_placed_on_every_shard_and_answered_with_their_shards_address(sharded: ShardedServer) -> None:
    assert sorted(sharded.shards) == [0, 1] and sharded.shards[0][1] == sharded.address
    assert sharded.shards[1][0] != sharded.process.pid  # shard 1 is another process
    async with grpc.aio.insecure_channel(sharded.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = [await create(stub, "all_fives", options=OPTIONS) for _ in range(4)]
    placed = [shard_of_table(c.table_id) for c in created]
    assert sorted(placed) == [0, 0, 1, 1]  # type: ignore[type-var]
    for c, shard in zip(created, placed, strict=True):
        assert shard is not None and c.play_address == sharded.shards[shard][1]
        assert all(shard_of_token(t.token) == shard for t in c.seat_tokens)


async def test_every_call_about_a_table_reaches_its_shard_from_the_public_address(sharded: ShardedServer) -> None:
    async with grpc.aio.insecure_channel(sharded.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = [await create(stub, "all_fives", options=OPTIONS) for _ in range(2)]
        remote = next(c for c in created if shard_of_table(c.table_id) == 1)
        info = await stub.GetTable(pb.GetTableRequest(table_id=remote.table_id))
        assert info.table.status == pb.TABLE_STATUS_WAITING
        with pytest.raises(grpc.aio.AioRpcError) as early:
            await stub.GetRecord(pb.GetRecordRequest(table_id=remote.table_id))
        assert early.value.code() is grpc.StatusCode.FAILED_PRECONDITION  # running there, not unknown
        watching = asyncio.ensure_future(spectate(stub, remote.table_id))
        # Through shard 0, which relays to shard 1: seat 0 on Play (bidirectional, by token), seat 1 on Watch
        # plus SubmitAction (the SDK's unary path).
        played, watched = await asyncio.wait_for(asyncio.gather(
            PlaySeat(stub, remote.seat_tokens[0].token).play(),
            run_bot_async(FirstLegalBot(), sharded.address, token=remote.seat_tokens[1].token, transport="watch")),
            90)
        assert (r := result_of(played)) is not None and r.status == game_pb2.RESULT_STATUS_FINISHED
        assert watched.status == "finished"
        seen = await asyncio.wait_for(watching, 30)
        assert seen[0].WhichOneof("kind") == "started" and seen[-1].event.WhichOneof("kind") == "game_ended"
        assert await _record_listed(stub, {remote.table_id}) == {remote.table_id}
        record = await stub.GetRecord(pb.GetRecordRequest(table_id=remote.table_id))
        assert '"status": "finished"' in record.record_json
        # Shard 0 alone does not know the token (UNAUTHENTICATED); shard 1's ended table refuses in-band.
        answer = await stub.SubmitAction(pb.SubmitActionRequest(
            token=remote.seat_tokens[0].token, decide=pb.Decide(decision_id="1", action_id="x")))
        assert answer.WhichOneof("outcome") == "rejection"


async def test_a_play_many_call_to_one_shard_plays_seats_of_every_shard(sharded: ShardedServer) -> None:
    async with grpc.aio.insecure_channel(sharded.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = [await create(stub, "all_fives", options=OPTIONS) for _ in range(2)]
        assert {shard_of_table(c.table_id) for c in created} == {0, 1}
        seats = [(c.table_id, t.seat, t.token) for c in created for t in c.seat_tokens]
        client = PlayMany(stub)
        # Every seat on shard 0's call; a bad token naming shard 1 is refused there, and relayed.
        await client.join({n: token for n, (_, _, token) in enumerate(seats)} | {9: token_prefix(1) + "bad.token"})
        run = await asyncio.wait_for(client.play(len(seats) + 1), 90)
    assert [c.code for c in run.closed[9]] == [grpc.StatusCode.UNAUTHENTICATED.value[0]]
    for n, (table_id, seat, _) in enumerate(seats):
        joined = run.seats[n].responses[0].joined
        assert (joined.table_id, joined.seat) == (table_id, seat) and [c.code for c in run.closed[n]] == [0]
        assert (r := result_of(run.seats[n])) is not None and r.status == game_pb2.RESULT_STATUS_FINISHED

async def test_seekers_on_different_shards_meet_and_are_seated_on_a_placed_table(sharded: ShardedServer) -> None:
    async def seek(address: str) -> pb.SeekSeated:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = table_service_pb2_grpc.TableServiceStub(channel)
            async for update in stub.SeekGame(pb.SeekGameRequest(game=convert.game_to_proto("all_fives"), players=2)):
                if update.WhichOneof("kind") == "seated":
                    return update.seated
        raise AssertionError("the seek ended unseated")

    tables = set()
    for _ in range(2):  # two groups: placement goes round the shards
        first, second = await asyncio.wait_for(
            asyncio.gather(seek(sharded.shards[0][1]), seek(sharded.shards[1][1])), 60)
        assert first.table_id == second.table_id and {first.seat, second.seat} == {0, 1}
        shard = shard_of_table(first.table_id)
        assert shard is not None and first.play_address == sharded.shards[shard][1]
        tables.add(shard)
        runs = await _play_table(first.play_address, [first.token, second.token])
        assert all(result_of(run) is not None for run in runs)
    assert tables == {0, 1}


async def test_the_records_of_every_shard_are_in_one_store(sharded: ShardedServer) -> None:
    async with grpc.aio.insecure_channel(sharded.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = [await create(stub, "all_fives", options=OPTIONS) for _ in range(2)]
        await asyncio.gather(*(_play_table(c.play_address, [t.token for t in c.seat_tokens]) for c in created))
        ids = {c.table_id for c in created}
        assert await _record_listed(stub, ids) == ids
    async with grpc.aio.insecure_channel(sharded.shards[1][1]) as channel:  # any shard lists them all
        assert await _record_listed(table_service_pb2_grpc.TableServiceStub(channel), ids) == ids
    assert await _stored(sharded.data_dir, ids) == ids and {shard_of_table(i) for i in ids} == {0, 1}


async def test_sigterm_stops_every_shard_and_each_resumes_its_own_tables(sharded: ShardedServer) -> None:
    async with grpc.aio.insecure_channel(sharded.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = [await create(stub, "all_fives", options=OPTIONS) for _ in range(2)]
    sharded.process.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(sharded.process.wait(), 60) == 0
    child = sharded.shards[1][0]
    for _ in range(100):
        if not Path(f"/proc/{child}").exists():
            break
        await asyncio.sleep(0.05)
    assert not Path(f"/proc/{child}").exists()
    # Each shard journals in its own folder, so a new start resumes every table on the shard its id names.
    assert {p.name for p in sharded.data_dir.iterdir() if p.is_dir()} >= {"shard-0", "shard-1"}
    async with start_sharded(sharded.data_dir) as again, grpc.aio.insecure_channel(again.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        for c in created:
            info = await stub.GetTable(pb.GetTableRequest(table_id=c.table_id))
            assert info.table.status == pb.TABLE_STATUS_WAITING
        runs = await _play_table(again.address, [t.token for c in created for t in c.seat_tokens])
        assert all(result_of(run) is not None for run in runs)


async def test_sdk_seekers_play_at_the_shard_their_table_was_placed_on(sharded: ShardedServer) -> None:
    results = await asyncio.wait_for(asyncio.gather(*(
        seek_and_run_async(FirstLegalBot(), sharded.address, game="all_fives", players=2) for _ in range(4))), 120)
    assert [r.status for r in results] == ["finished"] * 4
    async with grpc.aio.insecure_channel(sharded.address) as channel:
        listed = await table_service_pb2_grpc.TableServiceStub(channel).ListTables(pb.ListTablesRequest())
    assert {shard_of_table(t.table_id) for t in listed.tables} == {0, 1}  # two tables, round robin



#: The forwarding secret the shards of :func:`shards_in_process` share.
SECRET = b"shards-in-process-forwarding-secret-0123456789"


@contextlib.asynccontextmanager
async def shards_in_process(data_dir: Path, limits: Limits) -> AsyncIterator[list[GameServer]]:
    """Two shards as two servers of this process (each knowing the other's address), for limits a test sets."""
    servers = [GameServer(ServerConfig(port=0, data_dir=data_dir, limits=limits, time_control=TEST_CLOCKS,
                                       stop_grace=0.5, shard=k, shard_count=2, forwarding_secret=SECRET))
               for k in range(2)]
    for server in servers:
        await server.start()
    try:
        for server in servers:
            assert server.shards is not None
            server.shards.set_addresses([s.address for s in servers])
        yield servers
    finally:
        for server in servers:
            await server.stop()


async def test_a_stream_for_another_shard_keeps_the_join_deadline_and_the_refusal_budget(tmp_path: Path) -> None:
    limits = Limits(join_deadline_seconds=1.0, max_rejections_burst=5, max_rejections_per_second=1.0)
    async with shards_in_process(tmp_path, limits) as (first, _), grpc.aio.insecure_channel(first.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        client = PlayMany(stub)
        await client.send((0, pb.PlayRequest()))  # never a join
        await client.send(*[(1, pb.PlayRequest(decide=pb.Decide(decision_id="1")))] * 10)  # refused before a join
        run = await asyncio.wait_for(client.play(until=0), 30)
        assert [c.code for c in run.closed[0]] == [grpc.StatusCode.DEADLINE_EXCEEDED.value[0]]
        assert run.closed[1][0].code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]  # after 5 NOT_JOINED
        assert all(r.reason == pb.REJECTION_REASON_NOT_JOINED for r in run.seats[1].of("rejection"))
        client.cancel()


async def test_an_undecodable_request_on_a_relayed_play_stream_ends_it_invalid_argument(tmp_path: Path) -> None:
    async with shards_in_process(tmp_path, Limits()) as (first, second), \
            grpc.aio.insecure_channel(first.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = [await create(stub, "all_fives", options=OPTIONS) for _ in range(2)]
        remote = next(c for c in created if shard_of_table(c.table_id) == 1)
        call = raw_play(channel)
        await call.write(join(remote.seat_tokens[0].token))
        assert (await read_until(call, "joined")).joined.table_id == remote.table_id
        await call.write(UNDECODABLE)
        assert await final_code(call) is grpc.StatusCode.INVALID_ARGUMENT
        table = second.lobby.table(remote.table_id)
        for _ in range(100):  # the relayed stream is cancelled on the table's shard: its seat disconnects
            if not table.seats[0].connections:
                break
            await asyncio.sleep(0.02)
        assert not table.seats[0].connections
