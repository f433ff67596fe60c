"""docs/protocol.md keeps up with the protos: every RPC, event kind, stream message and rejection reason is in it."""

from __future__ import annotations

import pytest

from tests.conformance.helpers import ROOT
from tricktable.protocol.generated.tricktable.v1 import events_pb2, game_pb2
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb

GUIDE = (ROOT / "docs" / "protocol.md").read_text()
SERVICE = pb.DESCRIPTOR.services_by_name["TableService"]


@pytest.mark.parametrize("method", [m.name for m in SERVICE.methods])
def test_every_rpc_is_explained(method):
    assert f"`{method}" in GUIDE


@pytest.mark.parametrize("kind", [f.name for f in events_pb2.Event.DESCRIPTOR.oneofs_by_name["kind"].fields])
def test_every_event_kind_is_listed(kind):
    assert f"`{kind}`" in GUIDE


@pytest.mark.parametrize("kind", [f.name for f in pb.PlayResponse.DESCRIPTOR.oneofs_by_name["kind"].fields])
def test_every_seat_stream_message_is_listed(kind):
    assert f"`{kind}`" in GUIDE


@pytest.mark.parametrize("reason", [v.name.removeprefix("REJECTION_REASON_")
                                    for v in pb.RejectionReason.DESCRIPTOR.values if v.number != 0])
def test_every_rejection_reason_has_advice(reason):
    assert f"`{reason}`" in GUIDE


def test_the_guide_shows_a_whole_game_exchange():
    # In the transcript format of `tricktable conformance --transcript` (C> client, S> server, text format).
    assert "C> join { token:" in GUIDE and "S> joined { table_id:" in GUIDE
    assert "game_ended { result { status: RESULT_STATUS_FINISHED" in GUIDE


@pytest.mark.parametrize("field", [f.name for m in (pb.Join, pb.DecisionRequest, game_pb2.DiscardChoice)
                                   for f in m.DESCRIPTOR.fields])
def test_every_field_of_the_join_and_of_a_decision_is_explained(field):
    assert f"`{field}" in GUIDE or f"{{{field}" in GUIDE or f", {field}" in GUIDE


@pytest.mark.parametrize("field", [f.name for m in (pb.SeatPlayRequest, pb.SeatClosed) for f in m.DESCRIPTOR.fields])
def test_every_field_of_a_play_many_conversation_is_explained(field):
    assert f"`{field}" in GUIDE or f"{{{field}" in GUIDE or f", {field}" in GUIDE
