"""Sealed deck sets and watching over real gRPC: a seal lifts once its deck set is over, an organiser's one
owner token follows every table it was given to, and spectators of a table are cut off when a twin of it
is created (docs/protocol.md, section 19)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest

from tests.live_server import running_server
from tests.server.clients import create
from tests.server.conftest import TEST_CLOCKS
from tests.server.test_fair_play import OPTIONS, play_out, record_status
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.server.app import GameServer

ORGANISER = secrets.token_urlsafe(32)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[GameServer]:
    """A join deadline long enough for a twin to wait out a whole game."""
    async with running_server(tmp_path / "data", replace(TEST_CLOCKS, join_seconds=300.0)) as game_server:
        yield game_server


async def sealed(stub: Any, seed: str, tables: int, index: int, owner_token: str = ORGANISER) -> Any:
    """A sealed table of a deck set of ``tables``, at ``index``, bound to ``owner_token``."""
    request = pb.CreateTableRequest(game=convert.game_to_proto("all_fives"),
                                    options=convert.options_to_proto("all_fives", OPTIONS), seed=seed, sealed=True,
                                    deck_set=pb.DeckSet(tables=tables, index=index), owner_token=owner_token)
    return await stub.CreateTable(request)


async def public(stub: Any, table_id: str) -> bool:
    """Whether the table's record is public (asked without an owner token)."""
    code, _ = await record_status(stub, table_id)
    assert code in (grpc.StatusCode.OK, grpc.StatusCode.PERMISSION_DENIED)
    return code is grpc.StatusCode.OK


async def test_sealed_deck_set_is_withheld_until_a_table_of_every_index_has_ended(stub: Any) -> None:
    first = await sealed(stub, "deck-1", tables=2, index=0)
    second = await sealed(stub, "deck-1", tables=2, index=1)
    assert first.owner_token == second.owner_token == ORGANISER
    await play_out(stub, first)
    assert not await public(stub, first.table_id)
    code, _ = await record_status(stub, first.table_id, ORGANISER)
    assert code is grpc.StatusCode.OK
    info = (await stub.GetTable(pb.GetTableRequest(table_id=first.table_id))).table
    assert not info.scores and not info.HasField("result")
    await play_out(stub, second)
    assert await public(stub, first.table_id) and await public(stub, second.table_id)
    listed = {i.table_id: i for i in (await stub.ListTables(pb.ListTablesRequest())).tables}
    assert listed[first.table_id].HasField("result") and listed[second.table_id].HasField("result")


async def test_a_replayed_index_does_not_lift_the_seal_of_its_deck_set(stub: Any) -> None:
    cut_off = await sealed(stub, "deck-2", tables=2, index=0)
    again = await sealed(stub, "deck-2", tables=2, index=0)  # the same game played again after a restart
    await asyncio.gather(play_out(stub, cut_off), play_out(stub, again))
    assert not await public(stub, again.table_id)  # two tables ended, but index 1 is still to be dealt
    last = await sealed(stub, "deck-2", tables=2, index=1)
    await play_out(stub, last)
    assert await public(stub, cut_off.table_id) and await public(stub, last.table_id)


async def test_the_seal_of_a_stored_deck_set_lifts_after_a_server_restart(tmp_path: Path) -> None:
    data = tmp_path / "data"
    async with running_server(data, TEST_CLOCKS) as game_server, grpc.aio.insecure_channel(
            game_server.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        first = await sealed(stub, "deck-3", tables=2, index=0)
        await play_out(stub, first)
        assert not await public(stub, first.table_id)
    async with running_server(data, TEST_CLOCKS) as game_server, grpc.aio.insecure_channel(
            game_server.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        assert not await public(stub, first.table_id)
        second = await sealed(stub, "deck-3", tables=2, index=1)
        await play_out(stub, second)
        assert await public(stub, first.table_id) and await public(stub, second.table_id)


async def test_an_organisers_owner_token_follows_a_sealed_running_table(stub: Any) -> None:
    table = await sealed(stub, "deck-4", tables=2, index=0)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        [_ async for _ in stub.Spectate(pb.SpectateRequest(table_id=table.table_id), timeout=10)]
    assert refused.value.code() is grpc.StatusCode.PERMISSION_DENIED
    watching = stub.Spectate(pb.SpectateRequest(table_id=table.table_id, owner_token=ORGANISER), timeout=60)
    follow = asyncio.ensure_future(_kinds(watching))
    await play_out(stub, table)
    kinds = await follow
    assert kinds[0] == "started" and "game_ended" in kinds


async def _kinds(stream: Any) -> list[str]:
    out = []
    async for response in stream:
        out.append(response.WhichOneof("kind") if response.WhichOneof("kind") != "event"
                   else response.event.WhichOneof("kind"))
    return out


@pytest.mark.parametrize(("field", "request_fields"), [
    ("deck_set needs sealed", {"seed": "x", "deck_set": pb.DeckSet(tables=2)}),
    ("deck_set needs sealed", {"sealed": True, "deck_set": pb.DeckSet(tables=2)}),
    ("deck_set.index", {"seed": "x", "sealed": True, "deck_set": pb.DeckSet(tables=2, index=2)}),
    ("deck_set.tables", {"seed": "x", "sealed": True, "deck_set": pb.DeckSet(tables=0)}),
    ("owner_token", {"owner_token": "short"}),
    ("owner_token", {"owner_token": "x" * 40 + " y"}),
])
async def test_deck_set_and_chosen_owner_token_are_checked(stub: Any, field: str,
                                                           request_fields: dict[str, Any]) -> None:
    request = pb.CreateTableRequest(game=convert.game_to_proto("all_fives"), **request_fields)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.CreateTable(request)
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT and field in (refused.value.details() or "")


async def test_spectators_of_a_table_are_cut_off_when_its_twin_is_created(stub: Any, server: GameServer) -> None:
    table = await create(stub, "all_fives", seed="twin-later", options=OPTIONS)
    public_stream = stub.Spectate(pb.SpectateRequest(table_id=table.table_id, last_seen_sequence=0), timeout=60)
    owner_stream = stub.Spectate(pb.SpectateRequest(table_id=table.table_id, last_seen_sequence=0,
                                                    owner_token=table.owner_token), timeout=60)
    public_events: list[int] = []

    async def follow_public() -> grpc.StatusCode:
        try:
            async for response in public_stream:
                if response.WhichOneof("kind") == "event":
                    public_events.append(response.event.sequence)
        except grpc.aio.AioRpcError as error:
            return error.code()
        return grpc.StatusCode.OK

    public_follow = asyncio.ensure_future(follow_public())
    owner_follow = asyncio.ensure_future(_kinds(owner_stream))
    playing = asyncio.ensure_future(play_out(stub, table))
    live = server.lobby.table(table.table_id)
    deadline = asyncio.get_running_loop().time() + 30
    while not public_events or live.last_sequence(None) < 20:  # the spectator is following a running game
        assert asyncio.get_running_loop().time() < deadline and not playing.done()
        await asyncio.sleep(0.001)
    await create(stub, "all_fives", seed="twin-later", options=OPTIONS)
    sent_before = live.last_sequence(None)
    assert await asyncio.wait_for(public_follow, 30) is grpc.StatusCode.PERMISSION_DENIED
    assert max(public_events) <= sent_before  # nothing published after the twin came reached the spectator
    await playing
    assert "game_ended" in await owner_follow  # the creator's stream goes on to the end


async def test_a_quiet_spectator_is_cut_off_at_once_when_a_twin_is_created(stub: Any) -> None:
    table = await create(stub, "all_fives", seed="quiet-twin", options=OPTIONS)  # waiting: no event comes
    stream = stub.Spectate(pb.SpectateRequest(table_id=table.table_id), timeout=60)
    started = await stream.read()
    assert started.WhichOneof("kind") == "started"
    await create(stub, "all_fives", seed="quiet-twin", options=OPTIONS)
    with pytest.raises(grpc.aio.AioRpcError) as ended:
        await asyncio.wait_for(stream.read(), 30)
    assert ended.value.code() is grpc.StatusCode.PERMISSION_DENIED
    assert "same seed was created" in (ended.value.details() or "")
