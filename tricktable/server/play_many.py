"""PlayMany: many seats' Play conversations over one call (docs/protocol.md, section 5).

Why: in grpc.aio most of a move's server CPU is the transport's cost per
message, and a Play stream per seat pays it at least once each way per move.
A client running many seats puts what it has ready for all of them in one
message, and the server answers everything ready for them in one message.

How, for one call (:class:`ManyCall`):

- a reader task decodes the client's messages and routes each
  ``SeatPlayRequest`` to its conversation's request queue (bounded: a
  conversation that does not keep up stops the reading,
  :data:`MAX_WAITING_REQUESTS`); a new number opens a conversation;
- each conversation is the servicer's own ``Play`` run as a task, so every
  rule of a Play stream holds for it with no second copy (and a sharded
  server's ``Play`` forwards a seat of another shard); its responses go to
  one outbox shared by the call (bounded: a client that does not read stops
  the conversations, then the reading);
- the call's one writer waits until the outbox holds something and sends
  everything in it as one ``PlayManyResponse``;
- a conversation that ends puts its ``SeatClosed`` after its last response
  (code 0 after its table's end, else the status its Play call would have
  ended with), and its number may open a new conversation;
- a ``leave`` for an open conversation cancels it as when its Play stream
  drops (the seat disconnected, its Play's finally blocks run), then closes
  it with ``CANCELLED``; a ``leave`` for a number with nothing open (or
  already closing) changes nothing and is not answered, so that a leave
  racing the conversation's own close never adds a second close;
- the call ending (the client cancels, the connection drops) cancels every
  conversation: each seat is disconnected as when its Play stream drops.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
import structlog

from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.server.errors import (
    TooManyRejectionsError,
    TooManyStreamsError,
    UndecodableRequestError,
    ending_status,
    status_for,
)
from tricktable.server.interceptors import connection_of
from tricktable.server.limits import Limits
from tricktable.server.stream_guard import ClientStreams, Inbox, TokenBucket, decoded

log = structlog.get_logger("tricktable.play_many")

Context = grpc.aio.ServicerContext[Any, Any]
#: The servicer's Play: one seat's conversation, from its requests to its responses.
PlayHandler = Callable[[AsyncIterator[pb.PlayRequest], Context], AsyncGenerator[pb.PlayResponse, None]]

#: Seats' messages at most waiting in one call's outbox (so at most in one PlayManyResponse): a client that
#: does not read holds back its conversations, then its own messages, instead of growing the server.
MAX_OUTBOX = 256

#: Requests at most waiting for one conversation to read them. One, as on a Play stream (where gRPC holds
#: the next message until the stream reads it): a request keeps its whole PlayManyRequest (up to the
#: server's 256 KiB) in memory, so a deeper queue per conversation would let a client that stops reading
#: park that much per conversation. A conversation's Play reads on at once unless its replies back up,
#: which happens only when the client does not read: then the whole call stops being read.
MAX_WAITING_REQUESTS = 1

#: What the outbox holds: a conversation's number and its next message.
Outgoing = tuple[int, pb.PlayResponse | pb.SeatClosed]


@dataclass(slots=True)
class _Conversation:
    """One seat's conversation on the call: its number, its requests not yet read, and (once joined) its seat."""

    number: int
    requests: asyncio.Queue[pb.PlayRequest | None] = field(
        default_factory=lambda: asyncio.Queue(MAX_WAITING_REQUESTS))
    task: asyncio.Future[None] | None = None
    #: Known from its ``joined``: what its log lines name.
    table_id: str = ""
    seat: int | None = None
    #: Its Play has ended and its own close is on its way: a leave no longer changes anything.
    closing: bool = False
    #: The client left it: :meth:`ManyCall._leave` closes it, not its task.
    left: bool = False

    async def read(self) -> AsyncIterator[pb.PlayRequest]:
        """Its requests, as its own Play stream would read them; None in the queue is the end of the client's."""
        while (request := await self.requests.get()) is not None:
            yield request

    def drop_requests(self) -> None:
        """Drop what it will never read (which lets a reader waiting for room in its queue go on)."""
        while not self.requests.empty():
            self.requests.get_nowait()


class ManyCall:
    """One PlayMany call: its conversations, its outbox, its reader; :meth:`responses` is the call's writer."""

    def __init__(self, play: PlayHandler, context: Context, client: str, limits: Limits,
                 streams: ClientStreams) -> None:
        self._play = play
        self._context = context
        self._client = client
        self._limits = limits
        self._streams = streams
        self._open: dict[int, _Conversation] = {}
        self._outbox = Inbox(MAX_OUTBOX)
        self._ready = asyncio.Event()
        self._input_ended = False
        self._failure: Exception | None = None
        #: Openings refused by the call's conversation bound: a client that keeps trying is ended like a flood.
        self._refusals = TokenBucket(limits.max_rejections_burst, limits.max_rejections_per_second)
        self._opened = self._messages = self._seat_messages = 0

    async def responses(self, requests: AsyncIterator[pb.PlayManyRequest]) -> AsyncIterator[pb.PlayManyResponse]:
        """The call's messages: each time the outbox holds something, all of it as one message."""
        reader = asyncio.ensure_future(self._read(requests))
        try:
            while True:
                if self._failure is not None:
                    raise self._failure
                if self._outbox:
                    yield self._message()
                elif self._input_ended and not self._open:
                    return
                else:
                    self._ready.clear()
                    await self._ready.wait()
        finally:
            tasks = [reader, *(c.task for c in self._open.values() if c.task is not None)]
            for task in tasks:
                task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.gather(*tasks, return_exceptions=True)
            log.info("play many call ended", client=self._client, conversations=self._opened,
                     messages=self._messages, seat_messages=self._seat_messages)

    def _message(self) -> pb.PlayManyResponse:
        """Everything in the outbox as one message (each seat's messages in their order)."""
        message = pb.PlayManyResponse()
        entries = message.responses
        outbox = self._outbox
        while outbox:
            number, item = outbox.popleft()
            entry = entries.add(stream=number)
            if isinstance(item, pb.SeatClosed):
                entry.closed.CopyFrom(item)
            else:
                entry.response.CopyFrom(item)
        self._messages += 1
        self._seat_messages += len(entries)
        return message

    def _put(self, number: int, item: pb.PlayResponse | pb.SeatClosed) -> None:
        """Put a seat's message in the outbox (the caller waited for room) and wake the writer."""
        self._outbox.append((number, item))
        self._ready.set()

    # --- reading ---------------------------------------------------------

    async def _read(self, requests: AsyncIterator[pb.PlayManyRequest]) -> None:
        """Route every seat's request to its conversation; at the end of the client's, end every conversation's."""
        messages = decoded(requests.__aiter__())
        try:
            async for message in messages:
                for seat_request in message.requests:
                    if seat_request.leave:
                        await self._leave(seat_request.stream)
                    else:
                        await self._route(seat_request.stream, seat_request.request)
        except Exception as error:
            if isinstance(error, UndecodableRequestError | TooManyRejectionsError):
                event = "undecodable request" if isinstance(error, UndecodableRequestError) else "call flooded"
                log.warning(event, client=self._client, error=error.message)
            self._failure = error  # the writer raises it: the call ends with its status (INTERNAL if unexpected)
            self._ready.set()
            # Read on (dropping everything) until the writer ends the call: a call ended while the client's
            # messages lie unread fails on the client as INTERNAL instead of carrying this status.
            with contextlib.suppress(Exception):
                async for _ in messages:
                    pass
            return
        self._input_ended = True
        for conversation in list(self._open.values()):
            await conversation.requests.put(None)
        self._ready.set()

    async def _route(self, number: int, request: pb.PlayRequest) -> None:
        conversation = self._open.get(number)
        if conversation is None:
            if len(self._open) >= self._limits.max_conversations_per_call:
                await self._refuse(number, TooManyStreamsError(
                    f"this call holds its limit of {self._limits.max_conversations_per_call} conversations"))
                return
            conversation = self._open[number] = _Conversation(number)
            conversation.task = asyncio.ensure_future(self._converse(conversation))
            self._opened += 1
        await conversation.requests.put(request)

    async def _leave(self, number: int) -> None:
        """End ``number``'s conversation as if its Play stream were cancelled; nothing when none is open.

        Why the reader closes it rather than the conversation's task: a task cancelled before its first step
        runs none of its code, so it could not be trusted to put its close or free its number.
        """
        conversation = self._open.get(number)
        if conversation is None or conversation.task is None or conversation.closing or conversation.left:
            return
        conversation.left = True
        conversation.task.cancel()  # as gRPC cancels a dropped Play stream's handler: the seat disconnects
        await asyncio.wait([conversation.task])
        log.info("conversation left", table=conversation.table_id, seat=conversation.seat, stream=number,
                 client=self._client)
        await self._close(conversation, pb.SeatClosed(code=grpc.StatusCode.CANCELLED.value[0],
                                                      message="the client left this conversation"))

    async def _refuse(self, number: int, error: TooManyStreamsError) -> None:
        """Close ``number`` at once with ``error``'s status; a client refused too often is a flood."""
        if not self._refusals.spend(asyncio.get_running_loop().time()):
            raise TooManyRejectionsError(
                f"this call opened conversations beyond its limit faster than its budget "
                f"({self._limits.max_rejections_burst} at once); the call is closed")
        code, text = ending_status(error)
        await self._outbox.room()
        self._put(number, pb.SeatClosed(code=code.value[0], message=text))

    # --- conversations -----------------------------------------------------

    async def _converse(self, conversation: _Conversation) -> None:
        """Run one seat's Play into the outbox, then close it with the status its Play call would have ended with."""
        number = conversation.number
        closed = pb.SeatClosed()  # code 0: its table ended
        try:
            with self._streams.held(self._client, connection_of(self._context)):
                async with contextlib.aclosing(self._play(conversation.read(), self._context)) as responses:
                    async for response in responses:
                        if conversation.seat is None and response.HasField("joined"):
                            conversation.table_id, conversation.seat = response.joined.table_id, response.joined.seat
                        await self._outbox.room()
                        self._put(number, response)
        except Exception as error:  # the conversation ends; the call and the other seats go on
            code, text = ending_status(error)
            if status_for(error) is None:
                log.exception("conversation failed", table=conversation.table_id, seat=conversation.seat,
                              stream=number, client=self._client)
            else:
                log.info("conversation closed", table=conversation.table_id, seat=conversation.seat, stream=number,
                         client=self._client, code=code.name, error=text)
            closed = pb.SeatClosed(code=code.value[0], message=text)
        if conversation.left:
            return  # its Play did not end with the cancellation it was given: _leave closes it all the same
        conversation.closing = True
        await self._close(conversation, closed)

    async def _close(self, conversation: _Conversation, closed: pb.SeatClosed) -> None:
        """Put ``closed`` after the conversation's last message, then free its number."""
        await self._outbox.room()
        self._put(conversation.number, closed)
        del self._open[conversation.number]  # after its SeatClosed: a new conversation's messages come after it
        conversation.drop_requests()
