"""Which rejection wins: the checks of a decide apply in the order docs/protocol.md section 8 states.

1. ``NOT_STARTED``: the table waits for its seats.
2. A decision id already settled (played or defaulted): the same answer from the same seat is accepted
   as a duplicate, anything else is ``STALE_DECISION`` (after the end too).
3. ``GAME_OVER``: the table has ended.
4. ``NOT_YOUR_TURN``: no decision is pending for the seat (whatever the id).
5. ``STALE_DECISION``: the id is not the seat's pending decision (unknown, malformed, never issued).
6. The choice: none or an undecodable action is ``MALFORMED_ACTION``; an id not among the decision's
   is ``UNKNOWN_ACTION_ID``.
7. The rules' own check (``WRONG_PHASE``, ``CARD_NOT_IN_HAND``, ...).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.server.clients import PlaySeat, create, first_legal
from tricktable.protocol.generated.tricktable.v1 import game_pb2
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb

#: Seat 1 deals first, so seat 0 (eldest hand) acts first: stand or beg.
OPTIONS = {"target": 5, "first_dealer": 1}


def _decide(decision_id: str, how: str) -> pb.Decide:
    """A decide for ``decision_id``: ``none`` (no choice), ``bad-card``, ``unknown-id`` or ``play-<card>``."""
    if how == "none":
        return pb.Decide(decision_id=decision_id)
    if how == "bad-card":
        return pb.Decide(decision_id=decision_id, action=game_pb2.Action(play=game_pb2.Action.Play(card="XX")))
    if how == "unknown-id":
        return pb.Decide(decision_id=decision_id, action_id="no-such-action")
    card = how.removeprefix("play-")
    return pb.Decide(decision_id=decision_id, action=game_pb2.Action(play=game_pb2.Action.Play(card=card)))


async def _reason(stub: Any, token: str, decide: pb.Decide) -> str:
    response = await stub.SubmitAction(pb.SubmitActionRequest(token=token, decide=decide))
    if response.WhichOneof("outcome") == "accepted":
        return "DUPLICATE" if response.accepted.duplicate else "ACCEPTED"
    return str(pb.RejectionReason.Name(response.rejection.reason).removeprefix("REJECTION_REASON_"))


@pytest.mark.parametrize(("decision_id", "how"), [("1", "none"), ("abc", "bad-card"), ("999", "unknown-id")])
async def test_while_the_table_waits_every_decide_is_not_started(stub: Any, decision_id: str, how: str) -> None:
    created = await create(stub, "all_fives", seed="order-waiting", options=OPTIONS)
    assert await _reason(stub, created.seat_tokens[0].token, _decide(decision_id, how)) == "NOT_STARTED"


async def test_the_order_of_the_checks_while_the_game_runs(stub: Any) -> None:
    created = await create(stub, "all_fives", seed="order-running", options=OPTIONS)
    mine, theirs = created.seat_tokens[0].token, created.seat_tokens[1].token
    seats = [PlaySeat(stub, mine), PlaySeat(stub, theirs)]
    tasks = [asyncio.ensure_future(s.play(answer=False)) for s in seats]
    try:
        pending = await seats[0].next("decision")
        hand = list(pending.view.hand)
        pid = pending.decision_id
        # Seat 1 has nothing pending: NOT_YOUR_TURN, whatever the id and the choice.
        for decision_id, how in [(pid, "play-" + hand[0]), ("999", "none"), ("abc", "bad-card"), ("017", "unknown-id")]:
            assert await _reason(stub, theirs, _decide(decision_id, how)) == "NOT_YOUR_TURN"
        # Seat 0's id is checked before its choice: any other id is STALE_DECISION.
        for decision_id in ("999", "abc", "0" + pid, " " + pid, str(int(pid) + 1)):
            assert await _reason(stub, mine, _decide(decision_id, "none")) == "STALE_DECISION"
        # The pending id: the choice, then the rules (a card in hand is the wrong phase during stand or beg).
        assert await _reason(stub, mine, _decide(pid, "none")) == "MALFORMED_ACTION"
        assert await _reason(stub, mine, _decide(pid, "bad-card")) == "MALFORMED_ACTION"
        assert await _reason(stub, mine, _decide(pid, "unknown-id")) == "UNKNOWN_ACTION_ID"
        assert await _reason(stub, mine, _decide(pid, "play-" + hand[0])) == "WRONG_PHASE"
        # Played: the same answer is a duplicate, any other STALE_DECISION.
        answer = first_legal(pending)
        assert await _reason(stub, mine, answer) == "ACCEPTED"
        assert await _reason(stub, mine, answer) == "DUPLICATE"
        assert await _reason(stub, mine, _decide(pid, "bad-card")) == "STALE_DECISION"
        assert await _reason(stub, theirs, answer) == "STALE_DECISION"
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_after_the_end_a_settled_id_is_stale_or_a_duplicate_and_any_other_is_game_over(stub: Any) -> None:
    created = await create(stub, "all_fives", seed="order-ended", options=OPTIONS)
    seats = [PlaySeat(stub, t.token) for t in created.seat_tokens]
    await asyncio.wait_for(asyncio.gather(*(s.play() for s in seats)), 30)
    mine = created.seat_tokens[0].token
    first = seats[0].run.of("decision")[0]
    assert await _reason(stub, mine, first_legal(first)) == "DUPLICATE"
    assert await _reason(stub, mine, _decide(first.decision_id, "none")) == "STALE_DECISION"
    for decision_id, how in [("999", "none"), ("abc", "bad-card"), ("12345", "unknown-id")]:
        assert await _reason(stub, mine, _decide(decision_id, how)) == "GAME_OVER"
