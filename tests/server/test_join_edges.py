"""Joining, rejoining and spectating at the edges (docs/protocol.md sections 5, 10 and 13).

- While the table waits for its seats, a joined view offers no turn and no legal action.
- ``last_seen_sequence`` is a resume point on any join, a first one included: 0 replays the whole log,
  a value beyond the log is refused with INVALID_ARGUMENT (the client would silently miss events).
- A second stream of a seat gets the pending decision too; either stream may answer it, once.
- Closing one of two open streams of a seat is no disconnection; closing the last one is.
- Spectating a table that ended moments ago gives its final view and a stream with no event.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from tests.server.clients import PlaySeat, create, first_legal, spectate
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb

SHORT_GAME = {"target": 5}


async def _finished_game(stub: Any) -> tuple[pb.CreateTableResponse, list[Any]]:
    created = await create(stub, "all_fives", seed="edges", options=SHORT_GAME)
    seats = [PlaySeat(stub, t.token) for t in created.seat_tokens]
    runs = await asyncio.wait_for(asyncio.gather(*(s.play() for s in seats)), 30)
    return created, runs


def _kinds(run: Any) -> list[str]:
    return [e.WhichOneof("kind") for e in run.events]


async def test_a_view_joined_while_the_table_waits_offers_no_turn_and_no_legal_action(stub: Any) -> None:
    created = await create(stub, "all_fives", seed="waiting", options=SHORT_GAME)
    first = PlaySeat(stub, created.seat_tokens[0].token)
    playing = asyncio.ensure_future(first.play())
    joined = await first.next("joined")
    assert joined.table.status == pb.TABLE_STATUS_WAITING
    assert len(joined.view.hand) == 6  # the first deal is dealt: the seat sees its hand
    assert not joined.view.HasField("to_act") and not joined.view.legal_actions
    second = PlaySeat(stub, created.seat_tokens[1].token)
    await asyncio.wait_for(asyncio.gather(playing, second.play()), 30)
    assert first.run.of("decision") or second.run.of("decision")


async def test_a_last_seen_sequence_beyond_the_log_is_refused_and_changes_nothing(stub: Any) -> None:
    created = await create(stub, "all_fives", seed="beyond", options=SHORT_GAME)
    token = created.seat_tokens[0].token
    with pytest.raises(grpc.aio.AioRpcError) as play:
        await PlaySeat(stub, token, last_seen=1).play()  # the log is empty: nothing was ever sent
    with pytest.raises(grpc.aio.AioRpcError) as watch:
        async for _ in stub.Watch(pb.WatchRequest(token=token, last_seen_sequence=7)):
            pass
    with pytest.raises(grpc.aio.AioRpcError) as spectator:
        async for _ in stub.Spectate(pb.SpectateRequest(table_id=created.table_id, last_seen_sequence=3)):
            pass
    for error in (play.value, watch.value, spectator.value):
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "last_seen_sequence" in (error.details() or "")
    table = await stub.GetTable(pb.GetTableRequest(table_id=created.table_id))
    assert not table.table.seats[0].joined  # the refused joins did not count as joins


async def test_a_first_join_with_last_seen_sequence_zero_gets_the_events_of_the_start(stub: Any) -> None:
    created = await create(stub, "all_fives", seed="zero", options=SHORT_GAME)
    waiting = PlaySeat(stub, created.seat_tokens[0].token)
    playing = asyncio.ensure_future(waiting.play())
    await waiting.next("joined")
    completing = PlaySeat(stub, created.seat_tokens[1].token, last_seen=0)  # its join starts the table
    run = await asyncio.wait_for(completing.play(), 30)
    await asyncio.wait_for(playing, 30)
    assert run.of("joined")[0].sequence >= 2
    assert _kinds(run)[:2] == ["table_started", "deal_started"]
    assert [e.sequence for e in run.events] == list(range(1, len(run.events) + 1))


async def test_last_seen_sequence_zero_after_the_end_replays_the_whole_log(stub: Any) -> None:
    created, runs = await _finished_game(stub)
    again = await asyncio.wait_for(PlaySeat(stub, created.seat_tokens[0].token, last_seen=0).play(), 10)
    assert [e.sequence for e in again.events] == list(range(1, runs[0].events[-1].sequence + 1))
    assert again.events[0].WhichOneof("kind") == "table_started"
    assert again.events[-1].WhichOneof("kind") == "game_ended"


async def test_a_second_stream_gets_the_pending_decision_and_either_stream_answers_it_once(stub: Any) -> None:
    created = await create(stub, "all_fives", seed="two-streams", options={**SHORT_GAME, "first_dealer": 1})
    # Seat 0 is eldest hand: it acts first (stand or beg) and answers nothing by itself here.
    first = PlaySeat(stub, created.seat_tokens[0].token)
    other = PlaySeat(stub, created.seat_tokens[1].token)
    tasks = [asyncio.ensure_future(first.play(answer=False)), asyncio.ensure_future(other.play())]
    try:
        decision = await first.next("decision")
        second = PlaySeat(stub, created.seat_tokens[0].token)
        tasks.append(asyncio.ensure_future(second.play(answer=False)))
        again = await second.next("decision")
        assert again.decision_id == decision.decision_id and again.legal_actions == decision.legal_actions
        second.send(pb.PlayRequest(decide=first_legal(again)))
        assert (await second.next("accepted")).duplicate is False
        first.send(pb.PlayRequest(decide=first_legal(decision)))
        assert (await first.next("accepted")).duplicate is True  # played once
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_closing_one_of_two_streams_is_no_disconnection_but_closing_the_last_is(stub: Any) -> None:
    created = await create(stub, "all_fives", seed="presence", options={**SHORT_GAME, "first_dealer": 1})
    watcher = PlaySeat(stub, created.seat_tokens[1].token)
    a = PlaySeat(stub, created.seat_tokens[0].token)
    b = PlaySeat(stub, created.seat_tokens[0].token)
    playing_a = asyncio.ensure_future(a.play(answer=False))
    watching = asyncio.ensure_future(watcher.play())
    try:
        await a.next("decision")  # the table runs; seat 0 must act
        playing_b = asyncio.ensure_future(b.play(answer=False))
        await b.next("decision")
        playing_b.cancel()
        await asyncio.gather(playing_b, return_exceptions=True)
        await asyncio.sleep(0.3)
        presence = [e for e in watcher.run.events if e.WhichOneof("kind") == "seat_disconnected"]
        assert presence == []
        playing_a.cancel()
        await asyncio.gather(playing_a, return_exceptions=True)
        gone = await watcher.next("event")
        while gone.WhichOneof("kind") != "seat_disconnected":
            gone = await watcher.next("event")
        assert gone.seat_disconnected.seat == 0
    finally:
        for task in (playing_a, watching):
            task.cancel()
        await asyncio.gather(playing_a, watching, return_exceptions=True)


async def test_spectating_a_table_that_just_ended_gives_the_final_view_and_no_event(stub: Any) -> None:
    created, runs = await _finished_game(stub)
    watched = await asyncio.wait_for(spectate(stub, created.table_id), 10)
    assert [r.WhichOneof("kind") for r in watched] == ["started"]
    started = watched[0].started
    assert started.table.status == pb.TABLE_STATUS_FINISHED
    assert started.view.HasField("result") and started.view.result.status == runs[0].events[-1].game_ended.result.status
    replay = [r async for r in stub.Spectate(pb.SpectateRequest(table_id=created.table_id, last_seen_sequence=0))]
    assert replay[-1].event.WhichOneof("kind") == "game_ended"
    assert [r.event.sequence for r in replay[1:]] == list(range(1, started.sequence + 1))
