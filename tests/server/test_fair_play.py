"""Fair play over real gRPC: salted commitments, chosen seeds marked, twins' records and progress withheld."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest

from tests.live_server import running_server
from tests.server.clients import PlaySeat, create
from tests.server.conftest import TEST_CLOCKS
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.rules.shuffle import seed_commitment
from tricktable.rules.verify import verify_record
from tricktable.server.app import GameServer

OPTIONS = {"target": 21}


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[GameServer]:
    """The server of the other tests, with a join deadline long enough for a twin to wait out a whole game."""
    async with running_server(tmp_path / "data", replace(TEST_CLOCKS, join_seconds=300.0)) as game_server:
        yield game_server


async def play_out(stub: Any, created: pb.CreateTableResponse) -> None:
    """Every seat of the table played by first-legal Play streams until the end."""
    await asyncio.gather(*(PlaySeat(stub, t.token).play() for t in created.seat_tokens))


async def record_status(stub: Any, table_id: str, owner_token: str = "") -> tuple[grpc.StatusCode, dict[str, Any]]:
    """GetRecord's status code and record (empty when refused), once the table's record is stored."""
    for _ in range(200):
        try:
            response = await stub.GetRecord(pb.GetRecordRequest(table_id=table_id, owner_token=owner_token))
            return grpc.StatusCode.OK, json.loads(response.record_json)
        except grpc.aio.AioRpcError as error:
            if error.code() is not grpc.StatusCode.FAILED_PRECONDITION:  # not stored yet: ask again
                return error.code(), {}
        await asyncio.sleep(0.02)
    raise AssertionError("the record never came")


async def test_tables_dealt_from_one_short_seed_publish_unrelated_salted_commitments(stub: Any) -> None:
    twins = [await create(stub, "all_fives", seed="s1", options=OPTIONS) for _ in range(3)]
    drawn = await create(stub, "all_fives", options=OPTIONS)
    commitments = {t.seed_sha256 for t in twins}
    assert len(commitments) == 3  # one per table: the twins can not be matched by their commitment
    assert hashlib.sha256(b"s1").hexdigest() not in commitments  # no longer reversible by trying seeds
    assert all(t.table.seed_chosen for t in twins) and not drawn.table.seed_chosen
    listed = {i.table_id: i for i in (await stub.ListTables(pb.ListTablesRequest())).tables}
    assert listed[twins[0].table_id].seed_chosen and not listed[drawn.table_id].seed_chosen
    assert listed[twins[0].table_id].seed_sha256 == twins[0].seed_sha256


async def test_record_reveals_the_salt_and_verify_checks_the_commitment(stub: Any) -> None:
    created = await create(stub, "all_fives", seed="s1", options=OPTIONS)
    await play_out(stub, created)
    code, record = await record_status(stub, created.table_id)
    assert code is grpc.StatusCode.OK
    assert record["seed"] == "s1" and record["seed_chosen"] is True and len(record["salt"]) == 32
    assert record["seed_sha256"] == created.seed_sha256 == seed_commitment("s1", record["salt"])
    assert verify_record(record) is None
    forged = {**record, "salt": "0" * 32}
    found = verify_record(forged)
    assert found is not None and found.field == "seed_sha256"


async def test_finished_twin_withholds_record_progress_and_spectating_while_its_twin_runs(stub: Any) -> None:
    first = await create(stub, "all_fives", seed="dup", options=OPTIONS)
    twin = await create(stub, "all_fives", seed="dup", options=OPTIONS)  # waiting: its seats have not joined
    with pytest.raises(grpc.aio.AioRpcError) as live:  # watching one twin play would show the other's cards
        [_ async for _ in stub.Spectate(pb.SpectateRequest(table_id=first.table_id), timeout=10)]
    assert live.value.code() is grpc.StatusCode.PERMISSION_DENIED
    await play_out(stub, first)
    code, _ = await record_status(stub, first.table_id)
    assert code is grpc.StatusCode.PERMISSION_DENIED
    code, record = await record_status(stub, first.table_id, first.owner_token)
    assert code is grpc.StatusCode.OK and verify_record(record) is None
    code, _ = await record_status(stub, first.table_id, twin.owner_token)  # another table's owner token
    assert code is grpc.StatusCode.PERMISSION_DENIED
    info = (await stub.GetTable(pb.GetTableRequest(table_id=first.table_id))).table
    assert info.status == pb.TABLE_STATUS_FINISHED and not info.scores and not info.HasField("result")
    listed = [i for i in (await stub.ListTables(pb.ListTablesRequest())).tables if i.table_id == first.table_id]
    assert listed and not listed[0].scores and not listed[0].HasField("result")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        [_ async for _ in stub.Spectate(pb.SpectateRequest(table_id=first.table_id), timeout=10)]
    assert refused.value.code() is grpc.StatusCode.PERMISSION_DENIED
    await play_out(stub, twin)  # no table of the seed is left running: both records are public
    for table in (first, twin):
        code, record = await record_status(stub, table.table_id)
        assert code is grpc.StatusCode.OK and record["result"]["status"] == "finished"
    info = (await stub.GetTable(pb.GetTableRequest(table_id=twin.table_id))).table
    assert info.HasField("result") and list(info.scores) == record["result"]["scores"]


async def test_sealed_table_is_for_its_owner_token_only(stub: Any) -> None:
    request = pb.CreateTableRequest(game=convert.game_to_proto("all_fives"),
                                    options=convert.options_to_proto("all_fives", OPTIONS), seed="sealed", sealed=True)
    created = await stub.CreateTable(request)
    assert created.table.sealed and created.owner_token
    await play_out(stub, created)
    code, _ = await record_status(stub, created.table_id)
    assert code is grpc.StatusCode.PERMISSION_DENIED
    code, record = await record_status(stub, created.table_id, created.owner_token)
    assert code is grpc.StatusCode.OK and verify_record(record) is None
