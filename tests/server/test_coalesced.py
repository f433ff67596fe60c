"""Coalesced events (``Join.coalesce_events``): information waits for the seat's next decision, within a bound.

At the table: a follower that coalesces holds events and Accepted answers
until its decision, a refusal, the table's end or the delay; over gRPC: the
same messages in the same order as plain streams, in fewer writes, and the
seat to act always gets its decision before the others get that move.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Any

import grpc
import pytest

import tricktable.server.tables as tables
from tests.server.clients import comparable
from tests.server.test_service import create_game
from tests.server.test_tables import make_table
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.rules.events import CardPlayed
from tricktable.server.events import DecisionRequested, Event

_EOF: object = grpc.aio.EOF  # type: ignore[attr-defined]

INFO = "accepted"
URGENT = "rejection"


def _is_info(item: str) -> bool:
    return item == INFO


async def _next(follower: Any, timeout: float = 60.0) -> list[Any]:
    """The next batch; ``timeout`` only bounds a hang, so no verdict depends on the machine's speed."""
    batch: list[Any] = await asyncio.wait_for(follower.__anext__(), timeout)
    return batch


async def _started(players: int = 3) -> tables.Table:
    table = make_table(players=players)
    for seat in range(players):
        table.connect(seat)
    assert table.status is tables.TableStatus.RUNNING
    return table


def _actor_and_bystander(table: tables.Table) -> tuple[int, int]:
    """The seat to act, and a seat that is neither acting now nor next in turn."""
    actor = table.match.to_act
    assert actor is not None
    return actor, next(s for s in range(table.players) if s not in (actor, (actor + 1) % table.players))


async def test_a_coalescing_seat_gets_another_seats_move_only_after_the_delay(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "COALESCE_SECONDS", 0.3)
    table = await _started()
    actor, bystander = _actor_and_bystander(table)
    follower = table.follow_batches(bystander, table.snapshot(bystander).seq, deque(), _is_info)
    pending = table.pending_for(actor)
    assert pending is not None
    began = time.monotonic()
    assert table.submit(actor, pending.decision_id, pending.legal_actions[0]).accepted
    batch = await _next(follower)
    waited = time.monotonic() - began
    assert waited >= 0.3
    assert [type(item.body) for item in batch] == [CardPlayed]
    await follower.aclose()


async def test_a_coalescing_seat_gets_what_was_held_with_its_decision_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "COALESCE_SECONDS", 3600.0)  # a batch within _next's bound is never the hold's end
    table = await _started(players=2)
    actor = table.match.to_act
    assert actor is not None
    other = 1 - actor
    follower = table.follow_batches(actor, table.snapshot(actor).seq, inbox := deque[str](), _is_info)
    first = await _next(follower)
    assert isinstance(first[-1], DecisionRequested)
    assert table.submit(actor, first[-1].decision_id, first[-1].legal_actions[0]).accepted
    inbox.append(INFO)  # the stream's Accepted: held like an event
    table.wake(actor)
    pending = table.pending_for(other)
    assert pending is not None
    table.submit(other, pending.decision_id, pending.legal_actions[0])
    if table.match.to_act != actor:  # the toy trick went to the other seat: let it play again
        pending = table.pending_for(other)
        assert pending is not None
        table.submit(other, pending.decision_id, pending.legal_actions[0])
    batch = await _next(follower)  # long before the hour's hold: the decision takes everything along
    assert batch[0] == INFO
    assert all(isinstance(item, Event) for item in batch[1:-1]) and len(batch) > 2
    assert isinstance(batch[-1], DecisionRequested)
    await follower.aclose()


async def test_a_refusal_ends_the_hold_and_an_accepted_alone_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "COALESCE_SECONDS", 30.0)
    table = await _started()
    _, bystander = _actor_and_bystander(table)
    follower = table.follow_batches(bystander, table.snapshot(bystander).seq, inbox := deque[str](), _is_info)
    inbox.append(INFO)
    table.wake(bystander)
    waiting = asyncio.ensure_future(_next(follower))
    done, _ = await asyncio.wait({waiting}, timeout=0.2)
    assert not done  # an Accepted alone is held
    inbox.append(URGENT)
    table.wake(bystander)
    assert await waiting == [INFO, URGENT]
    await follower.aclose()


class _LookingInbox(deque[str]):
    """An inbox that counts how often its follower looks into it (once per turn of the follower's loop at least)."""

    looks = 0

    def __bool__(self) -> bool:
        self.looks += 1
        return len(self) > 0


async def test_a_seat_holding_its_information_is_not_woken_by_the_other_seats_moves(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "COALESCE_SECONDS", 30.0)
    table = await _started()
    actor, bystander = _actor_and_bystander(table)
    follower = table.follow_batches(bystander, table.snapshot(bystander).seq, inbox := _LookingInbox(), _is_info)
    inbox.append(INFO)
    table.wake(bystander)
    waiting = asyncio.ensure_future(_next(follower))
    for _ in range(5):
        await asyncio.sleep(0)
    looks = inbox.looks
    pending = table.pending_for(actor)
    assert pending is not None and table.submit(actor, pending.decision_id, pending.legal_actions[0]).accepted
    for _ in range(5):
        await asyncio.sleep(0)
    assert inbox.looks == looks and not waiting.done()  # the move is held in the log, its task left asleep
    table.abort("test over")  # the end wakes it: everything held comes at once
    batch = await waiting
    assert batch[0] == INFO and any(isinstance(item, Event) and isinstance(item.body, CardPlayed) for item in batch)
    await follower.aclose()


async def test_after_its_decision_a_seat_holds_its_answers_accepted_without_being_woken(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "COALESCE_SECONDS", 0.3)
    table = await _started()
    actor = table.match.to_act
    assert actor is not None
    follower = table.follow_batches(actor, table.snapshot(actor).seq, inbox := _LookingInbox(), _is_info)
    decision = (await _next(follower))[-1]
    assert isinstance(decision, DecisionRequested)
    waiting = asyncio.ensure_future(_next(follower))
    for _ in range(5):
        await asyncio.sleep(0)
    looks = inbox.looks
    assert table.submit(actor, decision.decision_id, decision.legal_actions[0]).accepted
    inbox.append(INFO)  # the stream's Accepted, put there with no wake-up (as the Play reader does)
    for _ in range(5):
        await asyncio.sleep(0)
    assert inbox.looks == looks and not waiting.done()  # neither its own move nor its Accepted woke it
    batch = await waiting  # the hold that began with the decision ends: the Accepted and the move come together
    assert batch[0] == INFO and any(isinstance(item, Event) and isinstance(item.body, CardPlayed) for item in batch)
    await follower.aclose()


async def test_the_end_of_the_table_is_never_held(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "COALESCE_SECONDS", 30.0)
    table = await _started()
    _, bystander = _actor_and_bystander(table)
    follower = table.follow_batches(bystander, table.snapshot(bystander).seq, deque(), _is_info)
    table.abort("test over")
    batch = await _next(follower)
    assert batch and isinstance(batch[-1], Event)
    with pytest.raises(StopAsyncIteration):
        await _next(follower)


# --- over gRPC ---------------------------------------------------------------------------------


async def _play(stub: Any, token: str, seat: int, *, coalesce: bool,
                arrivals: list[tuple[float, int, pb.PlayResponse]]) -> list[pb.PlayResponse]:
    """Play a seat first-legal to the end; the messages as received. ``arrivals``: (time, seat, flattened item)."""
    call = stub.Play()
    received: list[pb.PlayResponse] = []
    await call.write(pb.PlayRequest(join=pb.Join(token=token, accept_batches=True, coalesce_events=coalesce)))
    while (message := await call.read()) is not _EOF:
        assert isinstance(message, pb.PlayResponse)
        now = time.monotonic()
        received.append(message)
        items = list(message.batch.messages) if message.WhichOneof("kind") == "batch" else [message]
        for item in items:
            arrivals.append((now, seat, item))
            if item.WhichOneof("kind") == "decision":
                decision = item.decision
                await call.write(pb.PlayRequest(decide=pb.Decide(decision_id=decision.decision_id,
                                                                 action_id=decision.legal_actions[0].id)))
    return received


async def _run(stub: Any, *, coalesce: bool) -> tuple[list[list[pb.PlayResponse]], list[tuple[float, int, Any]]]:
    created = await create_game(stub, "twenty_five", seed="coalesced")
    arrivals: list[tuple[float, int, pb.PlayResponse]] = []
    received = await asyncio.gather(*(_play(stub, t.token, t.seat, coalesce=coalesce, arrivals=arrivals)
                                      for t in created.seat_tokens))
    return list(received), arrivals


async def test_coalescing_seats_get_the_same_messages_in_fewer_writes(stub: Any) -> None:
    batched, batched_arrivals = await _run(stub, coalesce=False)
    coalesced, coalesced_arrivals = await _run(stub, coalesce=True)
    for seat, (plain, fewer) in enumerate(zip(batched, coalesced, strict=True)):
        def flat(arrivals: list[tuple[float, int, Any]], seat: int = seat) -> list[Any]:
            return [c for _, s, m in arrivals if s == seat and (c := comparable(m))]

        assert flat(coalesced_arrivals) == flat(batched_arrivals)
        kinds = [m.WhichOneof("kind") for _, s, m in coalesced_arrivals if s == seat]
        assert kinds.count("accepted") == kinds.count("decision") > 0
        assert len(fewer) < len(plain)
    moves = sum(1 for _, _, m in coalesced_arrivals if m.WhichOneof("kind") == "decision")
    assert sum(map(len, coalesced)) < sum(map(len, batched)) and moves > 0


ACTION_EVENTS = ("card_played", "robbed", "rob_passed")


async def test_the_seat_to_act_gets_its_decision_before_the_others_get_that_move(stub: Any) -> None:
    _, arrivals = await _run(stub, coalesce=True)
    asked: dict[int, tuple[float, int]] = {}  # decision id -> when and to which seat it arrived
    actions: dict[int, list[tuple[float, int]]] = {}  # seat -> when its k-th action event arrived
    for when, seat, item in arrivals:
        kind = item.WhichOneof("kind")
        if kind == "decision":
            asked.setdefault(int(item.decision.decision_id), (when, seat))
        elif kind == "event" and item.event.WhichOneof("kind") in ACTION_EVENTS:
            actions.setdefault(seat, []).append((when, seat))
    # Decision ids count from 1, one per action (nobody times out): the k-th action is answered by decision k,
    # and decision k + 1 is what the next seat is asked after it.
    checked = 0
    for seat_events in actions.values():
        for k, (when, seat) in enumerate(seat_events, start=1):
            following = asked.get(k + 1)
            if following is None:
                continue
            assert when >= following[0], f"seat {seat} got action {k} before seat {following[1]} got its decision"
            checked += 1
    assert checked > 10
