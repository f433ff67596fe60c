"""Streams that cannot be wedged, tried as a hostile client would: raw bytes on a real gRPC stream.

The raw client is a ``grpc.aio`` channel's ``stream_stream`` without serializers: it writes whatever
bytes it likes and reads the server's bytes, exactly as a client in any language could.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from structlog.testing import capture_logs

from tests.live_server import running_server
from tests.server.clients import PlaySeat, create
from tests.server.conftest import TEST_CLOCKS
from tests.server.toy_game import RULES
from tricktable.bots.first_legal import FirstLegalBot
from tricktable.client_sdk.runner import Backoff, run_bot_async
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.rules.actions import Play
from tricktable.rules.cards import card
from tricktable.rules.match import Match
from tricktable.rules.shuffle import SeededDecks
from tricktable.server.app import GameServer
from tricktable.server.clocks import TimeControl
from tricktable.server.limits import Limits
from tricktable.server.logging import configure
from tricktable.server.tables import Table

PLAY = "/tricktable.v1.TableService/Play"
EOF: Any = grpc.aio.EOF  # type: ignore[attr-defined]  # the end of a call's reads, not in the stubs
#: The bytes of the review: a varint that never ends, so no message can be decoded from them.
UNDECODABLE = bytes.fromhex("ffffffff0f")
OPTIONS = {"target": 21}


def raw_play(channel: grpc.aio.Channel) -> Any:
    """A Play call that sends and receives raw bytes."""
    return channel.stream_stream(PLAY, None, None)()  # type: ignore[call-arg]  # the stubs want an iterator


def join(token: str) -> bytes:
    return pb.PlayRequest(join=pb.Join(token=token)).SerializeToString()


async def read_until(call: Any, kind: str) -> pb.PlayResponse:
    while True:
        response = pb.PlayResponse.FromString(await asyncio.wait_for(call.read(), 10))
        if response.WhichOneof("kind") == kind:
            return response


async def final_code(call: Any) -> grpc.StatusCode:
    """Read what is left of the call and return its status code."""
    try:
        while await asyncio.wait_for(call.read(), 20) is not EOF:
            pass
    except grpc.aio.AioRpcError as error:
        return error.code()
    code: grpc.StatusCode = await call.code()
    return code


@pytest.fixture
async def small_server(tmp_path: Path) -> AsyncIterator[GameServer]:
    """A server with small stream limits and a short join deadline, to reach them quickly."""
    limits = Limits(max_streams_per_client=6, join_deadline_seconds=1.0, max_rejections_burst=20,
                    max_rejections_per_second=2.0)
    async with running_server(tmp_path, TEST_CLOCKS, limits) as server:
        yield server


async def connected(stub: Any, table_id: str, seat: int) -> bool:
    info = (await stub.GetTable(pb.GetTableRequest(table_id=table_id))).table
    return bool(info.seats[seat].connected)


async def test_undecodable_request_ends_the_stream_with_invalid_argument_and_the_seat_disconnects(
        server: GameServer, stub: Any) -> None:
    created = await create(stub, "all_fives", options=OPTIONS)
    other = asyncio.ensure_future(PlaySeat(stub, created.seat_tokens[1].token).play())
    async with grpc.aio.insecure_channel(server.address) as channel:
        call = raw_play(channel)
        await call.write(join(created.seat_tokens[0].token))
        decision = (await read_until(call, "decision")).decision
        await call.write(pb.PlayRequest(decide=pb.Decide(decision_id=decision.decision_id,
                                                         action_id=decision.legal_actions[0].id)).SerializeToString())
        await read_until(call, "accepted")
        assert await connected(stub, created.table_id, 0)
        with capture_logs() as lines:
            await call.write(UNDECODABLE)
            code = await final_code(call)
            for _ in range(100):  # the server notices the closed stream right after
                if not await connected(stub, created.table_id, 0):
                    break
                await asyncio.sleep(0.02)
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert not await connected(stub, created.table_id, 0)  # the grace period runs: the seat is not deaf
    warnings = [line for line in lines if line["log_level"] in ("warning", "error", "critical")]
    assert [line["event"] for line in warnings] == ["undecodable request"]
    assert "exc_info" not in warnings[0] and warnings[0]["seat"] == 0 and warnings[0]["table"] == created.table_id
    other.cancel()


async def test_undecodable_first_request_is_invalid_argument_not_internal(server: GameServer) -> None:
    async with grpc.aio.insecure_channel(server.address) as channel:
        call = raw_play(channel)
        await call.write(UNDECODABLE)
        assert await final_code(call) is grpc.StatusCode.INVALID_ARGUMENT


async def test_a_flood_of_refused_answers_ends_the_stream_with_resource_exhausted(small_server: GameServer) -> None:
    async with grpc.aio.insecure_channel(small_server.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = await create(stub, "all_fives", options=OPTIONS)
        call = raw_play(channel)
        await call.write(join(created.seat_tokens[0].token))
        replies: list[pb.PlayResponse] = []

        async def read_all() -> tuple[grpc.StatusCode, str]:
            try:
                while (raw := await call.read()) is not EOF:
                    replies.append(pb.PlayResponse.FromString(raw))
            except grpc.aio.AioRpcError as error:
                return error.code(), error.details() or ""
            return await call.code(), await call.details()

        reading = asyncio.ensure_future(read_all())
        bogus = pb.PlayRequest(decide=pb.Decide(decision_id="999999", action_id="nothing")).SerializeToString()
        sent = 0
        with capture_logs() as lines:
            for _ in range(1000):
                try:
                    await asyncio.wait_for(call.write(bogus), 2)
                except (grpc.aio.AioRpcError, asyncio.InvalidStateError, TimeoutError):
                    break  # the server ended the stream
                sent += 1
                await asyncio.sleep(0.005)  # 200 refused messages a second, far over the budget
            code, details = await asyncio.wait_for(reading, 20)
        for _ in range(100):
            if not await connected(stub, created.table_id, 0):
                break
            await asyncio.sleep(0.02)
        assert not await connected(stub, created.table_id, 0)
    rejections = [r for r in replies if r.WhichOneof("kind") == "rejection"]
    # A grpc-python client whose write crosses the server's status now and then sees its own core's error instead.
    assert code is grpc.StatusCode.RESOURCE_EXHAUSTED or details == "Internal error from Core"
    warnings = [line for line in lines if line["log_level"] in ("warning", "error", "critical")]
    assert [(line["event"], line["seat"]) for line in warnings] == [("stream flooded", 0)]  # the server's side
    assert len(rejections) <= 21 <= sent  # the burst allowance of replies, then the end


async def test_refusals_are_counted_and_their_log_lines_sampled() -> None:
    configure(json=True, level="INFO")
    try:
        with capture_logs() as lines:
            clocks = TimeControl(decision_seconds=5, bank_seconds=5, grace_seconds=5, join_seconds=5)
            table = Table(table_id="t-flood", match=Match.start(RULES, {}, SeededDecks("f"), seed="f"), seed="f",
                          time_control=clocks)
            for _ in range(1000):
                table.submit(0, 999, Play(card=card("2C")))  # refused: the table has not started
    finally:
        configure(json=True, level="WARNING")
    logged = [line for line in lines if line["event"] == "action rejected"]
    assert table.seats[0].rejected == 1000  # every refusal counted (the record's "rejected")
    assert [line["rejected"] for line in logged] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]


async def test_a_stream_that_never_joins_is_ended_at_the_join_deadline(small_server: GameServer) -> None:
    async with grpc.aio.insecure_channel(small_server.address) as channel:
        call = raw_play(channel)  # opened, and never a join
        assert await final_code(call) is grpc.StatusCode.DEADLINE_EXCEEDED


async def test_open_streams_per_seat_token_are_limited(small_server: GameServer) -> None:
    async with grpc.aio.insecure_channel(small_server.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = await create(stub, "all_fives", options=OPTIONS)
        token = created.seat_tokens[0].token
        calls = []
        for _ in range(Limits().max_streams_per_seat):
            call = raw_play(channel)
            await call.write(join(token))
            await read_until(call, "joined")
            calls.append(call)
        extra = raw_play(channel)
        await extra.write(join(token))
        assert await final_code(extra) is grpc.StatusCode.RESOURCE_EXHAUSTED
        for call in calls:
            call.cancel()


async def test_never_joining_streams_of_an_address_do_not_lock_out_its_sdk_bots(small_server: GameServer) -> None:
    async with grpc.aio.insecure_channel(small_server.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = await create(stub, "all_fives", options=OPTIONS)
        hogs = [raw_play(channel) for _ in range(6)]  # the address's whole stream limit, never joining
        for hog in hogs:
            await hog.write(b"")  # an empty message is a valid, empty PlayRequest: still no join
        results = await asyncio.wait_for(asyncio.gather(*(
            run_bot_async(FirstLegalBot(), small_server.address, token=t.token, backoff=Backoff(maximum=0.5))
            for t in created.seat_tokens)), 60)
        assert all(r.status == "finished" for r in results)
        for hog in hogs:
            hog.cancel()
