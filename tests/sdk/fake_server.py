"""A small scripted TableService for SDK tests: one table, the Play RPC, real gRPC on 127.0.0.1:0.

Not the product's server (server/ is): it implements just enough of the
protocol to drive the SDK's runner through the situations it must survive,
on purpose and deterministically: a stream dropped after a seat's n-th
accepted decision, and the in-band rejection of an illegal action. It keeps
a per-seat event log with sequence numbers and honours ``last_seen_sequence``
on a rejoin, as the protocol says.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import grpc

from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import events_pb2, table_service_pb2, table_service_pb2_grpc
from tricktable.rules.actions import Action
from tricktable.rules.errors import NotationError, RuleError
from tricktable.rules.events import ACTION_EVENTS
from tricktable.rules.match import Match
from tricktable.rules.notation import from_notation
from tricktable.rules.registry import new_match


@dataclass
class FakeTable:
    """One match and what each seat has been told."""

    match: Match
    table_id: str = "t-1"
    logs: dict[int, list[events_pb2.Event]] = field(default_factory=dict)
    decisions: int = 0
    accepted_by_seat: dict[int, int] = field(default_factory=dict)
    #: seat -> drop its stream right after this many accepted decisions (once).
    drop_after: dict[int, int] = field(default_factory=dict)
    #: seat -> drop its stream right after sending it this many decision requests (once).
    drop_after_asking: dict[int, int] = field(default_factory=dict)
    asked_by_seat: dict[int, int] = field(default_factory=dict)
    #: (seat, last_seen_sequence) of every join, in order.
    joins: list[tuple[int, int | None]] = field(default_factory=list)
    rejections: list[tuple[int, str]] = field(default_factory=list)
    duplicates: int = 0
    last_actor: int | None = None
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    @property
    def players(self) -> int:
        return self.match.config.players

    def token_seat(self, token: str) -> int | None:
        for seat in range(self.players):
            if token == f"tok-{seat}":
                return seat
        return None

    def decision_id(self) -> str:
        return f"d{self.decisions}"

    def emit(self, build: Any) -> None:
        """Append to every seat's log the event ``build(seat)`` makes for it."""
        for seat in range(self.players):
            log = self.logs.setdefault(seat, [])
            event = build(seat)
            event.sequence = len(log) + 1
            log.append(event)

    def decide(self, seat: int, decide: table_service_pb2.Decide, legal: dict[str, Action]) -> Any:
        """Accepted or Rejection for a seat's decision."""
        if decide.decision_id != self.decision_id() or self.match.to_act != seat:
            if decide.decision_id == f"d{self.decisions - 1}" and self.last_actor == seat:
                self.duplicates += 1
                return table_service_pb2.Accepted(decision_id=decide.decision_id, duplicate=True)
            return self.reject(seat, decide.decision_id, "STALE_DECISION", "not the pending decision")
        try:
            if decide.WhichOneof("choice") == "action_id":
                # An id is a notation: a discard of a DiscardChoice is named by one that was never sent,
                # and an illegal action's notation is refused by the rules, with their reason.
                try:
                    action = legal.get(decide.action_id) or from_notation(decide.action_id)
                except NotationError:
                    return self.reject(seat, decide.decision_id, "UNKNOWN_ACTION_ID", decide.action_id)
            else:
                action = convert.action_from_proto(decide.action)
            self.match.check(action, seat)
        except RuleError as exc:
            return self.reject(seat, decide.decision_id, exc.code.value, exc.message)
        except NotationError as exc:
            return self.reject(seat, decide.decision_id, "MALFORMED_ACTION", str(exc))
        self.match = self.match.apply(action, seat)
        self.decisions += 1
        self.last_actor = seat
        self.accepted_by_seat[seat] = self.accepted_by_seat.get(seat, 0) + 1
        done = next(e for e in self.match.events if isinstance(e, ACTION_EVENTS))
        self.emit(lambda s: convert.event_to_proto(done.seen_by(s)))
        if self.match.result is not None:
            result = convert.result_to_proto(self.match.result)
            self.emit(lambda s: events_pb2.Event(game_ended=events_pb2.GameEnded(result=result)))
        return table_service_pb2.Accepted(decision_id=decide.decision_id)

    def reject(self, seat: int, decision_id: str, reason: str, message: str) -> table_service_pb2.Rejection:
        self.rejections.append((seat, reason))
        return table_service_pb2.Rejection(decision_id=decision_id, reason=convert.rejection_reason_to_proto(reason),
                                           message=message)


class FakeService(table_service_pb2_grpc.TableServiceServicer):
    """Play only; everything else is UNIMPLEMENTED by the base class."""

    def __init__(self, table: FakeTable) -> None:
        self.table = table

    async def Play(self, request_iterator: AsyncIterator[table_service_pb2.PlayRequest],
                   context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[table_service_pb2.PlayResponse]:
        table = self.table
        first = await anext(aiter(request_iterator))
        seat = table.token_seat(first.join.token)
        if seat is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token")
            return
        last_seen = first.join.last_seen_sequence if first.join.HasField("last_seen_sequence") else None
        table.joins.append((seat, last_seen))
        log = table.logs.setdefault(seat, [])
        view = convert.view_to_proto(table.match.view(seat))
        # Read the log's length with the view, before yielding: other seats may act while the
        # Joined message is written, and their events must follow it, not be skipped.
        joined_at = len(log)
        yield table_service_pb2.PlayResponse(joined=table_service_pb2.Joined(
            table_id=table.table_id, seat=seat, view=view, sequence=joined_at))
        sent = joined_at if last_seen is None else last_seen
        replies: asyncio.Queue[Any] = asyncio.Queue()
        asked: str | None = None
        legal: dict[str, Action] = {}
        drop_at = table.drop_after.pop(seat, None)

        async def read_decisions() -> None:
            async for request in request_iterator:
                if request.WhichOneof("kind") == "decide":
                    async with table.changed:
                        await replies.put(table.decide(seat, request.decide, legal))
                        table.changed.notify_all()

        reader = asyncio.create_task(read_decisions())
        try:
            while True:
                while not replies.empty():
                    reply = replies.get_nowait()
                    if isinstance(reply, table_service_pb2.Accepted):
                        yield table_service_pb2.PlayResponse(accepted=reply)
                    else:
                        yield table_service_pb2.PlayResponse(rejection=reply)
                while sent < len(log):
                    yield table_service_pb2.PlayResponse(event=log[sent])
                    sent += 1
                if drop_at is not None and table.accepted_by_seat.get(seat, 0) >= drop_at:
                    await context.abort(grpc.StatusCode.UNAVAILABLE, "scripted drop")
                    return
                if table.match.result is not None:
                    return
                if table.match.to_act == seat and asked != table.decision_id():
                    asked = table.decision_id()
                    seat_view = table.match.view(seat)
                    legal.clear()
                    legal.update({convert.action_id(a): a for a in seat_view.legal_actions})
                    yield table_service_pb2.PlayResponse(decision=table_service_pb2.DecisionRequest(
                        decision_id=asked, legal_actions=convert.legal_actions_to_proto(seat_view.legal_actions),
                        deadline_unix_ms=0, time_bank_ms=0, view=convert.view_to_proto(seat_view)))
                    table.asked_by_seat[seat] = table.asked_by_seat.get(seat, 0) + 1
                    if table.drop_after_asking.get(seat) == table.asked_by_seat[seat]:
                        del table.drop_after_asking[seat]
                        await context.abort(grpc.StatusCode.UNAVAILABLE, "scripted drop while the bot thinks")
                        return
                    continue
                async with table.changed:
                    if replies.empty() and sent == len(log):
                        await table.changed.wait()
        finally:
            reader.cancel()


async def start_fake_server(table: FakeTable) -> tuple[grpc.aio.Server, str]:
    """Serve ``table`` on 127.0.0.1 at a free port; returns the server and its address."""
    server = grpc.aio.server()
    table_service_pb2_grpc.add_TableServiceServicer_to_server(FakeService(table), server)  # type: ignore[abstract]  # Play only
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}"


def fake_table(game: str = "twenty_five", seed: str = "sdk-fake") -> FakeTable:
    """A fresh table of ``game``."""
    return FakeTable(match=new_match(game, {}, seed=seed))
