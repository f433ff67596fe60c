"""Reading a streaming call's replies as typed messages.

grpc.aio's ``call.read()`` gives a reply or the end-of-stream marker
``grpc.aio.EOF`` (missing from grpc-stubs), typed as anything. The SDK's
seat loop and the server's conformance harness and relay all read
``PlayResponse`` streams; :func:`next_reply` is the one place that tells
the end from a message and checks the message's type. :func:`forwarded`
relays a bidirectional call (a shard forwarding a seat's stream, the
conformance relay).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
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


async def forwarded(call: Any, requests: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """The replies of a bidirectional ``call`` while a task writes ``requests`` to it (then half-closes it).

    The call is cancelled when the replies end or the reader stops, and the
    writer with it. A write the call refuses (it ended) ends the writing
    only: the call's status reaches the reader. An error of ``requests``
    (an undecodable request) cancels the call and is raised to the reader.

    Raises:
        grpc.aio.AioRpcError: the call failed.
    """
    failed: list[Exception] = []

    async def pump() -> None:
        try:
            async for request in requests:
                await call.write(request)
            await call.done_writing()
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            pass
        except Exception as error:
            failed.append(error)
            call.cancel()

    writer = asyncio.ensure_future(pump())
    try:
        async for reply in call:
            yield reply
    except (grpc.aio.AioRpcError, asyncio.CancelledError):
        if failed:
            raise failed[0] from None
        raise
    finally:
        writer.cancel()
        call.cancel()
        with contextlib.suppress(BaseException):
            await writer


__all__ = ["EOF", "forwarded", "next_reply"]
