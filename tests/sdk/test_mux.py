"""The SDK's PlayMany multiplexer (client_sdk/mux.py), message by message, against a scripted PlayMany service.

Real gRPC on 127.0.0.1:0; the service (not the product's server: tests/sdk/test_mux_real_server.py plays
that one) answers exactly what the test needs, so what the client sends can be counted: decisions ready
in one loop turn go out as one PlayManyRequest; a ``closed`` with a status is the Play call's error.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from tricktable.bots.first_legal import FirstLegalBot
from tricktable.client_sdk.errors import JoinRejected, LimitExceeded
from tricktable.client_sdk.mux import Seat, SeatMultiplexer, play_seats_async
from tricktable.client_sdk.runner import Backoff, PlayedSeat
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import events_pb2, table_service_pb2_grpc
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.rules.match import Match
from tricktable.rules.registry import new_match

FAST = Backoff(initial=0.01, maximum=0.05, attempts=3)


def _one_move_from_the_end(seed: str) -> Match:
    """An All Fives match whose next action (the first legal one) ends the game."""
    match = new_match("all_fives", {}, seed=seed)
    while True:
        seat = match.to_act
        assert seat is not None
        after = match.apply(match.view(seat).legal_actions[0], seat)
        if after.result is not None:
            return match
        match = after


class _LastMoves(table_service_pb2_grpc.TableServiceServicer):
    """PlayMany only: token ``t<K>`` is the seat to act at table K, one move from its end.

    Waits for every table's join, then sends each seat its Joined and its decision in ONE message; records
    the requests that carry the decisions; applies them and ends each game (GameEnded, then closed OK).
    A token in ``refuse`` is closed at once with that status instead (the call goes on).
    """

    def __init__(self, tables: int, refuse: dict[str, tuple[grpc.StatusCode, str]] | None = None) -> None:
        self.matches = [_one_move_from_the_end(f"mux-{k}") for k in range(tables)]
        self.refuse = refuse or {}
        #: How many decisions each PlayManyRequest carrying decisions had.
        self.decides_per_request: list[int] = []

    async def PlayMany(self, request_iterator: AsyncIterator[pb.PlayManyRequest],
                       context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[pb.PlayManyResponse]:
        table_of: dict[int, int] = {}
        requests = aiter(request_iterator)
        while len(table_of) < len(self.matches):
            message = await anext(requests)
            for item in message.requests:
                token = item.request.join.token
                if token in self.refuse:
                    code, text = self.refuse[token]
                    yield pb.PlayManyResponse(responses=[pb.SeatPlayResponse(
                        stream=item.stream, closed=pb.SeatClosed(code=code.value[0], message=text))])
                    continue
                table_of[item.stream] = int(token.removeprefix("t"))
        opening = []
        for stream, table in table_of.items():
            match = self.matches[table]
            seat = match.to_act
            assert seat is not None
            view = match.view(seat)
            opening += [
                pb.SeatPlayResponse(stream=stream, response=pb.PlayResponse(joined=pb.Joined(
                    table_id=f"table-{table}", seat=seat, view=convert.view_to_proto(view), sequence=0))),
                pb.SeatPlayResponse(stream=stream, response=pb.PlayResponse(decision=pb.DecisionRequest(
                    decision_id="d1", legal_actions=convert.legal_actions_to_proto(view.legal_actions),
                    view=convert.view_to_proto(view))))]
        yield pb.PlayManyResponse(responses=opening)
        answered: set[int] = set()
        while answered != set(table_of):
            message = await anext(requests)
            decides = [item for item in message.requests if item.request.WhichOneof("kind") == "decide"]
            self.decides_per_request.append(len(decides))
            ending = []
            for item in decides:
                table = table_of[item.stream]
                match = self.matches[table]
                seat = match.to_act
                assert seat is not None
                legal = {convert.action_id(a): a for a in match.view(seat).legal_actions}
                self.matches[table] = match = match.apply(legal[item.request.decide.action_id], seat)
                assert match.result is not None
                ended = events_pb2.Event(sequence=1, game_ended=events_pb2.GameEnded(
                    result=convert.result_to_proto(match.result)))
                ending += [pb.SeatPlayResponse(stream=item.stream, response=pb.PlayResponse(
                               accepted=pb.Accepted(decision_id="d1"))),
                           pb.SeatPlayResponse(stream=item.stream, response=pb.PlayResponse(event=ended)),
                           pb.SeatPlayResponse(stream=item.stream, closed=pb.SeatClosed(code=0))]
                answered.add(item.stream)
            yield pb.PlayManyResponse(responses=ending)


class _Refusing(table_service_pb2_grpc.TableServiceServicer):
    """PlayMany only: every join is closed at once with ``code``; the call stays open."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        self.code = code
        self.message = message
        self.joins = 0

    async def PlayMany(self, request_iterator: AsyncIterator[pb.PlayManyRequest],
                       context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[pb.PlayManyResponse]:
        async for message in request_iterator:
            self.joins += len(message.requests)
            yield pb.PlayManyResponse(responses=[pb.SeatPlayResponse(
                stream=item.stream, closed=pb.SeatClosed(code=self.code.value[0], message=self.message))
                for item in message.requests])


async def _serve(service: table_service_pb2_grpc.TableServiceServicer) -> tuple[grpc.aio.Server, str]:
    server = grpc.aio.server()
    table_service_pb2_grpc.add_TableServiceServicer_to_server(service, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}"


async def test_decisions_ready_in_one_loop_turn_go_to_the_server_as_one_message() -> None:
    service = _LastMoves(tables=3)  # type: ignore[abstract]  # PlayMany only
    server, address = await _serve(service)
    try:
        async with SeatMultiplexer(backoff=FAST) as mux:
            played = await asyncio.wait_for(asyncio.gather(*(
                mux.play(FirstLegalBot(), address, token=f"t{k}") for k in range(3))), timeout=30)
            traffic = mux.traffic
    finally:
        await server.stop(None)
    assert service.decides_per_request == [3]  # three seats' answers, one gRPC message
    assert [p.result.status for p in played] == ["finished"] * 3
    assert [p.result for p in played] == [m.result for m in service.matches]
    assert traffic.calls == 1
    assert traffic.responses_received == 2 and traffic.seat_responses_received == 15


async def test_a_closed_conversation_raises_the_error_its_play_call_would() -> None:
    service = _Refusing(grpc.StatusCode.UNAUTHENTICATED, "unknown token")  # type: ignore[abstract]  # PlayMany only
    server, address = await _serve(service)
    try:
        async with SeatMultiplexer(backoff=FAST) as mux:
            with pytest.raises(JoinRejected, match=r"^UNAUTHENTICATED: unknown token$"):
                await asyncio.wait_for(mux.play(FirstLegalBot(), address, token="t0"), timeout=30)
    finally:
        await server.stop(None)
    assert service.joins == 1  # not retried, as on Play


async def test_a_retryable_closed_status_is_retried_with_backoff_on_the_same_call_then_raised() -> None:
    service = _Refusing(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many streams")  # type: ignore[abstract]  # PlayMany only
    server, address = await _serve(service)
    try:
        async with SeatMultiplexer(backoff=FAST) as mux:
            with pytest.raises(LimitExceeded, match="gave up after 3 reconnect attempts: RESOURCE_EXHAUSTED"):
                await asyncio.wait_for(mux.play(FirstLegalBot(), address, token="t0"), timeout=30)
            calls = mux.traffic.calls
    finally:
        await server.stop(None)
    assert service.joins == 4 and calls == 1  # the call goes on: only the conversation ended each time


async def test_play_seats_returns_a_seats_error_beside_the_other_seats_results() -> None:
    service = _LastMoves(tables=2, refuse={"t9": (grpc.StatusCode.UNAUTHENTICATED, "unknown token")})  # type: ignore[abstract]  # PlayMany only
    server, address = await _serve(service)
    try:
        outcomes = await asyncio.wait_for(play_seats_async(
            [Seat(bot=FirstLegalBot(), token=token, address=address) for token in ("t0", "t9", "t1")],
            backoff=FAST), timeout=30)
    finally:
        await server.stop(None)
    first, refused, last = outcomes
    assert isinstance(refused, JoinRejected)
    assert isinstance(first, PlayedSeat) and first.result.status == "finished"
    assert isinstance(last, PlayedSeat) and last.result.status == "finished"
