"""Many seats over one ``PlayMany`` call per server address: a bot farm's, a benchmark's or a tournament's client.

Why: on ``Play`` every seat has its own stream, and every move costs a gRPC
message each way per seat; grpc.aio's cost per message is most of a move's
CPU on both ends (README, Benchmarks). ``PlayMany`` (docs/protocol.md,
section 5) carries every seat's conversation over one call, so what is ready
for several seats at once travels as one message. This module keeps the
runner's behaviour seat by seat and changes only the envelope:

- each seat is played by the runner's own seat loop (:func:`runner.play_stream`:
  the same join with batches and coalesced events, the same answers, re-asks
  and fallbacks) over a *conversation*, a number on the shared call that
  behaves like a ``Play`` stream;
- every request the seats have ready in one event-loop turn goes out as ONE
  ``PlayManyRequest`` (a writer task wakes after the seats' turn and sends
  what they queued);
- a ``closed`` with a status ends the seat's conversation exactly as the
  ``Play`` call would have ended (the same :class:`grpc.aio.AioRpcError` is
  raised to the seat loop), so the errors and the reconnect policy are the
  runner's (:func:`runner.play_with_reconnects`): a bad token raises
  :class:`~tricktable.client_sdk.errors.JoinRejected`, a retryable status rejoins with backoff;
- a seat that stops before its game's end and its conversation's close (its
  task cancelled, its loop failed) sends ``leave`` for it, so the server disconnects the seat as
  when a ``Play`` stream is cancelled, while the call and the others go on;
- the call dropping ends every conversation on it with the call's status:
  each seat rejoins from its last event, on a new call that the first seat
  back opens;
- with ``serve --shards N`` each seat plays at its table's ``play_address``:
  one call per address.

The server holds at most 1000 conversations on one call (docs/protocol.md):
a seat beyond that is refused with ``RESOURCE_EXHAUSTED`` and, as on ``Play``,
retried with backoff (:class:`~tricktable.client_sdk.errors.LimitExceeded` when it
never gets in), so keep a multiplexer's seats per address below it.

Use :func:`play_seats_async` for a fixed set of seats, or a :class:`SeatMultiplexer`
(``async with``) and its :meth:`~SeatMultiplexer.play` to add seats as they come
(one per seek, say).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import grpc

from tricktable.client_sdk.bot import Bot
from tricktable.client_sdk.errors import ConnectionLost, SdkError
from tricktable.client_sdk.runner import (
    Backoff,
    PlayedSeat,
    SeatSession,
    connect,
    open_channel,
    play_stream,
    play_with_reconnects,
)
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.protocol.stream import EOF, next_reply
from tricktable.rules.game import Result

log = logging.getLogger("tricktable.sdk")

#: gRPC status codes by number (``SeatClosed.code``).
_STATUS_BY_NUMBER: dict[int, grpc.StatusCode] = {code.value[0]: code for code in grpc.StatusCode}

#: Calls in a row that fail before their first response, after which the channel is replaced (as on Play).
_FAILED_CALLS_BEFORE_NEW_CHANNEL = 3


def status_error(code: int, message: str) -> grpc.aio.AioRpcError:
    """The error a ``Play`` call ending with status ``code`` raises: what a ``SeatClosed`` ends a seat with.

    Why the same class: the runner's reconnect policy and its one table from statuses to SDK errors
    (:func:`~tricktable.client_sdk.errors.error_from_rpc`) then treat both transports alike.
    """
    status = _STATUS_BY_NUMBER.get(code, grpc.StatusCode.UNKNOWN)
    return grpc.aio.AioRpcError(status, grpc.aio.Metadata(), grpc.aio.Metadata(), message, None)


@dataclass(slots=True)
class Traffic:
    """gRPC messages on a multiplexer's calls so far (what batching saves is visible here)."""

    #: ``PlayManyRequest`` messages written, and the seat requests inside them.
    requests_sent: int = 0
    seat_requests_sent: int = 0
    #: ``PlayManyResponse`` messages read, and the seat messages inside them.
    responses_received: int = 0
    seat_responses_received: int = 0
    #: PlayMany calls opened.
    calls: int = 0


class _Conversation:
    """One seat's conversation on a call: a Play stream's ``write``/``read``/``cancel`` (:class:`runner.PlayCall`)."""

    def __init__(self, call: _ManyCall, number: int) -> None:
        self.call = call
        self.number = number
        #: Responses, then the end: ``EOF`` (closed OK, or the call ended) or the error the read raises.
        self.inbox: asyncio.Queue[Any] = asyncio.Queue()
        self.ended = False
        #: Closed on the server (its ``closed`` arrived, or the call ended) or left: nothing more to send for it.
        self.closed = False

    async def write(self, request: pb.PlayRequest) -> None:
        """Queue ``request`` for the call's next message (raises ``asyncio.InvalidStateError`` once ended)."""
        if self.ended:
            raise asyncio.InvalidStateError(f"conversation {self.number} has ended")
        self.call.submit(pb.SeatPlayRequest(stream=self.number, request=request))

    async def read(self) -> Any:
        """The next ``PlayResponse``; ``EOF`` once the conversation ended well; raises the status of a failed end."""
        item = await self.inbox.get()
        if isinstance(item, pb.PlayResponse):
            return item
        self.inbox.put_nowait(item)  # the end stays the answer to every later read
        if isinstance(item, BaseException):
            raise item
        return EOF

    def cancel(self) -> bool:
        """Stop reading this conversation (the server's later messages for its number are dropped)."""
        if self.ended:
            return False
        self.end(EOF)
        return True

    def leave(self) -> None:
        """Ask the server to end this conversation as if its Play stream were cancelled, unless it has ended it.

        Why: a seat that stops before its game's end (its task cancelled, its loop failed) would otherwise stay
        joined on the server until the call ended; on Play, its cancelled stream disconnects it. A seat whose
        game ended sends none: the server closes its conversation itself.
        """
        if not self.closed:
            self.closed = True
            self.call.submit(pb.SeatPlayRequest(stream=self.number, leave=True))

    def close(self, why: object) -> None:
        """The server closed it, or the call ended: end it with ``why``, and no leave is owed."""
        self.closed = True
        self.end(why)

    def end(self, why: object) -> None:
        """End the conversation: ``EOF`` or the error its reads raise."""
        if not self.ended:
            self.ended = True
            self.call.conversations.pop(self.number, None)
            self.inbox.put_nowait(why)


class _ManyCall:
    """One ``PlayMany`` call: a reader task routing each seat's messages, a writer task batching requests."""

    def __init__(self, stub: table_service_pb2_grpc.TableServiceAsyncStub, traffic: Traffic) -> None:
        self.call = stub.PlayMany()  # type: ignore[call-arg]  # grpc-stubs: the iterator is optional (we write)
        self.traffic = traffic
        traffic.calls += 1
        self.conversations: dict[int, _Conversation] = {}
        self.numbers = itertools.count(1)
        self.pending: list[pb.SeatPlayRequest] = []
        self.wake = asyncio.Event()
        self.answered = False  # a response arrived: the connection worked
        self.done = False
        self.reader = asyncio.ensure_future(self._read())
        self.writer = asyncio.ensure_future(self._write())

    def open(self) -> _Conversation:
        """A new conversation on this call (its first request must be the join)."""
        conversation = _Conversation(self, next(self.numbers))
        self.conversations[conversation.number] = conversation
        return conversation

    def submit(self, request: pb.SeatPlayRequest) -> None:
        """Queue one seat's request; the writer sends everything queued in this loop turn as one message."""
        self.pending.append(request)
        self.wake.set()

    async def _write(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            batch, self.pending = self.pending, []
            if not batch:
                continue
            try:
                await self.call.write(pb.PlayManyRequest(requests=batch))
            except (asyncio.InvalidStateError, grpc.aio.AioRpcError):
                return  # the call has ended: the reader reports why to every conversation
            self.traffic.requests_sent += 1
            self.traffic.seat_requests_sent += len(batch)

    async def _read(self) -> None:
        why: object = EOF
        try:
            while (message := await next_reply(self.call, pb.PlayManyResponse)) is not None:
                self.answered = True
                self.traffic.responses_received += 1
                self.traffic.seat_responses_received += len(message.responses)
                for item in message.responses:
                    conversation = self.conversations.get(item.stream)
                    if conversation is None:
                        continue  # a conversation this client stopped reading
                    if item.WhichOneof("kind") == "closed":
                        closed = item.closed
                        conversation.close(EOF if closed.code == 0 else status_error(closed.code, closed.message))
                    else:
                        conversation.inbox.put_nowait(item.response)
        except grpc.aio.AioRpcError as exc:
            why = exc
        finally:
            self.done = True
            self.writer.cancel()
            for conversation in list(self.conversations.values()):
                conversation.close(why)

    async def close(self) -> None:
        """Cancel the call; every open conversation ends as if the connection had dropped."""
        self.call.cancel()
        for task in (self.reader, self.writer):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


class _Endpoint:
    """A server address: its channel (connected once) and its current call, opened again after one ends."""

    def __init__(self, address: str, root_certificates: bytes | None, traffic: Traffic) -> None:
        self.address = address
        self.root_certificates = root_certificates
        self.traffic = traffic
        self.channel = open_channel(address, root_certificates=root_certificates)
        self.connected: asyncio.Future[None] | None = None
        self.call: _ManyCall | None = None
        self.failed_calls = 0

    async def conversation(self, wait_for_server: float) -> _Conversation:
        """A new conversation on the live call (opened now if there is none).

        Raises:
            ServerUnreachable: the first connection to the address failed (shared by every seat waiting on it).
        """
        if self.connected is None:
            self.connected = asyncio.ensure_future(connect(self.channel, self.address,
                                                           wait_for_server=wait_for_server))
        await asyncio.shield(self.connected)
        old_channel = None
        if self.call is None or self.call.done:
            # Decided without awaiting, so that seats coming back together share the one new call.
            if self.call is not None:
                self.failed_calls = 0 if self.call.answered else self.failed_calls + 1
                if self.failed_calls and self.failed_calls % _FAILED_CALLS_BEFORE_NEW_CHANNEL == 0:
                    # Calls keep failing before any answer: a channel stuck in a bad state (as on Play).
                    old_channel = self.channel
                    self.channel = open_channel(self.address, root_certificates=self.root_certificates)
            self.call = _ManyCall(table_service_pb2_grpc.TableServiceStub(self.channel), self.traffic)
        conversation = self.call.open()
        if old_channel is not None:
            await old_channel.close(None)
        return conversation

    async def close(self) -> None:
        if self.call is not None:
            await self.call.close()
        if self.connected is not None and not self.connected.done():
            self.connected.cancel()
        await self.channel.close(None)


class SeatMultiplexer:
    """Plays many seats over one ``PlayMany`` call per server address (see the module docstring).

    Use as ``async with SeatMultiplexer() as mux:`` and await :meth:`play` for each seat, concurrently.
    Leaving the block closes the calls and channels.
    """

    def __init__(self, *, backoff: Backoff | None = None, root_certificates: bytes | None = None,
                 wait_for_server: float = 0.0, max_reasks: int = 1) -> None:
        self.backoff = backoff
        self.root_certificates = root_certificates
        self.wait_for_server = wait_for_server
        self.max_reasks = max_reasks
        #: Messages on every call of this multiplexer so far.
        self.traffic = Traffic()
        self._endpoints: dict[str, _Endpoint] = {}
        self._closed = False

    async def __aenter__(self) -> SeatMultiplexer:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        await self.close()

    async def play(self, bot: Bot, address: str, *, token: str, name: str = "", seed: int | None = None) -> PlayedSeat:
        """Play the seat of ``token`` with ``bot`` on this multiplexer's call to ``address`` until the game ends.

        What :func:`~tricktable.client_sdk.runner.play_seat_async` does on a ``Play`` stream, with the same
        results, errors and reconnects; ``address`` is the table's ``play_address`` on a sharded server
        (:func:`~tricktable.client_sdk.runner.play_target`). ``seed`` seeds the backoff jitter (tests).

        Raises:
            the errors of :func:`~tricktable.client_sdk.runner.play_seat_async`, and :class:`ConnectionLost`
            when the multiplexer is closed while the seat plays.
        """
        session = SeatSession(token=token, name=name)

        async def attempt() -> Result | None:
            if self._closed:
                raise ConnectionLost("the multiplexer was closed before the game ended")
            conversation = await self._endpoint(address).conversation(self.wait_for_server)
            try:
                return await play_stream(conversation, bot, session, max_reasks=self.max_reasks)
            except BaseException:  # stopped before its game's end: disconnected as a cancelled Play stream is
                conversation.leave()
                raise

        async def refresh() -> None:
            """Nothing per seat: the endpoint replaces a channel whose calls keep failing."""

        return await play_with_reconnects(bot, session, attempt, refresh, backoff=self.backoff, seed=seed)

    def _endpoint(self, address: str) -> _Endpoint:
        endpoint = self._endpoints.get(address)
        if endpoint is None:
            endpoint = self._endpoints[address] = _Endpoint(address, self.root_certificates, self.traffic)
        return endpoint

    async def close(self) -> None:
        """Close every call and channel; seats still playing end with :class:`ConnectionLost`."""
        self._closed = True
        for endpoint in self._endpoints.values():
            await endpoint.close()
        self._endpoints.clear()


@dataclass(frozen=True, slots=True, kw_only=True)
class Seat:
    """One seat for :func:`play_seats_async`: the bot, the seat's join token, where to play it, its display name."""

    bot: Bot
    token: str
    #: The server address, or the table's ``play_address`` on a sharded server.
    address: str
    name: str = ""


async def play_seats_async(
    seats: Sequence[Seat],
    *,
    backoff: Backoff | None = None,
    root_certificates: bytes | None = None,
    wait_for_server: float = 0.0,
    max_reasks: int = 1,
) -> list[PlayedSeat | SdkError]:
    """Play every seat of ``seats`` to its game's end over one ``PlayMany`` call per address.

    Each seat plays as :func:`~tricktable.client_sdk.runner.play_seat_async` would on its own stream; one
    seat's error does not stop the others.

    Returns:
        For each seat, in order: its :class:`PlayedSeat`, or the :class:`SdkError` it ended with.
    """
    async with SeatMultiplexer(backoff=backoff, root_certificates=root_certificates,
                               wait_for_server=wait_for_server, max_reasks=max_reasks) as mux:
        outcomes = await asyncio.gather(*(mux.play(seat.bot, seat.address, token=seat.token, name=seat.name)
                                          for seat in seats), return_exceptions=True)
    results: list[PlayedSeat | SdkError] = []
    for outcome in outcomes:
        if isinstance(outcome, PlayedSeat | SdkError):
            results.append(outcome)
        else:
            raise outcome  # not an SDK error: a bug, or a cancellation
    return results
