"""A batch's decision reaches the bot before the batch's bookkeeping (its events and Accepted) is recorded.

A coalesced batch is the seat's last Accepted, the events since, then its
next decision: the events and the Accepted only move the seat's resume
point, its answered decisions and the game's end, so the runner records
them after asking the bot, and records them even when the decision fails.
"""

from __future__ import annotations

import pytest

from tricktable.client_sdk.errors import ProtocolError
from tricktable.client_sdk.runner import SeatSession, _SeatLoop
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import events_pb2, table_service_pb2
from tricktable.rules.actions import Action
from tricktable.rules.game import SeatView
from tricktable.rules.registry import new_match
from tricktable.server.events import DecisionRequested
from tricktable.server.wire import decision_to_proto


class _SessionWatcher:
    """A bot that notes what its seat's session held when it was asked."""

    def __init__(self, session: SeatSession) -> None:
        self.session = session
        self.seen: list[tuple[int | None, set[str]]] = []

    def choose_action(self, view: SeatView) -> Action:
        self.seen.append((self.session.last_sequence, set(self.session.accepted)))
        return view.legal_actions[0]


async def _send(request: table_service_pb2.PlayRequest) -> None:
    return None


def _event(sequence: int) -> table_service_pb2.PlayResponse:
    return table_service_pb2.PlayResponse(event=events_pb2.Event(
        sequence=sequence, deal_voided=events_pb2.DealVoided(deal_number=1, reason="test")))


async def _joined_seat() -> tuple[_SeatLoop, _SessionWatcher, table_service_pb2.PlayResponse]:
    """A seat joined at sequence 4 of a Twenty-Five table, its bot and the table's first decision for it."""
    match = new_match("twenty_five", {}, seed="runner-batches")
    seat = match.to_act
    assert seat is not None
    session = SeatSession(token="t")
    bot = _SessionWatcher(session)
    loop = _SeatLoop(bot, session, _send, max_reasks=1)
    await loop.handle(table_service_pb2.PlayResponse(joined=table_service_pb2.Joined(
        table_id="t", seat=seat, sequence=4, view=convert.view_to_proto(match.view(seat)))))
    decision = decision_to_proto(DecisionRequested(decision_id=2, seat=seat, legal_actions=tuple(match.legal_actions()),
                                                   view=match.view(seat), deadline=0.0, bank_seconds=0.0))
    return loop, bot, table_service_pb2.PlayResponse(decision=decision)


async def test_the_events_and_accepted_coalesced_ahead_of_a_decision_are_recorded_after_the_bot_is_asked() -> None:
    loop, bot, decision = await _joined_seat()
    batch = table_service_pb2.PlayResponse(batch=table_service_pb2.PlayBatch(messages=[
        table_service_pb2.PlayResponse(accepted=table_service_pb2.Accepted(decision_id="1")),
        _event(5), _event(6), decision]))
    assert await loop.handle(batch) is False
    assert bot.seen == [(4, set())]  # asked first: the session as it was before the batch
    assert loop.session.last_sequence == 6
    assert loop.session.accepted == {"1"}


async def test_a_decision_that_does_not_decode_still_leaves_its_batch_recorded() -> None:
    loop, bot, decision = await _joined_seat()
    del decision.decision.legal_actions[:]
    del decision.decision.view.legal_actions[:]
    batch = table_service_pb2.PlayResponse(batch=table_service_pb2.PlayBatch(messages=[_event(5), decision]))
    with pytest.raises(ProtocolError, match="no legal action"):
        await loop.handle(batch)
    assert bot.seen == []
    assert loop.session.last_sequence == 5
