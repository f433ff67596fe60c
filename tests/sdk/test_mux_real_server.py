"""The SDK's PlayMany multiplexer against the product's server (server/), in process on 127.0.0.1:0.

Many seats of several tables played to the end over one call; a bad token ends its seat as on Play; a
real dropped connection (the TCP proxy of test_real_server.py) resumed by every seat on a new call;
``tricktable bot --seats`` playing its games over PlayMany.
"""

from __future__ import annotations

import asyncio
import json
import logging

import grpc
import pytest

from tests.sdk import test_real_server
from tests.sdk.test_real_server import FAST, _cli, _CuttingBot, _Proxy
from tests.server.test_hostile_streams import connected
from tricktable.bots.first_legal import FirstLegalBot
from tricktable.bots.random_bot import RandomBot
from tricktable.client_sdk import mux as mux_module
from tricktable.client_sdk.bot import Bot
from tricktable.client_sdk.errors import JoinRejected, SdkError
from tricktable.client_sdk.mux import SeatMultiplexer
from tricktable.client_sdk.runner import create_table, get_record, run_bot_async
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.rules.actions import Action
from tricktable.rules.game import SeatView
from tricktable.server.app import GameServer

#: The fixture of test_real_server.py: the product's server on 127.0.0.1:0 with the same clocks.
server = test_real_server.server


async def test_many_seats_of_several_tables_play_to_the_end_over_one_play_many_call(server: GameServer) -> None:
    tables = [await create_table(server.address, game=game, seed=f"mux-{i}")
              for i, game in enumerate(("twenty_five", "all_fives", "twenty_five"))]
    async with SeatMultiplexer(backoff=FAST) as mux:
        played = await asyncio.wait_for(asyncio.gather(*(
            mux.play(RandomBot(seat) if seat % 2 else FirstLegalBot(), server.address, token=token, name=f"b{seat}")
            for table in tables for seat, token in enumerate(table.tokens))), timeout=120)
        traffic = mux.traffic
    assert traffic.calls == 1
    # Every message carried one seat's or more: never more messages than seats' messages, either way.
    assert traffic.requests_sent <= traffic.seat_requests_sent
    assert traffic.responses_received <= traffic.seat_responses_received
    for table in tables:
        mine = [p for p in played if p.table_id == table.table_id]
        assert sorted(p.seat for p in mine) == list(range(len(table.tokens)))
        assert all(p.result == mine[0].result and p.result.status == "finished" for p in mine)
        record = json.loads(await get_record(server.address, table.table_id))
        assert record["result"]["winners"] == list(mine[0].result.winners)


async def test_a_bad_token_ends_its_seat_with_the_error_of_play(server: GameServer) -> None:
    on_play: SdkError | None = None
    try:
        await asyncio.wait_for(run_bot_async(FirstLegalBot(), server.address, token="not-a-token", backoff=FAST), 20)
    except JoinRejected as exc:
        on_play = exc
    assert on_play is not None
    async with SeatMultiplexer(backoff=FAST) as mux:
        with pytest.raises(JoinRejected) as on_many:
            await asyncio.wait_for(mux.play(FirstLegalBot(), server.address, token="not-a-token"), 20)
    assert (on_many.value.code, on_many.value.message) == (on_play.code, on_play.message)


async def test_a_dropped_play_many_call_is_resumed_by_every_seat_and_the_games_finish(
        server: GameServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="tricktable.sdk")
    proxy = _Proxy(server.port)
    address = await proxy.start()
    try:
        tables = [await create_table(server.address, game="all_fives", seed=f"mux-drop-{i}") for i in range(2)]
        bots: list[Bot] = [_CuttingBot(proxy), FirstLegalBot(), FirstLegalBot(), FirstLegalBot()]
        async with SeatMultiplexer(backoff=FAST) as mux:
            played = await asyncio.wait_for(asyncio.gather(*(
                mux.play(bot, address, token=token, seed=i)
                for i, (bot, token) in enumerate(zip(bots, [t for table in tables for t in table.tokens],
                                                     strict=True)))), timeout=120)
            calls = mux.traffic.calls
    finally:
        await proxy.stop()
    assert all(p.result.status == "finished" for p in played)
    assert played[0].result == played[1].result and played[2].result == played[3].result
    assert calls >= 2 and proxy.connections >= 2  # a new call, on a new connection
    assert all(p.reconnects >= 1 for p in played)  # the cut ended every seat's conversation
    assert any("reconnecting" in r.getMessage() for r in caplog.records)
    assert not any("never arrived" in r.getMessage() for r in caplog.records)  # resumed without a gap
    for table in tables:
        record = json.loads(await get_record(server.address, table.table_id))
        assert record["result"]["status"] == "finished"
        assert all(seat["disconnects"] >= 1 for seat in record["seats"])


class _ThinkingBot:
    """Never answers: its seat stays joined, its decision pending, until its task is cancelled."""

    def choose_action(self, view: SeatView) -> asyncio.Future[Action]:
        return asyncio.get_running_loop().create_future()


async def test_a_cancelled_seat_leaves_its_conversation_and_is_disconnected_while_the_call_goes_on(
        server: GameServer) -> None:
    table = await create_table(server.address, game="all_fives", seed="mux-leave")
    async with (SeatMultiplexer(backoff=FAST) as mux,
                grpc.aio.insecure_channel(server.address) as channel):
        stub = table_service_pb2_grpc.TableServiceStub(channel)

        async def seats_connected() -> list[bool]:
            return [await connected(stub, table.table_id, seat) for seat in range(len(table.tokens))]

        seats = [asyncio.ensure_future(mux.play(_ThinkingBot(), server.address, token=token))
                 for token in table.tokens]
        for _ in range(100):
            if all(await seats_connected()):
                break
            await asyncio.sleep(0.02)
        assert await seats_connected() == [True, True]
        seats[0].cancel()
        for _ in range(100):
            if await seats_connected() == [False, True]:
                break
            await asyncio.sleep(0.02)
        # Disconnected as a cancelled Play stream is, while its call and the other seat's conversation go on.
        assert await seats_connected() == [False, True]
        assert mux.traffic.calls == 1 and not seats[1].done()
        seats[1].cancel()
        await asyncio.gather(*seats, return_exceptions=True)


async def test_seats_whose_game_ended_send_no_leave(server: GameServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server closes a finished seat's conversation itself: a leave would only cost a message and a cancel.

    A seat's leave is submitted on its own path before ``play`` returns, so the requests the multiplexer
    submitted are complete when the games are: no waiting on the server to tell.
    """
    left: list[int] = []
    submit = mux_module._ManyCall.submit

    def recorded(call: mux_module._ManyCall, request: pb.SeatPlayRequest) -> None:
        if request.leave:
            left.append(request.stream)
        submit(call, request)

    monkeypatch.setattr(mux_module._ManyCall, "submit", recorded)
    table = await create_table(server.address, game="all_fives", seed="mux-no-leave")
    async with SeatMultiplexer(backoff=FAST) as mux:
        played = await asyncio.wait_for(asyncio.gather(*(
            mux.play(FirstLegalBot(), server.address, token=token) for token in table.tokens)), timeout=60)
    assert all(p.result.status == "finished" for p in played)
    assert left == []


async def test_cli_bot_with_seats_plays_its_games_over_play_many(server: GameServer) -> None:
    code, out, err = await _cli("bot", "first-legal", "--server", server.address, "--seek", "all_fives",
                                "--players", "2", "--seats", "2", "--games", "2")
    assert code == 0, err
    lines = out.splitlines()
    games = sorted(line for line in lines if line.startswith("game "))
    assert [line.split(":")[0] for line in games] == ["game 1", "game 2", "game 3", "game 4"]
    tables = [line.split()[3] for line in games]
    assert all(tables.count(t) == 2 for t in tables)  # the two seats sat at each table together
    assert lines[-1].startswith("4 games: ") and lines[-1].endswith(", 0 aborted")
    for table_id in set(tables):
        record = json.loads(await get_record(server.address, table_id))
        assert record["result"]["status"] == "finished"
