"""Wire encoding shortcuts give the same messages as the plain conversion.

The server converts a table's options once per stream and a decision's legal
actions once for both the request and its view; these tests play whole
matches of every game (new deals, redeals, Cinq Cents discards included) and
compare every decision with the plain conversion.
"""

from __future__ import annotations

import pytest

from protocol import convert
from protocol.generated.tricktable.v1 import table_service_pb2 as pb
from rules.actions import describe
from rules.registry import new_match
from server.events import DecisionRequested
from server.tables import TableStatus
from server.wire import decision_to_proto, status_to_proto


def _plain(decision: DecisionRequested, enumerate_discards: bool) -> pb.DecisionRequest:
    choice = None if enumerate_discards else convert.discard_choice_to_proto(decision.legal_actions)
    return pb.DecisionRequest(
        decision_id=str(decision.decision_id),
        legal_actions=[] if choice else [
            pb.LegalAction(id=convert.action_id(a), name=describe(a), action=convert.action_to_proto(a))
            for a in decision.legal_actions],
        discard_choice=choice,
        deadline_unix_ms=round(decision.deadline * 1000), time_bank_ms=round(decision.bank_seconds * 1000),
        view=convert.view_to_proto(decision.view, enumerate_discards=enumerate_discards))


@pytest.mark.parametrize("enumerate_discards", [False, True])
@pytest.mark.parametrize(("game", "options"), [
    ("twenty_five", {}), ("forty_five", {}), ("all_fives", {"target": 31}), ("cinq_cents", {"target": 100}),
])
def test_decisions_with_options_converted_once_equal_the_plain_conversion(game: str, options: dict[str, int],
                                                                         enumerate_discards: bool) -> None:
    match = new_match(game, options, seed=f"wire-{game}")
    converted = convert.options_to_proto(game, match.view(0).options)
    number = discards = 0
    while not match.is_over and number < 400:
        seat = match.to_act
        assert seat is not None
        legal = tuple(match.legal_actions())
        number += 1
        decision = DecisionRequested(decision_id=number, seat=seat, legal_actions=legal, view=match.view(seat),
                                     deadline=1.5, bank_seconds=2.0)
        assert decision_to_proto(decision, converted, enumerate_discards=enumerate_discards) == \
            _plain(decision, enumerate_discards)
        assert decision_to_proto(decision) == _plain(decision, enumerate_discards=False)
        discards += _discards(decision)
        match = match.apply(legal[number % len(legal)], seat)
    assert number > 20
    if game == "cinq_cents":
        assert discards > 0


def _discards(decision: DecisionRequested) -> int:
    return sum(1 for a in decision.legal_actions if a.type == "discard")



def test_every_table_status_has_the_wire_value_of_its_name() -> None:
    for status in TableStatus:
        assert pb.TableStatus.Name(status_to_proto(status.value)) == f"TABLE_STATUS_{status.name}"
