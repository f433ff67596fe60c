"""Small hardening: messages that never echo the client's input without bound."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from tests.server.clients import create
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import game_pb2
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.server.errors import MAX_MESSAGE_CHARS


async def test_an_error_message_does_not_echo_its_input_without_bound(stub: Any) -> None:
    options = game_pb2.TableOptions()
    options.all_fives.target = 21
    for i in range(3000):
        options.extra_json[f"unknown_option_{i}"] = "1"
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.CreateTable(pb.CreateTableRequest(game=convert.game_to_proto("all_fives"), options=options))
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT  # not a metadata-size error
    assert len(refused.value.details() or "") <= MAX_MESSAGE_CHARS + 40


async def test_a_rejection_does_not_echo_a_huge_decision_id(stub: Any) -> None:
    created = await create(stub, "all_fives", options={"target": 21})
    answer = await stub.SubmitAction(pb.SubmitActionRequest(token=created.seat_tokens[0].token, decide=pb.Decide(
        decision_id="7" * 100_000, action_id="x" * 100_000)))
    assert answer.WhichOneof("outcome") == "rejection"
    assert len(answer.rejection.decision_id) <= 64 and len(answer.rejection.message) <= MAX_MESSAGE_CHARS + 40
