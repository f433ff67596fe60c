"""What keeps one client stream from wedging its seat or the server (docs/protocol.md, section 19).

- :func:`decoded`: a request the server can not decode ends the stream with
  ``INVALID_ARGUMENT`` (:class:`UndecodableRequestError`), instead of killing
  the reader while the stream stays open and the seat looks connected.
- :class:`Inbox`: a stream's replies waiting to be written, bounded: a
  client that sends without reading stops being read (HTTP/2 flow control
  then holds it back) instead of growing the server.
- :class:`TokenBucket`: a stream's budget of refusals (a stream that spends
  it ends with ``RESOURCE_EXHAUSTED``), and a client's of unary calls.
- :class:`StreamFailure`: how the reader task hands such an end to the one
  writer of the stream.
- :class:`ClientStreams`: the open streams of each client address, bounded
  (a PlayMany conversation counts as one stream).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter, deque
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from google.protobuf.message import DecodeError

from tricktable.server.errors import ServerError, TooManyStreamsError, UndecodableRequestError

T = TypeVar("T")

#: Replies at most waiting in one stream's inbox before its reader pauses.
MAX_INBOX = 64


async def decoded(requests: AsyncIterator[T]) -> AsyncIterator[T]:
    """The stream's requests; one that can not be decoded raises :class:`UndecodableRequestError`.

    The protobuf message is not echoed: only its length is told.
    """
    try:
        async for request in requests:
            yield request
    except DecodeError:
        raise UndecodableRequestError("a request on this stream could not be decoded as the RPC's message; "
                                      "the stream is closed") from None


@dataclass(frozen=True, slots=True)
class StreamFailure:
    """Put in a stream's inbox by its reader: the writer raises ``error`` and the stream ends with its status."""

    error: ServerError


class Inbox(deque[Any]):
    """A stream's replies waiting for its writer, with a wait for room (at most :data:`MAX_INBOX`).

    The writer pops with ``popleft`` (as :meth:`tricktable.server.tables.Table.follow` does), which lets a paused
    reader go on.
    """

    def __init__(self, limit: int = MAX_INBOX) -> None:
        super().__init__()
        self.limit = limit
        self._room = asyncio.Event()

    def popleft(self) -> Any:
        item = super().popleft()
        self._room.set()
        return item

    async def room(self) -> None:
        """Return once the inbox holds fewer than ``limit`` replies."""
        while len(self) >= self.limit:
            self._room.clear()
            await self._room.wait()


class TokenBucket:
    """A token bucket: ``burst`` at once, refilled at ``per_second``; how refusals and calls are budgeted.

    Why a bucket and not a count: a client that errs now and then never runs
    out, while one that floods does within ``burst``. A stream's refusals
    spend one (a stream that spends them all ends); so does each unary call
    (:mod:`tricktable.server.call_rate`).
    """

    __slots__ = ("_last", "_tokens", "burst", "per_second")

    def __init__(self, burst: int, per_second: float) -> None:
        self.burst = burst
        self.per_second = per_second
        self._tokens = float(burst)
        self._last: float | None = None

    def _refill(self, now: float) -> None:
        if self._last is not None:
            self._tokens = min(float(self.burst), self._tokens + max(0.0, now - self._last) * self.per_second)
        self._last = now

    def spend(self, now: float) -> bool:
        """Take one token at ``now`` (a monotonic time); False once the bucket is empty."""
        self._refill(now)
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True

    def wait(self, now: float) -> float:
        """Seconds from ``now`` until a token is there (0: one is there now); nothing is taken."""
        self._refill(now)
        if self._tokens >= 1.0:
            return 0.0
        return (1.0 - self._tokens) / self.per_second if self.per_second > 0 else float("inf")

    def refund(self) -> None:
        """Give back a token taken for something that turned out not to count."""
        self._tokens = min(float(self.burst), self._tokens + 1.0)


class ClientStreams:
    """The open streams of each connection, at most ``per_connection``, and of each client address, at most ``limit``.

    One count for every kind of stream: a call (counted by the stream limit
    interceptor) and each PlayMany conversation on it, so many seats over one
    call hold what as many Play calls would. Why a connection's limit below
    the address's: every client of one machine (a local tournament's bots)
    shares its address, and one greedy connection must meet its own limit
    before it can lock the others out.
    """

    def __init__(self, limit: int, per_connection: int | None = None) -> None:
        self.limit = limit
        self.per_connection = limit if per_connection is None else min(per_connection, limit)
        self.open: Counter[str] = Counter()
        self.by_connection: Counter[str] = Counter()

    @contextlib.contextmanager
    def held(self, client: str, connection: str = "") -> Iterator[None]:
        """Hold one of ``client``'s streams, on ``connection`` ("": not told apart), for the block.

        Raises:
            TooManyStreamsError: the connection or the client holds its limit.
        """
        if connection and self.by_connection[connection] >= self.per_connection:
            raise TooManyStreamsError(f"this connection holds its limit of {self.per_connection} open streams")
        if self.open[client] >= self.limit:
            raise TooManyStreamsError(f"this client holds its limit of {self.limit} open streams")
        self.open[client] += 1
        if connection:
            self.by_connection[connection] += 1
        try:
            yield
        finally:
            self.open[client] -= 1
            if not self.open[client]:
                del self.open[client]
            if connection:
                self.by_connection[connection] -= 1
                if not self.by_connection[connection]:
                    del self.by_connection[connection]
