"""A call the server refuses as ``RATE_LIMITED``: the SDK waits the ``tricktable-retry-after-ms`` it names and
sends it again, on the same seat (real gRPC on 127.0.0.1:0; no verdict on speed: waits are only lower bounds).

- A bot on the Watch transport whose answer (``SubmitAction``) is refused by its seat token's rate keeps its
  Watch stream (no reconnect, no disconnect in the record), is refused exactly once (it waited long enough),
  and finishes its game.
- Streams are not rate limited: seeking, a ``Play`` stream and ``PlayMany`` seats finish their games on a
  server that lets in one unary call per connection and seat token and never refills them.
- The unary helpers (``create_table``, ``get_record``, ``list_tables``) behind a server that refuses them a few
  times wait at least the hint before each retry and return the answer; a hint past their patience is raised
  as :class:`LimitExceeded` carrying it, at once, without a retry.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest

from tests.live_server import running_server
from tests.sdk.test_runner import _WrongOnceBot
from tests.server.conftest import TEST_CLOCKS
from tests.server.test_call_rate import refused_count
from tricktable.bots.first_legal import FirstLegalBot
from tricktable.client_sdk.errors import LimitExceeded
from tricktable.client_sdk.mux import Seat, play_seats_async
from tricktable.client_sdk.runner import (
    PlayedSeat,
    create_table,
    get_record,
    list_tables,
    play_seat_async,
    seek_and_run_async,
)
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.protocol.trailers import RATE_LIMITED, REASON_KEY, RETRY_AFTER_KEY
from tricktable.server.limits import Limits

OPTIONS = {"target": 11}  # All Fives to 11: a game of a few seconds


async def test_a_watch_bot_refused_by_its_rate_waits_the_hint_and_finishes_on_its_seat(tmp_path: Path) -> None:
    """One call at once, one a second: the wrong first answer spends the call, so the re-asked one, sent at once,
    is refused (a second is a wide margin for "at once" on a loaded machine; the decision's clock is 10 s)."""
    limits = Limits(retain_seconds=30.0, call_burst_per_token=1, call_rate_per_token=1.0)
    async with running_server(tmp_path / "data", TEST_CLOCKS, limits) as server:
        table = await create_table(server.address, game="all_fives", options=OPTIONS, seed="rate-limited")
        wrong = _WrongOnceBot()
        played = await asyncio.wait_for(asyncio.gather(
            play_seat_async(wrong, server.address, token=table.tokens[0], transport="watch", seed=0),
            play_seat_async(FirstLegalBot(), server.address, token=table.tokens[1], transport="watch", seed=1)), 120)
        assert [p.result.status for p in played] == ["finished", "finished"]
        assert wrong.reasons, "the bot's wrong answer was never refused: nothing was tested"
        assert refused_count(server, "seat_token") == 1  # the retry came after the hint: let in
        assert [p.reconnects for p in played] == [0, 0]
        record = json.loads(await get_record(server.address, table.table_id))
        assert [s["disconnects"] for s in record["seats"]] == [0, 0]
        assert record["seats"][0]["rejected"] == len(wrong.reasons)


async def test_streams_are_not_rate_limited_seek_play_and_play_many_finish(tmp_path: Path) -> None:
    never = 1e-9  # a refill that never comes while the test runs
    limits = Limits(retain_seconds=30.0, call_burst_per_token=1, call_rate_per_token=never,
                    call_burst_per_connection=1, call_rate_per_connection=never)
    async with running_server(tmp_path / "data", TEST_CLOCKS, limits) as server:
        sought = await asyncio.wait_for(asyncio.gather(*(
            seek_and_run_async(FirstLegalBot(), server.address, game="all_fives", players=2, name=f"s{i}")
            for i in range(2))), 120)
        assert [r.status for r in sought] == ["finished", "finished"]
        table = await create_table(server.address, game="all_fives", options=OPTIONS)
        many = await asyncio.wait_for(play_seats_async(
            [Seat(bot=FirstLegalBot(), token=token, address=server.address) for token in table.tokens]), 120)
        assert all(isinstance(p, PlayedSeat) and p.result.status == "finished" and p.reconnects == 0 for p in many)
        assert refused_count(server, "seat_token") == refused_count(server, "connection") == 0


class _Refusing(table_service_pb2_grpc.TableServiceServicer):
    """Refuses each unary call ``refusals`` times as RATE_LIMITED with ``hint_ms``, then answers; notes call times."""

    def __init__(self, refusals: int, hint_ms: int) -> None:
        self.refusals = refusals
        self.hint_ms = hint_ms
        self.calls: list[float] = []

    async def _maybe_refuse(self, context: Any) -> None:
        self.calls.append(time.monotonic())
        if len(self.calls) <= self.refusals:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many calls on this connection",
                                trailing_metadata=((REASON_KEY, RATE_LIMITED), (RETRY_AFTER_KEY, str(self.hint_ms))))

    async def CreateTable(self, request: pb.CreateTableRequest, context: Any) -> pb.CreateTableResponse:
        await self._maybe_refuse(context)
        return pb.CreateTableResponse(table_id="t-1", seat_tokens=[pb.SeatToken(seat=0, token="tok-0")])

    async def GetRecord(self, request: pb.GetRecordRequest, context: Any) -> pb.GetRecordResponse:
        await self._maybe_refuse(context)
        return pb.GetRecordResponse(record_json="{}")

    async def ListTables(self, request: pb.ListTablesRequest, context: Any) -> pb.ListTablesResponse:
        await self._maybe_refuse(context)
        return pb.ListTablesResponse(tables=[pb.TableInfo(table_id="t-1")])


@asynccontextmanager
async def refusing_server(refusals: int, hint_ms: int) -> AsyncIterator[tuple[_Refusing, str]]:
    service = _Refusing(refusals, hint_ms)  # type: ignore[abstract]  # the unary calls only
    server = grpc.aio.server()
    table_service_pb2_grpc.add_TableServiceServicer_to_server(service, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield service, f"127.0.0.1:{port}"
    finally:
        await server.stop(None)


@pytest.mark.parametrize("helper", ["create_table", "get_record", "list_tables"])
async def test_a_unary_helper_refused_by_the_rate_waits_the_hint_each_time_and_returns(helper: str) -> None:
    async with refusing_server(refusals=2, hint_ms=150) as (service, address):
        if helper == "create_table":
            created = await create_table(address, game="all_fives")
            assert created.table_id == "t-1"
        elif helper == "get_record":
            assert await get_record(address, "t-1") == "{}"
        else:
            assert [t.table_id for t in await list_tables(address)] == ["t-1"]
        assert len(service.calls) == 3
        gaps = [later - earlier for earlier, later in zip(service.calls, service.calls[1:], strict=False)]
        assert all(gap >= 0.15 for gap in gaps), gaps


async def test_a_hint_past_the_helpers_patience_is_raised_at_once_with_the_hint() -> None:
    async with refusing_server(refusals=5, hint_ms=600_000) as (service, address):
        with pytest.raises(LimitExceeded) as caught:
            await get_record(address, "t-1")
        assert len(service.calls) == 1
        assert caught.value.retry_after == 600.0
