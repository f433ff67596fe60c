"""``tricktable.protocol.stream.next_reply``: a streaming call's replies, typed, and None at the end."""

from __future__ import annotations

import asyncio

import pytest

from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.stream import EOF, next_reply


class _Call:
    """A call whose ``read()`` gives the scripted replies in turn."""

    def __init__(self, *replies: object) -> None:
        self.replies = list(replies)

    async def read(self) -> object:
        return self.replies.pop(0)


def test_next_reply_gives_each_message_then_none_at_the_end_of_the_stream() -> None:
    accepted = pb.PlayResponse(accepted=pb.Accepted(decision_id="3"))
    call = _Call(accepted, EOF)
    assert asyncio.run(next_reply(call, pb.PlayResponse)) == accepted
    assert asyncio.run(next_reply(call, pb.PlayResponse)) is None


def test_a_reply_of_another_type_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="expected a PlayResponse from the stream, got WatchResponse"):
        asyncio.run(next_reply(_Call(pb.WatchResponse()), pb.PlayResponse))
