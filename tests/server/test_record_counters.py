"""The per-seat counters of a record, as docs/protocol.md section 14 defines them.

- ``timeouts``: decisions whose own time and bank ran out; the server played the default action.
- ``default_actions``: every action the server played for the seat: its timeouts, and each decision
  played at once while the seat was away (past its grace period), which is no timeout.
- ``rejected``: every decide refused in-band, whatever the reason (a late answer to a timed-out
  decision included); a duplicate of an accepted answer is no rejection.
- ``disconnects``: how often the seat's last open stream closed before the table ended.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tests.server.clients import PlaySeat, create, first_legal
from tests.server.test_service import record_of
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb

#: Seat 1 deals first, so seat 0 (eldest hand) has the first decision of the game.
OPTIONS = {"target": 5, "first_dealer": 1}


async def test_a_timeout_counts_in_timeouts_and_default_actions_and_a_late_answer_in_rejected(stub: Any) -> None:
    created = await create(stub, "all_fives", seed="counters-timeout", options=OPTIONS, decision_ms=1500, bank_ms=0)
    ignored: list[pb.DecisionRequest] = []

    def choose(decision: pb.DecisionRequest) -> pb.Decide | None:
        if not ignored:
            ignored.append(decision)  # left unanswered: it times out
            return None
        return first_legal(decision)

    late = PlaySeat(stub, created.seat_tokens[0].token, choose=choose)
    other = PlaySeat(stub, created.seat_tokens[1].token)
    playing = asyncio.ensure_future(asyncio.gather(late.play(), other.play()))
    notice = await late.next("event", timeout=20)
    while notice.WhichOneof("kind") != "action_timed_out":
        notice = await late.next("event", timeout=20)
    first = ignored[0]
    default, other_choice = first.legal_actions[0], first.legal_actions[-1]
    assert default.id != other_choice.id
    late.send(pb.PlayRequest(decide=pb.Decide(decision_id=first.decision_id, action_id=other_choice.id)))
    rejection = await late.next("rejection")
    assert rejection.reason == pb.REJECTION_REASON_STALE_DECISION and rejection.decision_id == first.decision_id
    late.send(pb.PlayRequest(decide=pb.Decide(decision_id=first.decision_id, action_id=default.id)))
    accepted = await late.next("accepted")
    while accepted.decision_id != first.decision_id:  # the seat's later answers, accepted meanwhile
        accepted = await late.next("accepted")
    assert accepted.duplicate  # the action played for it: a duplicate, no rejection
    await asyncio.wait_for(playing, 60)
    seat = (await record_of(stub, created.table_id))["seats"][0]
    assert (seat["timeouts"], seat["default_actions"], seat["rejected"], seat["disconnects"]) == (1, 1, 1, 0)


async def test_decisions_played_while_a_seat_is_away_are_default_actions_not_timeouts(stub: Any) -> None:
    # The test server's grace period is 2 s; the decision's own time (10 s) outlasts it.
    created = await create(stub, "all_fives", seed="counters-away", options=OPTIONS, decision_ms=10_000, bank_ms=0)
    leaving = PlaySeat(stub, created.seat_tokens[0].token)
    staying = PlaySeat(stub, created.seat_tokens[1].token)
    staying_task = asyncio.ensure_future(staying.play())
    await leaving.play(stop=lambda response: response.WhichOneof("kind") == "decision")  # joins, then leaves
    await asyncio.wait_for(staying_task, 60)
    seat = (await record_of(stub, created.table_id))["seats"][0]
    assert seat["timeouts"] == 0 and seat["disconnects"] == 1 and seat["rejected"] == 0
    assert seat["default_actions"] > 0
