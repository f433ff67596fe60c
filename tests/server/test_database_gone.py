"""The PostgreSQL record store going away while tables play: the real server over gRPC, SDK bots, a real cluster.

The cluster is stopped (``pg_ctl stop -m fast``: every connection cut)
while tables play. The server must notice without a table ending (its
storage keeper writes to a remote store every second), say ``NOT_SERVING``,
refuse new tables and seekers (``UNAVAILABLE``, ``STORAGE_UNAVAILABLE``),
play every table out, keep the records of those that ended meanwhile in
memory (and serve them from there), and, once the cluster is started again,
store every one of them and take tables again. The cluster is this test's
own (``bench/postgres_cluster.py``), so stopping it disturbs no other test.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2

from bench.postgres_cluster import PostgresCluster, running_cluster
from tests.conftest import need_postgres
from tests.live_server import running_server
from tests.server.clients import create
from tests.server.test_full_disk import CLOCKS, ThinkingBot, is_serving, refusal, serving, until
from tricktable.client_sdk import runner
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.rules.verify import verify_record
from tricktable.server.errors import StorageUnavailableError
from tricktable.server.limits import Limits
from tricktable.server.record_store import record_store

#: Tables playing when the database goes away (All Fives, two seats: 130-310 moves each).
TABLES = 4


@pytest.fixture
def own_cluster() -> Iterator[PostgresCluster]:
    need_postgres()
    with running_cluster() as cluster:
        yield cluster


async def test_the_database_gone_refuses_new_tables_keeps_every_record_and_stores_them_once_it_is_back(
        own_cluster: PostgresCluster, tmp_path: Path) -> None:
    url = own_cluster.create_database()
    data_dir = tmp_path / "data"
    limits = Limits(retain_seconds=120.0)
    async with running_server(data_dir, CLOCKS, limits, database_url=url) as server, \
            grpc.aio.insecure_channel(server.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        tables = [await create(stub, "all_fives", players=2) for _ in range(TABLES)]
        ids = [t.table_id for t in tables]
        bots = [asyncio.create_task(runner.run_bot_async(ThinkingBot(), server.address, token=s.token))
                for t in tables for s in t.seat_tokens]
        await until(lambda: all(server.lobby.table(i).actions_played >= 5 for i in ids), 60, "tables playing")

        own_cluster.stop()
        try:
            await until(lambda: not server.lobby.health.writable, 30, "the store seen failing")
            assert await serving(channel) == health_pb2.HealthCheckResponse.NOT_SERVING
            code, message, reason = await refusal(lambda: create(stub, "all_fives", players=2))
            assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, StorageUnavailableError.reason), message
            assert message.startswith("storage unavailable: records: the database can not be reached;"), message
            seek = pb.SeekGameRequest(game=convert.game_to_proto("all_fives"), players=2)
            assert (await refusal(lambda: stub.SeekGame(seek)))[::2] == (grpc.StatusCode.UNAVAILABLE,
                                                                         StorageUnavailableError.reason)

            # Every table plays out with the database gone; their records wait in memory, and are served from it.
            await until(lambda: all(server.lobby.table(i).is_over for i in ids), 180, "every table over")
            kept = server.lobby.unstored()
            assert kept >= 1
            waiting = next(i for i in ids if i in server.lobby._unstored_ids)
            served = json.loads((await stub.GetRecord(pb.GetRecordRequest(table_id=waiting))).record_json)
            assert served == server.lobby.table(waiting).record
            assert not server.lobby.health.writable
        finally:
            own_cluster.start()

        await until(lambda: server.lobby.health.writable, 30, "the store writes again")
        await until(lambda: server.lobby.unstored() == 0, 30, "every kept record stored")
        await until(lambda: is_serving(channel), 10, "serving again")
        await until(lambda: all(b.done() for b in bots), 60, "every seat got its end")
        assert all(b.result().status == "finished" for b in bots)
        again = await create(stub, "all_fives", players=2)  # tables are taken again
        assert again.table_id

    reader = record_store(tmp_path / "reader", url).open()
    try:
        for table_id in ids:
            record = reader.record(table_id)
            assert record is not None, table_id
            assert verify_record(record) is None, table_id
            assert record["result"]["status"] == "finished", table_id
    finally:
        reader.close()
