"""Unary calls are rate limited per seat token and per connection, on a fake clock (no verdict on speed).

A flood of SubmitAction is refused past its burst with RESOURCE_EXHAUSTED, reason
RATE_LIMITED and a retry hint, and its table plays on; bots answering every decision
over SubmitAction never meet the limit, however small, since a move its table asked for
is not counted; one seat token's budget is not another's, nor one connection's another's.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest

from tests.server.clients import PlaySeat, create, result_of
from tests.server.conftest import TEST_CLOCKS
from tricktable.bots.first_legal import FirstLegalBot
from tricktable.client_sdk.runner import run_bot_async
from tricktable.protocol.generated.tricktable.v1 import game_pb2, table_service_pb2_grpc
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.trailers import PUSHBACK_KEY, RATE_LIMITED, REASON_KEY, RETRY_AFTER_KEY
from tricktable.server.app import GameServer, ServerConfig
from tricktable.server.limits import Limits

OPTIONS = {"target": 11}  # All Fives to 11: a game of a few seconds
#: A channel with a connection of its own (channels of one process share one by default).
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]
#: A rate that refills nothing while a test runs (the clock is fake anyway).
NEVER = 1e-9


class FakeClock:
    """Monotonic seconds that move only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@asynccontextmanager
async def limited_server(tmp_path: Path, clock: FakeClock, **limits: Any) -> AsyncIterator[GameServer]:
    server = GameServer(ServerConfig(port=0, data_dir=tmp_path, time_control=TEST_CLOCKS, stop_grace=0.5,
                                     limits=Limits(**limits)), clock=clock)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def _stale(token: str) -> pb.SubmitActionRequest:
    return pb.SubmitActionRequest(token=token, decide=pb.Decide(decision_id="999", action_id="x"))


def _trailer(error: grpc.aio.AioRpcError, key: str) -> str:
    metadata: Any = error.trailing_metadata() or ()
    return next(str(value) for k, value in metadata if k == key)


def refused_count(server: GameServer, scope: str) -> float:
    """The server's count of refusals by rate in ``scope`` (its metric), as the SDK's rate tests read it too."""
    total = 0.0
    for metric in server.lobby.metrics.registry.collect():
        for sample in metric.samples:
            if sample.name == "tricktable_rate_limited_total" and sample.labels.get("scope") == scope:
                total += sample.value
    return total


async def test_a_flooding_seat_is_refused_past_its_burst_and_its_table_plays_on(tmp_path: Path) -> None:
    clock = FakeClock()
    async with limited_server(tmp_path, clock, call_burst_per_token=5, call_rate_per_token=2.0) as server, \
            grpc.aio.insecure_channel(server.address) as channel, \
            grpc.aio.insecure_channel(server.address, options=OWN_CONNECTION) as flooding:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        flooder = table_service_pb2_grpc.TableServiceStub(flooding)
        table = await create(stub, "all_fives", options=OPTIONS)
        token = table.seat_tokens[0].token
        for _ in range(5):  # the burst: answered, each refused in-band (no such decision)
            answer = await flooder.SubmitAction(_stale(token))
            assert answer.WhichOneof("outcome") == "rejection"
        for _ in range(20):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await flooder.SubmitAction(_stale(token))
            assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert _trailer(caught.value, REASON_KEY) == RATE_LIMITED
            assert _trailer(caught.value, RETRY_AFTER_KEY) == _trailer(caught.value, PUSHBACK_KEY) == "500"
            assert "too many calls on this seat token" in (caught.value.details() or "")
        assert refused_count(server, "seat_token") == 20
        clock.now += 0.5  # one call's worth at 2 a second
        assert (await flooder.SubmitAction(_stale(token))).WhichOneof("outcome") == "rejection"
        with pytest.raises(grpc.aio.AioRpcError):
            await flooder.SubmitAction(_stale(token))
        # Its table is unharmed: both seats play it to the end, the flooded one included.
        seats = [PlaySeat(stub, t.token) for t in table.seat_tokens]
        runs = await asyncio.wait_for(asyncio.gather(*(seat.play() for seat in seats)), 90)
        assert all((r := result_of(run)) is not None and r.status == game_pb2.RESULT_STATUS_FINISHED for run in runs)
        # Refused calls did nothing: the record counts only the 6 answered ones as refusals of seat 0.
        record = await stub.GetRecord(pb.GetRecordRequest(table_id=table.table_id))
        assert '"rejected": 6' in record.record_json


async def test_bots_answering_every_decision_over_submit_action_never_meet_the_limit(tmp_path: Path) -> None:
    """A budget of one call and no refill: every accepted move gives its call back, so a whole game is played."""
    clock = FakeClock()
    async with limited_server(tmp_path, clock, call_burst_per_token=1, call_rate_per_token=NEVER,
                              call_burst_per_connection=2, call_rate_per_connection=NEVER) as server:
        async with grpc.aio.insecure_channel(server.address, options=OWN_CONNECTION) as channel:
            table = await create(table_service_pb2_grpc.TableServiceStub(channel), "all_fives", options=OPTIONS)
        results = await asyncio.wait_for(asyncio.gather(*(
            run_bot_async(FirstLegalBot(), server.address, token=t.token, transport="watch")
            for t in table.seat_tokens)), 90)
        assert [r.status for r in results] == ["finished", "finished"]
        assert refused_count(server, "seat_token") == refused_count(server, "connection") == 0


async def test_one_seat_tokens_budget_is_not_anothers(tmp_path: Path) -> None:
    clock = FakeClock()
    async with limited_server(tmp_path, clock, call_burst_per_token=3, call_rate_per_token=NEVER) as server, \
            grpc.aio.insecure_channel(server.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        table = await create(stub, "all_fives", options=OPTIONS)
        first, second = (t.token for t in table.seat_tokens)
        for _ in range(3):
            await stub.SubmitAction(_stale(first))
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.SubmitAction(_stale(first))
        assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        for _ in range(3):  # the other seat's token, on the same connection: its own budget
            assert (await stub.SubmitAction(_stale(second))).WhichOneof("outcome") == "rejection"


async def test_a_connection_past_its_budget_is_refused_and_another_connection_is_not(tmp_path: Path) -> None:
    """Every unary call counts against its connection (GetTable here); a flood of unknown tokens too."""
    clock = FakeClock()
    async with limited_server(tmp_path, clock, call_burst_per_connection=4, call_rate_per_connection=1.0) as server, \
            grpc.aio.insecure_channel(server.address, options=OWN_CONNECTION) as greedy, \
            grpc.aio.insecure_channel(server.address, options=OWN_CONNECTION) as other:
        stub, neighbour = (table_service_pb2_grpc.TableServiceStub(c) for c in (greedy, other))
        table = await create(stub, "all_fives", options=OPTIONS)  # the first of the 4
        for _ in range(2):
            await stub.GetTable(pb.GetTableRequest(table_id=table.table_id))
        with pytest.raises(grpc.aio.AioRpcError) as unknown:
            await stub.SubmitAction(_stale("no-such-token"))
        assert unknown.value.code() is grpc.StatusCode.UNAUTHENTICATED  # the 4th: answered, and counted
        for call in (stub.GetTable(pb.GetTableRequest(table_id=table.table_id)),
                     stub.SubmitAction(_stale("another-unknown-token")), stub.ListTables(pb.ListTablesRequest())):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await call
            assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert _trailer(caught.value, REASON_KEY) == RATE_LIMITED
            assert _trailer(caught.value, RETRY_AFTER_KEY) == "1000"
            assert "too many calls on this connection" in (caught.value.details() or "")
        assert refused_count(server, "connection") == 3
        info = await neighbour.GetTable(pb.GetTableRequest(table_id=table.table_id))  # the same address
        assert info.table.table_id == table.table_id
        clock.now += 1.0
        await stub.GetTable(pb.GetTableRequest(table_id=table.table_id))  # refilled


async def test_a_rate_of_zero_turns_the_limit_off(tmp_path: Path) -> None:
    clock = FakeClock()
    async with limited_server(tmp_path, clock, call_burst_per_token=1, call_rate_per_token=0.0,
                              call_burst_per_connection=1, call_rate_per_connection=0.0) as server, \
            grpc.aio.insecure_channel(server.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        table = await create(stub, "all_fives", options=OPTIONS)
        for _ in range(10):
            await stub.SubmitAction(_stale(table.seat_tokens[0].token))
        assert refused_count(server, "seat_token") == refused_count(server, "connection") == 0
