"""Reading a streaming call's replies as typed messages.

grpc.aio's ``call.read()`` gives a reply or the end-of-stream marker
``grpc.aio.EOF`` (missing from grpc-stubs), typed as anything. The SDK's
seat loop and the server's conformance harness and relay all read
``PlayResponse`` streams; :func:`next_reply` is the one place that tells
the end from a message and checks the message's type.
"""

from __future__ import annotations

from typing import Any, TypeVar

import grpc.aio
from google.protobuf.message import Message

#: The end of a streaming call's replies in grpc.aio.
EOF: object = grpc.aio.EOF  # type: ignore[attr-defined]

M = TypeVar("M", bound=Message)


async def next_reply(call: Any, kind: type[M]) -> M | None:
    """The next reply of a streaming ``call``, or None once the stream has ended.

    Raises:
        TypeError: for a reply that is not a ``kind`` (a call of another RPC).
        grpc.aio.AioRpcError: the call failed (as ``call.read()`` raises it).
    """
    message = await call.read()
    if message is EOF:
        return None
    if not isinstance(message, kind):
        raise TypeError(f"expected a {kind.__name__} from the stream, got {type(message).__name__}")
    return message


__all__ = ["EOF", "next_reply"]
