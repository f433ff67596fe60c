"""Seats that drop their stream at random moments and rejoin: every game finishes, no event is lost or repeated."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from tests.server.clients import PlaySeat, by_id, result_of
from tests.server.test_service import record_of
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import game_pb2
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.rules.verify import verify_record


def is_game_message(response: pb.PlayResponse) -> bool:
    kind = response.WhichOneof("kind")
    return kind != "event" or response.event.WhichOneof("kind") not in ("seat_joined", "seat_disconnected")


async def flaky_seat(stub: Any, token: str, rng: random.Random) -> tuple[list[int], Any, int]:
    """Play to the end, dropping the stream after a random number of messages; return the event sequences seen."""
    sequences: list[int] = []
    last_seen: int | None = None
    rejoins = 0
    while True:
        budget = rng.randint(1, 12)
        seat = PlaySeat(stub, token, choose=by_id(rng), last_seen=last_seen)

        def stop(response: pb.PlayResponse, seat: PlaySeat = seat, budget: int = budget) -> bool:
            # Leave after ``budget`` game messages, never right on a decision request (answered first: a decision
            # left pending on every short stream would never be played; test_service covers leaving with one
            # pending). Presence events do not count: every rejoin makes two, and counting them would let the
            # seats' reconnections feed each other for ever.
            return response.WhichOneof("kind") != "decision" and sum(map(is_game_message, seat.run.responses)) >= budget

        run = await seat.play(stop=stop)
        joined = run.responses[0].joined
        if last_seen is None:
            sequences.extend(range(1, joined.sequence + 1))  # the starting view stands for what came before
        sequences += [e.sequence for e in run.events]
        if run.events:
            last_seen = run.events[-1].sequence
        elif last_seen is None:
            last_seen = joined.sequence
        result = result_of(run)
        if result is not None:
            return sequences, result, rejoins
        rejoins += 1


async def test_seats_dropping_and_rejoining_at_random_finish_their_games_without_gaps(stub: Any) -> None:
    async def table(index: int) -> None:
        created = await stub.CreateTable(pb.CreateTableRequest(
            game=convert.game_to_proto("twenty_five"), seed=f"flaky-{index}"))
        rng = random.Random(index)
        outcomes = await asyncio.wait_for(asyncio.gather(
            *(flaky_seat(stub, t.token, random.Random(rng.random())) for t in created.seat_tokens)), 60)
        for sequences, result, _rejoins in outcomes:
            assert sequences == list(range(1, len(sequences) + 1))  # contiguous: nothing lost, nothing twice
            assert result.status == game_pb2.RESULT_STATUS_FINISHED
        assert sum(r for _, _, r in outcomes) > 0
        record = await record_of(stub, created.table_id)
        assert verify_record(record) is None
        assert all(s["timeouts"] == 0 and s["default_actions"] == 0 for s in record["seats"])
        assert sum(s["disconnects"] for s in record["seats"]) > 0

    await asyncio.gather(*(table(i) for i in range(6)))
