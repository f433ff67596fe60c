"""A Cinq Cents discard on the wire: "choose 6 of these 16 cards", not 8008 enumerated actions.

docs/protocol.md section 7: by default the discard decision carries a
``DiscardChoice`` (in the request and in its view) and no legal actions; a
seat that joins with ``enumerate_discards`` gets the 8008 actions instead.
The engine checks the same rule either way.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tests.server.clients import PlaySeat, create, discard, discard_action, first_legal
from tests.server.test_service import record_of
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.rules.verify import verify_record

#: Every seat plays its first legal action: each bids the lowest bid over the last, so the dealer (seat 0
#: in the first deal) wins the auction and discards.
OPTIONS = {"target": 100, "first_dealer": 0}
WIRE_LIMIT = 2048


def _discard_decisions(seat: PlaySeat) -> list[pb.PlayResponse]:
    return [r for r in seat.run.responses if r.WhichOneof("kind") == "decision"
            and (r.decision.HasField("discard_choice") or len(r.decision.legal_actions) > 100)]


async def _play(stub: Any, seats: list[PlaySeat]) -> None:
    await asyncio.wait_for(asyncio.gather(*(s.play() for s in seats)), 60)


async def test_a_discard_decision_is_a_compact_choice_under_2_kib_by_default(stub: Any) -> None:
    created = await create(stub, "cinq_cents", seed="compact", options=OPTIONS)
    seats = [PlaySeat(stub, t.token) for t in created.seat_tokens]
    await _play(stub, seats)
    decisions = [r for s in seats for r in _discard_decisions(s)]
    assert decisions, "no seat had to discard"
    for response in decisions:
        decision = response.decision
        choice = decision.discard_choice
        assert response.ByteSize() < WIRE_LIMIT
        assert not decision.legal_actions and not decision.view.legal_actions
        assert decision.view.discard_choice == choice
        assert list(choice.cards) == list(decision.view.hand) and len(choice.cards) == 16 and choice.count == 6
    record = await record_of(stub, created.table_id)
    assert verify_record(record) is None
    played = [a for d in record["deals"] for a in d["actions"] if a["type"] == "discard"]
    firsts = [list(r.decision.discard_choice.cards[:6]) for r in decisions]
    assert [a["cards"] for a in played] == firsts  # first_legal's answer: the first `count` cards


async def test_a_seat_that_joins_with_enumerate_discards_gets_the_8008_legal_actions(stub: Any) -> None:
    created = await create(stub, "cinq_cents", seed="enumerated", options=OPTIONS)
    seats = [PlaySeat(stub, t.token, enumerate_discards=t.seat == 0) for t in created.seat_tokens]
    await _play(stub, seats)
    mine = _discard_decisions(seats[0])
    assert mine, "seat 0 deals first and wins the first auction, so it discards"
    for response in mine:
        decision = response.decision
        assert not decision.HasField("discard_choice") and not decision.view.HasField("discard_choice")
        assert len(decision.legal_actions) == len(decision.view.legal_actions) == 8008
        assert response.ByteSize() > 500_000
    assert all(r.decision.HasField("discard_choice") for s in seats[1:] for r in _discard_decisions(s))


async def test_a_discard_outside_the_choice_is_refused_with_bad_discard_and_stays_pending(stub: Any) -> None:
    created = await create(stub, "cinq_cents", seed="bad-discard", options=OPTIONS)
    wrong: list[pb.Decide] = []

    def choose(decision: pb.DecisionRequest) -> pb.Decide:
        if decision.HasField("discard_choice") and not wrong:
            wrong.append(discard(decision, list(decision.discard_choice.cards[:5])))  # five cards, not six
            return wrong[0]
        return first_legal(decision)

    seats = [PlaySeat(stub, t.token, choose=choose if t.seat == 0 else first_legal) for t in created.seat_tokens]
    playing = asyncio.ensure_future(_play(stub, seats))
    rejection = await seats[0].next("rejection")
    assert rejection.reason == pb.REJECTION_REASON_BAD_DISCARD
    assert rejection.decision_id == wrong[0].decision_id
    choice = _discard_decisions(seats[0])[0].decision
    seats[0].send(pb.PlayRequest(decide=first_legal(choice)))
    accepted = await seats[0].next("accepted")
    while accepted.decision_id != choice.decision_id:  # the seat's earlier answers (its bid)
        accepted = await seats[0].next("accepted")
    assert not accepted.duplicate
    await playing


async def test_a_seat_that_joins_with_legal_actions_once_gets_them_in_the_request_only(stub: Any) -> None:
    """``Join.legal_actions_once``: the request carries the legal actions (or the discard choice), every view
    sent on the stream leaves its deprecated copies empty; a seat that does not ask gets both, as before."""
    created = await create(stub, "cinq_cents", seed="once", options=OPTIONS)
    seats = [PlaySeat(stub, t.token, legal_actions_once=t.seat in (0, 1)) for t in created.seat_tokens]
    await _play(stub, seats)
    assert _discard_decisions(seats[0]), "seat 0 deals first and wins the first auction, so it discards"
    for seat in seats:
        once = seat.legal_actions_once
        joined = next(r.joined for r in seat.run.responses if r.WhichOneof("kind") == "joined")
        assert not joined.view.legal_actions and not joined.view.HasField("discard_choice")
        decisions = [r.decision for r in seat.run.responses if r.WhichOneof("kind") == "decision"]
        assert decisions
        for decision in decisions:
            assert bool(decision.legal_actions) != decision.HasField("discard_choice")
            if once:
                assert not decision.view.legal_actions and not decision.view.HasField("discard_choice")
            else:
                assert [a.action for a in decision.legal_actions] == list(decision.view.legal_actions)
                assert decision.view.discard_choice == decision.discard_choice
    record = await record_of(stub, created.table_id)
    assert verify_record(record) is None


async def test_the_deprecated_action_form_of_a_discard_is_still_played_as_its_notation_is(stub: Any) -> None:
    """A v1 client that answers ``Decide.action = Action{discard{cards}}`` plays on, as it always did."""
    created = await create(stub, "cinq_cents", seed="compact", options=OPTIONS)

    def old_style(decision: pb.DecisionRequest) -> pb.Decide:
        if decision.HasField("discard_choice"):
            return discard_action(decision, list(decision.discard_choice.cards[:decision.discard_choice.count]))
        return first_legal(decision)

    seats = [PlaySeat(stub, t.token, choose=old_style) for t in created.seat_tokens]
    await _play(stub, seats)
    decisions = [r for s in seats for r in _discard_decisions(s)]
    assert decisions, "no seat had to discard"
    record = await record_of(stub, created.table_id)
    assert verify_record(record) is None
    played = [a["cards"] for d in record["deals"] for a in d["actions"] if a["type"] == "discard"]
    assert played == [list(r.decision.discard_choice.cards[:6]) for r in decisions]


async def test_a_discard_id_with_its_cards_out_of_the_choices_order_is_no_notation_and_stays_pending(
        stub: Any) -> None:
    created = await create(stub, "cinq_cents", seed="bad-discard", options=OPTIONS)
    sent: list[pb.Decide] = []

    def choose(decision: pb.DecisionRequest) -> pb.Decide:
        if decision.HasField("discard_choice") and not sent:
            sent.append(discard(decision, list(reversed(decision.discard_choice.cards[:6]))))
            return sent[0]
        return first_legal(decision)

    seats = [PlaySeat(stub, t.token, choose=choose if t.seat == 0 else first_legal) for t in created.seat_tokens]
    playing = asyncio.ensure_future(_play(stub, seats))
    rejection = await seats[0].next("rejection")
    assert rejection.reason == pb.REJECTION_REASON_UNKNOWN_ACTION_ID
    assert rejection.decision_id == sent[0].decision_id and "discard-" in rejection.message
    choice = _discard_decisions(seats[0])[0].decision
    seats[0].send(pb.PlayRequest(decide=first_legal(choice)))  # the same cards, in the choice's order
    accepted = await seats[0].next("accepted")
    while accepted.decision_id != choice.decision_id:
        accepted = await seats[0].next("accepted")
    assert not accepted.duplicate
    await playing
