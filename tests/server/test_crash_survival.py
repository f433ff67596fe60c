"""Crash survival end to end: ``tricktable serve`` killed (SIGKILL) mid-play, or stopped (SIGTERM), then restarted.

Real processes on 127.0.0.1: the server, and SDK bots in processes of their
own (``tests.server.bot_fleet``) that reconnect by themselves. The second
server binds the port the first one had, so the bots find it again.
"""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path
from typing import Any

import grpc

from tests.server.clients import PlaySeat, create, first_legal, result_of
from tests.server.restarts import (
    CLI,
    ROOT,
    fleet_outcomes,
    killed_at_exit,
    opened,
    running_tables,
    serve,
    start_fleet,
    uninterrupted_record,
)
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.rules.verify import verify_record
from tricktable.server.journal import Journal
from tricktable.server.storage import Storage

#: Tables of the kill -9 test: (game, options, how many). First-legal All Fives and Cinq Cents games last
#: 130-310 moves over 3-24 deals; Forty-Five's 45-60 and Twenty-Five's about 30 (these may end before the kill).
GAMES: tuple[tuple[str, dict[str, Any], int], ...] = (
    ("all_fives", {}, 10), ("cinq_cents", {"target": 200}, 10), ("forty_five", {"players": 3}, 3),
    ("twenty_five", {}, 2))
#: The kill comes once this many tables are running past their first deal.
MID_PLAY = 20
BOT_PROCESSES = 3


async def test_kill_9_mid_play_then_a_restart_finishes_every_table_with_the_uninterrupted_record(
        tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    tables: dict[str, tuple[str, dict[str, Any], str]] = {}
    published: dict[str, str] = {}
    tokens: list[str] = []
    fleets: list[asyncio.subprocess.Process] = []
    with killed_at_exit(fleets):
        async with serve(data_dir) as first, grpc.aio.insecure_channel(first.address) as channel:
            stub = table_service_pb2_grpc.TableServiceStub(channel)
            for game, options, count in GAMES:
                for index in range(count):
                    seed = f"crash-{game}-{index}"
                    created = await create(stub, game, seed=seed, options=options)
                    tables[created.table_id] = (game, options, seed)
                    published[created.table_id] = created.seed_sha256
                    tokens += [t.token for t in created.seat_tokens]
            fleets += [await start_fleet(first.address, tokens[i::BOT_PROCESSES]) for i in range(BOT_PROCESSES)]
            while len([t for t in await running_tables(stub) if t.deal_number >= 2]) < MID_PLAY:
                assert all(f.returncode is None for f in fleets)
                await asyncio.sleep(0.05)
            assert await first.signal(signal.SIGKILL) == -signal.SIGKILL
            port = first.port
        async with serve(data_dir, port) as second, grpc.aio.insecure_channel(second.address) as channel:
            stub = table_service_pb2_grpc.TableServiceStub(channel)
            resumed = await running_tables(stub)
            outcomes = [o for fleet in fleets for o in await fleet_outcomes(fleet)]
            records = {t: json.loads((await stub.GetRecord(pb.GetRecordRequest(table_id=t))).record_json)
                       for t in tables}
            assert await second.signal(signal.SIGTERM) == 0
    assert len(resumed) >= MID_PLAY  # the second server resumed the tables the first was playing
    assert len(outcomes) == len(tokens) and all(o.get("status") == "finished" for o in outcomes), outcomes
    for table_id, (game, options, seed) in tables.items():
        assert opened(records[table_id]) == uninterrupted_record(game, options, seed), table_id
        assert records[table_id]["seed_sha256"] == published[table_id]  # the commitment survived the crash
    files = []
    for table_id, record in records.items():
        path = tmp_path / f"{table_id}.json"
        path.write_text(json.dumps(record))
        files.append(str(path))
    verify = await asyncio.create_subprocess_exec(*CLI, "verify", *files, cwd=ROOT, stdout=asyncio.subprocess.PIPE)
    out, _ = await asyncio.wait_for(verify.communicate(), 60)
    assert verify.returncode == 0, out.decode()
    journal = Journal(data_dir).open()
    assert journal.count() == 0  # every finished table has left the journal
    journal.close()


async def test_sigterm_drains_then_leaves_running_tables_in_the_journal_for_the_next_start(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    table_ids, token_sets = [], []
    answered = [0]
    held = [0]

    def until_ten(decision: pb.DecisionRequest) -> pb.Decide | None:
        if answered[0] >= 10:  # then every seat falls silent, its stream open, mid-game
            held[0] += 1
            return None
        answered[0] += 1
        return first_legal(decision)

    async with serve(data_dir, 0, "--drain-seconds", "0.5") as first, \
            grpc.aio.insecure_channel(first.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        listeners = []
        for index in range(3):
            created = await create(stub, "forty_five", seed=f"sigterm-{index}")
            table_ids.append(created.table_id)
            token_sets.append([t.token for t in created.seat_tokens])
            answered[0] = held[0] = 0
            listeners += [asyncio.ensure_future(PlaySeat(stub, t.token, choose=until_ten).play())
                          for t in created.seat_tokens]
            while not held[0]:  # the eleventh decision request: the tenth action has been played
                await asyncio.sleep(0.02)
        assert await first.signal(signal.SIGTERM) == 0
        broken = await asyncio.wait_for(asyncio.gather(*listeners, return_exceptions=True), 10)
        port = first.port
    assert all(isinstance(b, grpc.aio.AioRpcError) and b.code() is grpc.StatusCode.UNAVAILABLE for b in broken)
    storage = Storage(data_dir).open()
    assert all(storage.record(t) is None for t in table_ids)  # not aborted: left for the next start
    storage.close()
    async with serve(data_dir, port) as second, grpc.aio.insecure_channel(second.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        runs = await asyncio.wait_for(asyncio.gather(*(PlaySeat(stub, t).play() for ts in token_sets for t in ts)),
                                      60)
        records = [json.loads((await stub.GetRecord(pb.GetRecordRequest(table_id=t))).record_json)
                   for t in table_ids]
    assert all((r := result_of(run)) is not None and r.reason == "target reached" for run in runs)
    for index, record in enumerate(records):
        assert opened(record) == uninterrupted_record("forty_five", {}, f"sigterm-{index}")
        assert verify_record(record) is None


#: Seconds the server stays away in the rejoin test: most of an SDK seat's patience (Backoff: 36.3 s).
AWAY_S = 28.0


async def test_seats_rejoin_a_server_back_late_within_their_patience(tmp_path: Path) -> None:
    """The SDK's channel tries again within a second, so a seat sees the server back long before it gives up.

    Why 28 s: gRPC's own reconnect backoff would by then wait some 10-17 s between attempts, answering the
    seat's retries from a cached "connection refused" until its patience ran out.
    """
    data_dir = tmp_path / "data"
    tokens: list[str] = []
    fleets: list[asyncio.subprocess.Process] = []
    with killed_at_exit(fleets):
        async with serve(data_dir) as first, grpc.aio.insecure_channel(first.address) as channel:
            stub = table_service_pb2_grpc.TableServiceStub(channel)
            for index in range(4):
                created = await create(stub, "cinq_cents", seed=f"late-{index}", options={"target": 500})
                tokens += [t.token for t in created.seat_tokens]
            fleets.append(await start_fleet(first.address, tokens))
            while len([t for t in await running_tables(stub) if t.deal_number >= 1]) < 4:
                assert fleets[0].returncode is None
                await asyncio.sleep(0.05)
            assert await first.signal(signal.SIGKILL) == -signal.SIGKILL
            port = first.port
        await asyncio.sleep(AWAY_S)
        async with serve(data_dir, port) as second:
            outcomes = await fleet_outcomes(fleets[0])
            assert await second.signal(signal.SIGTERM) == 0
    assert len(outcomes) == len(tokens) and all(o.get("status") == "finished" for o in outcomes), outcomes
