"""Forwarded calls are signed: a client that sends the forwarded-call metadata itself is refused and changes nothing.

Two shards as two real servers of this process on 127.0.0.1 (what a lobby
and a game process are to each other), sharing one forwarding secret; the
client speaks to shard 1 directly, as an entrant who found a game process's
address would.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import grpc
import pytest

from tests.server.clients import create
from tests.server.test_hostile_streams import final_code, join, raw_play, read_until
from tests.server.test_shards import SECRET, shards_in_process
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.protocol.trailers import REASON_KEY
from tricktable.server.app import GameServer
from tricktable.server.errors import ForwardingRefusedError
from tricktable.server.forwarding import HOP_KEY, MAX_SKEW_SECONDS, Forwarding, read_secret
from tricktable.server.limits import Limits
from tricktable.server.shard_ids import shard_of_table

CREATE = "/tricktable.v1.TableService/CreateTable"
GET_TABLE = "/tricktable.v1.TableService/GetTable"


def _signed(secret: bytes, method: str, *, skew: float = 0.0, client: str = "") -> str:
    return Forwarding(secret, clock=lambda: time.time() + skew).metadata(method, client)[0][1]


#: What a forger might send as the forwarded-call metadata of a CreateTable, by what is wrong with it.
FORGED = {
    "the old unsigned marker": "1",
    "a made-up signature": "v1.1700000000000.deadbeef",
    "another secret's signature": _signed(b"x" * 40, CREATE),
    "a signature made for another method": _signed(SECRET, GET_TABLE),
    "a signature from too long ago": _signed(SECRET, CREATE, skew=-2 * MAX_SKEW_SECONDS),
    "a signature made for another client": _signed(SECRET, CREATE, client="ipv4:10.0.0.9"),
}


def _request() -> pb.CreateTableRequest:
    return pb.CreateTableRequest(game=convert.game_to_proto("all_fives"), seat_names=["a", "b"],
                                 options=convert.options_to_proto("all_fives", {"players": 2}))


def reason_of(metadata: Any) -> str:
    """The machine-readable reason in a call's trailing metadata (empty: none)."""
    return next((str(value) for key, value in metadata or () if key == REASON_KEY), "")


async def _refusal(call: Any) -> tuple[grpc.StatusCode, str]:
    """The status and reason a refused unary call ended with."""
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await call
    return refused.value.code(), reason_of(refused.value.trailing_metadata())


@pytest.mark.parametrize("what", sorted(FORGED))
async def test_a_create_table_with_forged_forwarding_metadata_is_refused_and_creates_nothing(
        tmp_path: Path, what: str) -> None:
    async with shards_in_process(tmp_path, Limits()) as (_, second), \
            grpc.aio.insecure_channel(second.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        refused = await _refusal(stub.CreateTable(_request(), metadata=((HOP_KEY, FORGED[what]),)))
        assert refused == (grpc.StatusCode.UNAUTHENTICATED, "FORWARDING_UNAUTHENTICATED")
        assert second.lobby.open_tables() == []


async def test_a_correctly_signed_create_table_is_answered_by_the_process_it_reaches(tmp_path: Path) -> None:
    async with shards_in_process(tmp_path, Limits()) as (first, second), \
            grpc.aio.insecure_channel(second.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = await stub.CreateTable(_request(), metadata=((HOP_KEY, _signed(SECRET, CREATE)),))
        assert shard_of_table(created.table_id) == 1  # created here, not placed elsewhere
        assert [t.id for t in second.lobby.open_tables()] == [created.table_id]
        assert first.lobby.open_tables() == []


async def test_a_forwarded_table_counts_against_the_client_it_was_forwarded_for(tmp_path: Path) -> None:
    async with shards_in_process(tmp_path, Limits(max_tables_per_client=1)) as (_, second), \
            grpc.aio.insecure_channel(second.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)

        def hop(client: str) -> Any:
            return Forwarding(SECRET).metadata(CREATE, client)

        await stub.CreateTable(_request(), metadata=hop("ipv4:10.0.0.1"))
        refused = await _refusal(stub.CreateTable(_request(), metadata=hop("ipv4:10.0.0.1")))
        assert refused[0] == grpc.StatusCode.RESOURCE_EXHAUSTED  # that client's one table
        await stub.CreateTable(_request(), metadata=hop("ipv4:10.0.0.2"))  # another client of the same forwarder
        assert len(second.lobby.open_tables()) == 2


async def test_a_play_stream_with_forged_forwarding_metadata_is_refused_before_its_join(tmp_path: Path) -> None:
    async with shards_in_process(tmp_path, Limits()) as (_, second), \
            grpc.aio.insecure_channel(second.address) as channel:
        created = await create(table_service_pb2_grpc.TableServiceStub(channel), "all_fives")
        call = channel.stream_stream("/tricktable.v1.TableService/Play", None, None)(  # type: ignore[call-arg]
            metadata=((HOP_KEY, "1"),))
        await call.write(join(created.seat_tokens[0].token))
        assert await final_code(call) == grpc.StatusCode.UNAUTHENTICATED
        assert reason_of(await call.trailing_metadata()) == "FORWARDING_UNAUTHENTICATED"
        clean = raw_play(channel)  # the same seat, joined without the metadata, is let in
        await clean.write(join(created.seat_tokens[0].token))
        assert (await read_until(clean, "joined")).joined.table_id == created.table_id
        clean.cancel()


async def test_streams_a_process_relays_are_counted_against_their_clients_not_its_one_connection(
        tmp_path: Path) -> None:
    async with shards_in_process(tmp_path, Limits(max_streams_per_connection=1)) as (first, _), \
            grpc.aio.insecure_channel(first.address) as channel:
        created = [await create(table_service_pb2_grpc.TableServiceStub(channel), "all_fives") for _ in range(2)]
        remote = next(c for c in created if shard_of_table(c.table_id) == 1)
        own = [("grpc.use_local_subchannel_pool", 1)]  # a connection of its own each, as two clients have
        async with grpc.aio.insecure_channel(first.address, options=own) as one, \
                grpc.aio.insecure_channel(first.address, options=own) as two:
            calls = [raw_play(one), raw_play(two)]  # one stream per client connection at shard 0, both relayed
            for call, seat in zip(calls, remote.seat_tokens, strict=True):  # to shard 1 on its one connection
                await call.write(join(seat.token))
            for call in calls:
                assert (await read_until(call, "joined")).joined.table_id == remote.table_id
                call.cancel()


async def test_a_server_of_one_process_takes_no_forwarded_call(server: GameServer) -> None:
    async with grpc.aio.insecure_channel(server.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        refused = await _refusal(stub.CreateTable(_request(), metadata=((HOP_KEY, _signed(SECRET, CREATE)),)))
        assert refused == (grpc.StatusCode.UNAUTHENTICATED, "FORWARDING_UNAUTHENTICATED")
        assert server.lobby.open_tables() == []
        await create(stub, "all_fives")  # without the metadata: as always


def test_a_signature_is_taken_within_the_allowed_skew_and_refused_past_it() -> None:
    now = [1_800_000_000.0]
    checker = Forwarding(SECRET, clock=lambda: now[0])
    value = checker.metadata(CREATE)[0][1]
    now[0] += MAX_SKEW_SECONDS - 1
    checker.check(CREATE, value)
    now[0] += 2
    with pytest.raises(ForwardingRefusedError, match="more than 60 s from this server's clock"):
        checker.check(CREATE, value)


def test_the_secret_file_is_stripped_of_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "secret"
    path.write_text("k" * 32 + "\n")
    assert read_secret(path) == b"k" * 32
