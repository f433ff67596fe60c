"""PlayMany: many seats' Play conversations over one call, each exactly a Play stream (docs/protocol.md, section 5).

Real gRPC on 127.0.0.1; the clients are raw protocol clients (tests/server/clients.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
import structlog
from structlog.testing import capture_logs

from tests.live_server import running_server
from tests.server.clients import PlayMany, PlaySeat, SeatRun, comparable, create, result_of
from tests.server.conftest import TEST_CLOCKS
from tests.server.test_hostile_streams import UNDECODABLE, connected, final_code
from tests.server.test_service import create_game, record_of
from tricktable.protocol.generated.tricktable.v1 import game_pb2, table_service_pb2_grpc
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.server import play_many, service
from tricktable.server.app import GameServer
from tricktable.server.conformance_relay import start_relay
from tricktable.server.events import DecisionRequested
from tricktable.server.limits import Limits

PLAY_MANY = "/tricktable.v1.TableService/PlayMany"
OPTIONS = {"target": 21}
UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED.value[0]
RESOURCE_EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
CANCELLED = grpc.StatusCode.CANCELLED.value[0]


@pytest.fixture
async def small_server(tmp_path: Path) -> AsyncIterator[GameServer]:
    """A server with small limits, to reach them quickly.

    The refusal budget refills at a rate a test never sees (one a week), so the counts of refusals the tests
    bound are the burst alone, however slowly a loaded machine reads the flood.
    """
    limits = Limits(max_streams_per_client=6, max_rejections_burst=20, max_rejections_per_second=1 / 604_800,
                    max_conversations_per_call=3, join_deadline_seconds=1.0)
    async with running_server(tmp_path, TEST_CLOCKS, limits) as server:
        yield server


@pytest.fixture
async def small_stub(small_server: GameServer) -> AsyncIterator[table_service_pb2_grpc.TableServiceStub]:
    async with grpc.aio.insecure_channel(small_server.address) as channel:
        yield table_service_pb2_grpc.TableServiceStub(channel)


def _messages(run: SeatRun) -> list[tuple[str, bytes]]:
    """A seat's events and decisions as comparable items."""
    return [c for m in run.responses if (c := comparable(m))]


def _opened(run: SeatRun) -> SeatRun:
    """A seat's messages with its batches opened."""
    return SeatRun([i for m in run.responses for i in (m.batch.messages if m.WhichOneof("kind") == "batch" else [m])])


def _moves(record: dict[str, Any]) -> list[Any]:
    return [(deal["actions"], deal.get("tricks"), deal.get("scores")) for deal in record["deals"]]


@pytest.mark.parametrize("options", [{}, {"accept_batches": True, "coalesce_events": True}], ids=["plain", "coalesced"])
async def test_seats_of_several_tables_on_one_call_get_exactly_what_their_play_streams_get(
        stub: Any, options: dict[str, bool]) -> None:
    seeds = ["many-a", "many-b"]
    plain = [await create_game(stub, "twenty_five", seed=s) for s in seeds]
    played = [await asyncio.wait_for(asyncio.gather(*(PlaySeat(stub, t.token).play() for t in c.seat_tokens)), 60)
              for c in plain]
    many = [await create_game(stub, "twenty_five", seed=s) for s in seeds]
    # Stream numbers unrelated to the seats: each conversation is keyed by its own number only.
    streams = {100 + 7 * i + s: (i, s) for i, c in enumerate(many) for s in range(len(c.seat_tokens))}
    client = PlayMany(stub)
    await client.join({n: many[i].seat_tokens[s].token for n, (i, s) in streams.items()}, **options)
    run = await client.play(len(streams))
    await client.call.done_writing()
    assert await client.call.code() is grpc.StatusCode.OK  # every conversation closed, the client done: the call ends
    assert all([c.code for c in closes] == [0] for closes in run.closed.values())
    for number, (i, s) in streams.items():
        seat_run = _opened(run.seats[number])
        joined = seat_run.responses[0].joined
        assert (joined.table_id, joined.seat) == (many[i].table_id, s)
        assert _messages(seat_run) == _messages(played[i][s])  # the same events and decisions, its own seat's only
        assert (r := result_of(seat_run)) is not None and r.status == game_pb2.RESULT_STATUS_FINISHED
    for p, m in zip(plain, many, strict=True):
        assert _moves(await record_of(stub, m.table_id)) == _moves(await record_of(stub, p.table_id))


async def test_messages_ready_for_several_seats_travel_in_one_response(stub: Any) -> None:
    created = await create_game(stub, "twenty_five", seed="many-batched")
    client = PlayMany(stub)
    await client.join(dict(enumerate(t.token for t in created.seat_tokens)))
    run = await client.play(len(created.seat_tokens))
    seat_messages = sum(len(m.responses) for m in run.messages)
    shared = [m for m in run.messages if len({e.stream for e in m.responses}) > 1]
    # Every move is news for all four seats at once: most of it travels together.
    assert len(run.messages) < seat_messages / 2 and shared


async def test_a_bad_token_closes_its_conversation_unauthenticated_while_the_others_play_on(stub: Any) -> None:
    created = await create(stub, "all_fives", options=OPTIONS)
    client = PlayMany(stub)
    await client.join({0: created.seat_tokens[0].token, 1: "not-a-token", 2: created.seat_tokens[1].token})
    run = await client.play(3)
    assert [c.code for c in run.closed[1]] == [UNAUTHENTICATED] and run.closed[1][0].message
    assert 1 not in run.seats
    for number in (0, 2):
        assert [c.code for c in run.closed[number]] == [0]
        assert (r := result_of(run.seats[number])) is not None and r.status == game_pb2.RESULT_STATUS_FINISHED


async def test_a_decide_before_the_join_is_refused_not_joined_and_the_join_still_opens(stub: Any) -> None:
    created = await create(stub, "all_fives", options=OPTIONS)
    client = PlayMany(stub)
    await client.send((5, pb.PlayRequest(decide=pb.Decide(decision_id="1", action_id="x"))))
    await client.join({5: created.seat_tokens[0].token, 6: created.seat_tokens[1].token})
    run = await client.play(2)
    first = run.seats[5].responses[0]
    assert first.WhichOneof("kind") == "rejection" and first.rejection.reason == pb.REJECTION_REASON_NOT_JOINED
    assert run.seats[5].responses[1].WhichOneof("kind") == "joined"
    assert [c.code for c in run.closed[5]] == [0]


async def test_a_second_join_on_a_conversation_is_refused_already_joined(stub: Any) -> None:
    created = await create(stub, "all_fives", options=OPTIONS)
    client = PlayMany(stub)
    token = created.seat_tokens[0].token
    await client.send((0, pb.PlayRequest(join=pb.Join(token=token))), (0, pb.PlayRequest(join=pb.Join(token=token))))
    await client.join({1: created.seat_tokens[1].token})
    run = await client.play(2)
    kinds = [r.WhichOneof("kind") for r in run.seats[0].responses]
    assert kinds.count("joined") == 1
    refused = run.seats[0].of("rejection")
    assert refused and refused[0].reason == pb.REJECTION_REASON_ALREADY_JOINED


async def test_a_decide_for_another_seat_is_refused_on_this_seats_conversation(stub: Any) -> None:
    created = await create(stub, "all_fives", options=OPTIONS)
    decisions: dict[int, pb.DecisionRequest] = {}
    client = PlayMany(stub, choose=lambda d: None)  # nobody answers: the first decision stays pending
    await client.join({0: created.seat_tokens[0].token, 1: created.seat_tokens[1].token})
    while not decisions:
        for entry in (await asyncio.wait_for(client.call.read(), 30)).responses:
            if entry.response.WhichOneof("kind") == "decision":
                decisions[entry.stream] = entry.response.decision
    (mover, decision), = decisions.items()
    other = 1 - mover
    # The other seat's conversation answers the mover's decision: refused, nothing played.
    await client.send((other, pb.PlayRequest(decide=pb.Decide(decision_id=decision.decision_id,
                                                              action_id=decision.legal_actions[0].id))))
    while True:
        entries = [e for e in (await asyncio.wait_for(client.call.read(), 30)).responses if e.stream == other]
        refused = [e.response.rejection for e in entries if e.response.WhichOneof("kind") == "rejection"]
        if refused:
            break
    assert refused[0].reason == pb.REJECTION_REASON_NOT_YOUR_TURN
    client.cancel()


async def test_a_flood_of_refused_messages_closes_its_conversation_resource_exhausted(small_stub: Any) -> None:
    created = await create(small_stub, "all_fives", options=OPTIONS)
    client = PlayMany(small_stub)
    await client.join({0: created.seat_tokens[0].token, 1: created.seat_tokens[1].token})
    bogus = pb.PlayRequest(decide=pb.Decide(decision_id="999999", action_id="nothing"))
    await client.send(*[(0, bogus)] * 30)  # over the burst of 20 at once
    run = await client.play(until=1)
    # What the server read after the close opened a new conversation under the number (refused: no join).
    assert run.closed[0][0].code == RESOURCE_EXHAUSTED
    rejections = [r for r in run.seats[0].of("rejection") if r.reason != pb.REJECTION_REASON_NOT_JOINED]
    assert len(rejections) <= 21
    assert [c.code for c in run.closed[1]] == [0]  # the other seat played on: seat 0 away, its clock defaults


async def test_a_closed_number_opens_a_new_conversation(stub: Any) -> None:
    created = await create(stub, "all_fives", options=OPTIONS)
    client = PlayMany(stub)
    await client.join({0: "not-a-token"})
    run = await client.play(1)
    assert [c.code for c in run.closed[0]] == [UNAUTHENTICATED]
    await client.join({0: created.seat_tokens[0].token, 1: created.seat_tokens[1].token})
    run = await client.play(2)
    assert [c.code for c in run.closed[0]] == [UNAUTHENTICATED, 0]
    assert run.seats[0].responses[0].joined.seat == 0 and result_of(run.seats[0]) is not None


async def test_an_undecodable_message_ends_the_call_invalid_argument(server: GameServer, stub: Any) -> None:
    created = await create(stub, "all_fives", options=OPTIONS)
    async with grpc.aio.insecure_channel(server.address) as channel:
        call: Any = channel.stream_stream(PLAY_MANY, None, None)()  # type: ignore[call-arg]  # raw bytes both ways
        await call.write(pb.PlayManyRequest(requests=[pb.SeatPlayRequest(
            stream=0, request=pb.PlayRequest(join=pb.Join(token=created.seat_tokens[0].token)))]).SerializeToString())
        first = pb.PlayManyResponse.FromString(await asyncio.wait_for(call.read(), 10))
        assert first.responses[0].response.WhichOneof("kind") == "joined"
        await call.write(UNDECODABLE)
        assert await final_code(call) is grpc.StatusCode.INVALID_ARGUMENT
    for _ in range(100):  # its conversations end with it
        if not await connected(stub, created.table_id, 0):
            break
        await asyncio.sleep(0.02)
    assert not await connected(stub, created.table_id, 0)


async def test_dropping_the_call_disconnects_its_seats_and_they_rejoin_on_play(stub: Any) -> None:
    created = await create(stub, "all_fives", options=OPTIONS)
    client = PlayMany(stub, choose=lambda d: None)
    await client.join({0: created.seat_tokens[0].token, 1: created.seat_tokens[1].token})
    await client.joined(2)
    assert await connected(stub, created.table_id, 0) and await connected(stub, created.table_id, 1)
    client.cancel()
    for _ in range(100):
        if not (await connected(stub, created.table_id, 0) or await connected(stub, created.table_id, 1)):
            break
        await asyncio.sleep(0.02)
    assert not (await connected(stub, created.table_id, 0) or await connected(stub, created.table_id, 1))
    runs = await asyncio.wait_for(asyncio.gather(*(PlaySeat(stub, t.token).play() for t in created.seat_tokens)), 60)
    assert all((r := result_of(run)) is not None and r.status == game_pb2.RESULT_STATUS_FINISHED for run in runs)


async def test_each_conversation_counts_towards_the_seat_token_limit(stub: Any) -> None:
    created = await create(stub, "all_fives", options=OPTIONS)
    token = created.seat_tokens[0].token
    limit = Limits().max_streams_per_seat
    client = PlayMany(stub, choose=lambda d: None)
    await client.join({n: token for n in range(limit + 1)})
    closes: list[tuple[int, pb.SeatClosed]] = []
    joined = 0
    while len(closes) + joined < limit + 1:
        for entry in (await asyncio.wait_for(client.call.read(), 30)).responses:
            if entry.WhichOneof("kind") == "closed":
                closes.append((entry.stream, entry.closed))
            elif entry.response.WhichOneof("kind") == "joined":
                joined += 1
    assert joined == limit and [c.code for _, c in closes] == [RESOURCE_EXHAUSTED]
    client.cancel()


async def test_each_conversation_counts_towards_the_client_address_limit(small_server: GameServer,
                                                                        small_stub: Any) -> None:
    tokens = [t.token for _ in range(2) for t in (await create(small_stub, "all_fives", options=OPTIONS)).seat_tokens]
    clients = [PlayMany(small_stub, choose=lambda d: None) for _ in range(2)]  # 2 calls + 4 conversations: 6 streams
    for client, pair in zip(clients, (tokens[:2], tokens[2:]), strict=True):
        await client.join(dict(enumerate(pair)))
        await client.joined(2)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await asyncio.wait_for(PlaySeat(small_stub, tokens[0]).play(), 30)
    assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    clients[0].cancel()  # its call and its two conversations free three streams
    held = small_server.lobby.client_streams.open
    for _ in range(100):
        if sum(held.values()) <= 3:
            break
        await asyncio.sleep(0.02)
    assert sum(held.values()) == 3


async def test_conversations_beyond_the_calls_bound_are_closed_resource_exhausted(small_stub: Any) -> None:
    created = await create(small_stub, "all_fives", options=OPTIONS)
    client = PlayMany(small_stub, choose=lambda d: None)
    token = created.seat_tokens[0].token
    await client.join({n: token for n in range(3)} | {3: created.seat_tokens[1].token})  # the bound is 3
    message = await asyncio.wait_for(client.call.read(), 30)
    closes = [(e.stream, e.closed.code) for e in message.responses if e.WhichOneof("kind") == "closed"]
    assert closes == [(3, RESOURCE_EXHAUSTED)]
    client.cancel()


async def test_a_call_that_never_reads_is_no_longer_read(tmp_path: Path) -> None:
    """Bounded outbox and queues: a client that only writes is held back (flow control), the server not grown."""
    limits = Limits(max_rejections_burst=1_000_000)  # every refusal allowed: only the bounds can hold it back
    async with (running_server(tmp_path, TEST_CLOCKS, limits) as server,
                grpc.aio.insecure_channel(server.address) as channel):
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = await create(stub, "all_fives", options=OPTIONS)
        client = PlayMany(stub)
        token = created.seat_tokens[0].token
        await client.join({0: token})
        again = pb.PlayRequest(join=pb.Join(token=token))  # each refused ALREADY_JOINED, each answered
        sent = 0
        with pytest.raises(TimeoutError):
            for _ in range(10_000):
                await asyncio.wait_for(client.send(*[(0, again)] * 50), 2)
                sent += 50
        assert sent < 500_000  # held back long before the end
        client.cancel()


async def test_a_conversation_that_never_joins_is_closed_at_the_join_deadline(small_stub: Any) -> None:
    client = PlayMany(small_stub)
    await client.send((4, pb.PlayRequest()))  # opened, and never a join
    run = await client.play(1)
    assert [c.code for c in run.closed[4]] == [grpc.StatusCode.DEADLINE_EXCEEDED.value[0]]
    client.cancel()


async def test_a_call_opening_numbers_beyond_its_bound_too_fast_ends_resource_exhausted(small_stub: Any) -> None:
    created = await create(small_stub, "all_fives", options=OPTIONS)
    client = PlayMany(small_stub, choose=lambda d: None)
    await client.join({n: created.seat_tokens[0].token for n in range(3)})  # the call's bound of 3
    await client.send(*[(n, pb.PlayRequest()) for n in range(10, 40)])  # 30 refused openings, burst 20
    refused = 0
    with pytest.raises(grpc.aio.AioRpcError) as ended:
        while True:
            message = await asyncio.wait_for(client.call.read(), 30)
            refused += sum(e.WhichOneof("kind") == "closed" for e in message.responses)
    assert ended.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED and refused <= 20


async def test_an_unexpected_error_closes_only_its_conversation_internal_and_is_logged_with_its_seat(
        stub: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fill = service._fill_seat_message

    def failing(out: Any, item: Any, wire: Any) -> None:
        if isinstance(item, DecisionRequested):
            raise RuntimeError("a bug")
        fill(out, item, wire)

    monkeypatch.setattr(service, "_fill_seat_message", failing)
    # A logger not yet used: one cached by an earlier test holds the processors of an earlier configure(),
    # which capture_logs does not reach (with tests/sdk's PlayMany clients running first, it would be).
    monkeypatch.setattr(play_many, "log", structlog.get_logger("tricktable.play_many"))
    created = await create(stub, "all_fives", options=OPTIONS)
    client = PlayMany(stub)
    with capture_logs() as lines:
        await client.join({0: created.seat_tokens[0].token, 1: created.seat_tokens[1].token})
        run = await client.play(1)
    (number, closes), = run.closed.items()
    internal = grpc.StatusCode.INTERNAL.value[0]
    assert [(c.code, c.message) for c in closes] == [(internal, "internal error: RuntimeError")]
    failed = [line for line in lines if line["event"] == "conversation failed"]
    assert [(line["table"], line["seat"], line["stream"]) for line in failed] == [(created.table_id, number, number)]
    await client.join({7: "not-a-token"})  # the call goes on
    run = await client.play(1)
    assert [c.code for c in run.closed[7]] == [UNAUTHENTICATED]
    client.cancel()


async def test_the_conformance_relay_forwards_a_play_many_call_unchanged(server: GameServer, stub: Any) -> None:
    created = await create(stub, "all_fives", options=OPTIONS)
    relay_server, _, address = await start_relay(server.address)
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            client = PlayMany(table_service_pb2_grpc.TableServiceStub(channel))
            await client.join({0: created.seat_tokens[0].token, 1: created.seat_tokens[1].token, 2: "not-a-token"})
            run = await client.play(3)
    finally:
        await relay_server.stop(None)
    assert [c.code for c in run.closed[2]] == [UNAUTHENTICATED]
    assert all((r := result_of(run.seats[n])) is not None and r.status == game_pb2.RESULT_STATUS_FINISHED
               for n in (0, 1))


async def _until(check: Callable[[], Awaitable[bool]]) -> bool:
    """``check()`` once it holds (polled for up to 2 s), else its last answer."""
    for _ in range(100):
        if await check():
            return True
        await asyncio.sleep(0.02)
    return bool(await check())


async def test_a_leave_disconnects_its_seat_as_a_dropped_play_stream_and_the_others_play_on(
        server: GameServer, stub: Any) -> None:
    created = await create(stub, "all_fives", options=OPTIONS)
    table = created.table_id
    client = PlayMany(stub)
    await client.join({0: created.seat_tokens[0].token, 1: created.seat_tokens[1].token})
    assert await _until(lambda: connected(stub, table, 0)) and await connected(stub, table, 1)
    held = server.lobby.client_streams.open
    streams_before = sum(held.values())
    await client.leave(0)
    run = await client.play(until=0)  # answering the decisions of both seats meanwhile
    assert [c.code for c in run.closed[0]] == [CANCELLED] and run.closed[0][0].message
    assert 1 not in run.closed  # the other conversation plays on
    assert not await connected(stub, table, 0) and await connected(stub, table, 1)  # disconnected before its close
    assert sum(held.values()) == streams_before - 1  # its stream freed, the call's and the other's still held
    # The number is free again: the seat rejoins under it on the same call, and the game plays to its end.
    await client.join({0: created.seat_tokens[0].token})
    run = await client.play(2)
    assert [c.code for c in run.closed[0]] == [CANCELLED, 0] and [c.code for c in run.closed[1]] == [0]
    assert [joined.seat for joined in run.seats[0].of("joined")] == [0, 0]
    assert all((r := result_of(run.seats[n])) is not None and r.status == game_pb2.RESULT_STATUS_FINISHED
               for n in (0, 1))
    record = await record_of(stub, table)
    assert record["seats"][0]["disconnects"] >= 1 and record["seats"][1]["disconnects"] == 0
    client.cancel()


async def test_a_leave_in_the_message_that_opens_its_conversation_closes_it_cancelled(stub: Any) -> None:
    created = await create(stub, "all_fives", options=OPTIONS)
    client = PlayMany(stub)
    await client.call.write(pb.PlayManyRequest(requests=[
        pb.SeatPlayRequest(stream=3, request=pb.PlayRequest(join=pb.Join(token=created.seat_tokens[0].token))),
        pb.SeatPlayRequest(stream=3, leave=True)]))
    run = await client.play(until=3)
    assert [c.code for c in run.closed[3]] == [CANCELLED]
    assert not await connected(stub, created.table_id, 0)
    await client.join({3: created.seat_tokens[0].token, 4: created.seat_tokens[1].token})  # the number opens again
    run = await client.play(2)
    assert [c.code for c in run.closed[3]] == [CANCELLED, 0] and [c.code for c in run.closed[4]] == [0]
    client.cancel()


async def test_a_leave_for_an_unopened_number_changes_nothing(stub: Any) -> None:
    """Nothing answered either: not for a number never opened, nor for one whose conversation has closed."""
    created = await create(stub, "all_fives", options=OPTIONS)
    client = PlayMany(stub)
    await client.join({0: created.seat_tokens[0].token, 1: created.seat_tokens[1].token, 2: "not-a-token"})
    run = await client.play(until=2)
    assert [c.code for c in run.closed[2]] == [UNAUTHENTICATED]
    await client.leave(5, 2)
    run = await client.play(2)
    assert run.closed == {2: [run.closed[2][0]], 0: [run.closed[0][0]], 1: [run.closed[1][0]]}
    assert [c.code for c in (run.closed[0] + run.closed[1])] == [0, 0]  # the open ones played to their end
    assert 5 not in run.seats and 2 not in run.seats  # no conversation opened under the numbers left
    assert all((r := result_of(run.seats[n])) is not None and r.status == game_pb2.RESULT_STATUS_FINISHED
               for n in (0, 1))
    await client.call.done_writing()
    assert await client.call.code() is grpc.StatusCode.OK  # nothing left open on the call
