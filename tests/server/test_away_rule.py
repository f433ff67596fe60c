"""Default actions over real gRPC: each carries a marked event, and a seat that never answers is soon away."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from tests.server.clients import PlaySeat, create
from tricktable.protocol.generated.tricktable.v1 import events_pb2
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.server.clocks import AWAY_AFTER_TIMEOUTS


def defaults_of(events: list[Any], seat: int) -> list[int]:
    return [e.action_timed_out.reason for e in events
            if e.WhichOneof("kind") == "action_timed_out" and e.action_timed_out.seat == seat]


async def test_a_connected_seat_that_never_answers_is_away_after_two_timeouts_and_defaults_are_marked(
        stub: Any) -> None:
    created = await create(stub, "all_fives", options={"target": 11}, decision_ms=300, bank_ms=0)
    silent = PlaySeat(stub, created.seat_tokens[0].token, choose=lambda _: None)  # connected, never answers
    player = PlaySeat(stub, created.seat_tokens[1].token)
    spectated: list[pb.SpectateResponse] = []

    async def spectate() -> None:
        async for response in stub.Spectate(pb.SpectateRequest(table_id=created.table_id, last_seen_sequence=0)):
            spectated.append(response)

    watching = asyncio.ensure_future(spectate())
    await asyncio.wait_for(asyncio.gather(silent.play(), player.play()), 120)
    await asyncio.wait_for(watching, 10)
    record = json.loads((await stub.GetRecord(pb.GetRecordRequest(table_id=created.table_id))).record_json)
    counters = record["seats"][0]
    # Only the first two decisions waited out the clock; every later one was played at once (away).
    assert counters["timeouts"] == AWAY_AFTER_TIMEOUTS < counters["default_actions"]
    seen = defaults_of(player.run.events, 0)  # the other seat tells each default from a real move
    assert seen[:2] == [events_pb2.DEFAULT_REASON_TIMEOUT] * 2
    assert set(seen[2:]) == {events_pb2.DEFAULT_REASON_AWAY} and len(seen) == counters["default_actions"]
    assert defaults_of([r.event for r in spectated if r.WhichOneof("kind") == "event"], 0) == seen


async def test_an_away_seat_that_answers_again_is_no_longer_away(stub: Any) -> None:
    created = await create(stub, "all_fives", options={"target": 11}, decision_ms=300, bank_ms=0)
    answering = {"on": False}
    seat0 = PlaySeat(stub, created.seat_tokens[0].token,
                     choose=lambda d: pb.Decide(decision_id=d.decision_id, action_id=d.legal_actions[0].id)
                     if answering["on"] else None)
    player = PlaySeat(stub, created.seat_tokens[1].token)
    games = asyncio.ensure_future(asyncio.gather(seat0.play(), player.play()))
    for _ in range(1000):  # until seat 0 is away (a default for reason AWAY)
        if events_pb2.DEFAULT_REASON_AWAY in defaults_of(player.run.events, 0):
            break
        await asyncio.sleep(0.02)
    answering["on"] = True  # the client is back: it answers the next request it gets
    await asyncio.wait_for(games, 120)
    record = json.loads((await stub.GetRecord(pb.GetRecordRequest(table_id=created.table_id))).record_json)
    accepted = [r for r in seat0.run.of("accepted") if not r.duplicate]
    assert accepted  # its own moves were played again
    moves = sum(1 for deal in record["deals"] for action in deal["actions"] if action["seat"] == 0)
    assert record["seats"][0]["default_actions"] + len(accepted) == moves  # each move: a default or its own
