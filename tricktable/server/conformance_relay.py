"""The conformance relay: a transparent ``TableService`` proxy that can inject faults and watches a client.

``tricktable conformance`` puts this relay between the client under test and
a real server (in-process or remote). Every RPC is forwarded unchanged,
except where the current :class:`Script` says otherwise:

- ``reject_first``: the client's first decide is forwarded with its choice
  replaced by an action id no decision has, so the *server* refuses it
  (``UNKNOWN_ACTION_ID``) and the same decision stays pending;
- ``drop_before_decision``: just before the N-th decision request would reach
  the client, the relay cancels its upstream stream (the server sees a
  disconnect) and ends the client's stream with ``UNAVAILABLE``; the client
  never sees that request and must rejoin to get it;
- ``late_answer``: the client's answer to its first decision is held until
  the server's clock has run out on it (the default action's
  ``action_timed_out`` reached the client), then forwarded, too late.

Several tables can be watched at once: each seat's token (or a spectated
table's id) may have a :class:`Script` of its own (:attr:`Relay.scripts`);
``PlayMany`` conversations are watched per seat like ``Play`` streams, and
``Spectate`` streams for hidden cards (:func:`hidden_parts`).

The relay needs no hook in the server and works in front of any server that
speaks ``tricktable.v1``. It records what it saw (joins, sequences, decisions,
answers, latencies) for the situation's checks, and can keep a transcript.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import grpc
from google.protobuf import text_format
from google.protobuf.message import Message

from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc as pb_grpc
from tricktable.protocol.stream import forwarded, next_reply

Context = grpc.aio.ServicerContext[Any, Any]


#: The action id the relay substitutes to make the server refuse the client's first answer.
INVALID_ACTION_ID = "conformance-not-a-legal-action"
#: Details of the status the relay ends a dropped stream with.
DROP_DETAILS = "conformance: the harness dropped this stream; reconnect and resume"


class Fault(StrEnum):
    """What the relay does to the client's traffic in a situation."""

    NONE = "none"
    REJECT_FIRST = "reject_first"
    DROP_BEFORE_DECISION = "drop_before_decision"
    LATE_ANSWER = "late_answer"


@dataclass(slots=True)
class StreamLog:
    """One seat stream (Play or Watch) the client opened through the relay."""

    kind: str
    opened: float
    token: str = ""
    last_seen_sequence: int | None = None
    joined: bool = False
    last_sequence: int | None = None
    dropped: bool = False
    #: The client asked for coalesced events (``Join.coalesce_events``) on this stream.
    coalesce: bool = False
    #: The seat joined (from ``Joined``), or None.
    seat: int | None = None
    #: The ``PlayMany`` call that carried this conversation (a number per call), or None for Play and Watch.
    call: int | None = None


@dataclass(slots=True)
class DecisionLog:
    """One decision request as the client saw it, and its answers."""

    decision_id: str
    deadline_unix_ms: int
    delivered: list[float] = field(default_factory=list)
    answers: list[float] = field(default_factory=list)
    accepted: bool = False
    rejections: list[str] = field(default_factory=list)

    def latency(self) -> float | None:
        """Seconds from the last delivery before the first answer after it to that answer."""
        if not self.delivered or not self.answers:
            return None
        first = self.delivered[0]
        later = [a for a in self.answers if a >= first]
        return (later[0] - first) if later else None


@dataclass(slots=True)
class Script:
    """A situation's fault and everything the relay observed of the client in it."""

    fault: Fault = Fault.NONE
    #: Pass the client's batch and coalescing options on (otherwise the client gets single messages).
    keep_join_options: bool = False
    #: With DROP_BEFORE_DECISION: drop just before delivering this decision request (1-based).
    drop_at_decision: int = 2
    streams: list[StreamLog] = field(default_factory=list)
    decisions: dict[str, DecisionLog] = field(default_factory=dict)
    decision_order: list[str] = field(default_factory=list)
    mutated_decision: str | None = None
    mutated_outcome: str = ""
    dropped_after_sequence: int | None = None
    withheld_decision: str | None = None
    game_ended: bool = False
    transcript: list[str] | None = None
    #: Every annotation the client sent, with its decision id, in order.
    annotations: list[tuple[str, pb.Annotation]] = field(default_factory=list)
    #: The ``action_timed_out`` events that reached the client, by decision id.
    timed_out: dict[str, Any] = field(default_factory=dict)
    #: With LATE_ANSWER: the decision whose answer is held, as the client got it, and the server's answer to the
    #: late decide ("" until it comes).
    late_request: pb.DecisionRequest | None = None
    late_outcome: str = ""
    #: Set once the held answer may go (the default was played, or the harness gave up waiting).
    released: asyncio.Event = field(default_factory=asyncio.Event)
    #: What a spectator was sent that it must not see (:func:`hidden_parts`).
    hidden: list[str] = field(default_factory=list)
    _t0: float = field(default_factory=time.monotonic)

    # --- notes -----------------------------------------------------------

    def note(self, direction: str, message: Message) -> None:
        """Add one message to the transcript, if one is kept."""
        if self.transcript is not None:
            stamp = f"{time.monotonic() - self._t0:8.3f}"
            self.transcript.append(f"{stamp} {direction} {text_format.MessageToString(message, as_one_line=True)}")

    def note_text(self, text: str) -> None:
        """Add a comment line to the transcript, if one is kept."""
        if self.transcript is not None:
            self.transcript.append(f"{time.monotonic() - self._t0:8.3f} -- {text}")

    def open_stream(self, kind: str) -> StreamLog:
        """A new seat stream of the client."""
        stream = StreamLog(kind=kind, opened=time.monotonic())
        self.streams.append(stream)
        return stream

    def on_join(self, stream: StreamLog, token: str, last_seen: int | None) -> None:
        """The client joined a seat on ``stream``."""
        stream.token = token
        stream.last_seen_sequence = last_seen

    # --- client -> server ------------------------------------------------

    def on_decide(self, decide: pb.Decide) -> pb.Decide:
        """A decide from the client: record it; under REJECT_FIRST, spoil the first one."""
        log = self.decisions.get(decide.decision_id)
        if log is not None:
            log.answers.append(time.monotonic())
        if decide.HasField("annotation"):
            self.annotations.append((decide.decision_id, decide.annotation))
        if self.fault is Fault.REJECT_FIRST and self.mutated_decision is None:
            self.mutated_decision = decide.decision_id
            spoiled = pb.Decide(decision_id=decide.decision_id, action_id=INVALID_ACTION_ID)
            return spoiled
        return decide

    async def hold(self, decide: pb.Decide, limit: float) -> None:
        """Under LATE_ANSWER, wait (at most ``limit`` seconds) before forwarding the answer to the held decision."""
        late = self.late_request
        if self.fault is not Fault.LATE_ANSWER or late is None or decide.decision_id != late.decision_id:
            return
        self.note_text(f"relay holds the answer to decision {late.decision_id} until the server's clock runs out")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.released.wait(), limit)

    # --- server -> client ------------------------------------------------

    def should_drop(self, stream: StreamLog, kind: str | None) -> bool:
        """Whether to drop ``stream`` instead of delivering a message of ``kind``."""
        return (self.fault is Fault.DROP_BEFORE_DECISION and kind == "decision"
                and self.dropped_after_sequence is None and len(self.decision_order) + 1 >= self.drop_at_decision)

    def on_drop(self, stream: StreamLog, withheld: pb.DecisionRequest) -> None:
        """``stream`` is dropped instead of delivering ``withheld``."""
        stream.dropped = True
        self.dropped_after_sequence = stream.last_sequence if stream.last_sequence is not None else 0
        self.withheld_decision = withheld.decision_id

    def on_server_message(self, stream: StreamLog, kind: str | None, message: Any) -> None:
        """A message of the seat stream reaches the client (``message`` is the case's payload)."""
        now = time.monotonic()
        if kind == "joined":
            stream.joined = True
            stream.seat = int(message.seat)
            # A resume replays what follows last_seen_sequence; a first join starts at joined.sequence.
            resumed = stream.last_seen_sequence
            stream.last_sequence = int(message.sequence) if resumed is None else resumed
        elif kind == "event":
            stream.last_sequence = max(stream.last_sequence or 0, int(message.sequence))
            which = message.WhichOneof("kind")
            if which == "game_ended":
                self.game_ended = True
            elif which == "action_timed_out" and message.action_timed_out.seat == stream.seat:
                self.timed_out[message.action_timed_out.decision_id] = message.action_timed_out
                if self.late_request is not None and message.action_timed_out.decision_id == \
                        self.late_request.decision_id:
                    self.released.set()
        elif kind == "decision":
            log = self.decisions.get(message.decision_id)
            if log is None:
                log = self.decisions[message.decision_id] = DecisionLog(
                    decision_id=message.decision_id, deadline_unix_ms=int(message.deadline_unix_ms))
                self.decision_order.append(message.decision_id)
                if self.fault is Fault.LATE_ANSWER and self.late_request is None:
                    self.late_request = message
            log.delivered.append(now)
        elif kind in ("accepted", "rejection"):
            self.on_outcome(message, accepted=kind == "accepted")

    async def pass_on(self, stream: StreamLog, message: pb.WatchResponse | pb.PlayResponse,
                      cancel_upstream: Callable[[], object], context: Context) -> None:
        """Note a server message on a seat stream, or, when the fault says so, drop the stream here instead.

        Dropping cancels the upstream call and aborts the client's with UNAVAILABLE (so this does not return).
        """
        kind = message.WhichOneof("kind")
        if kind == "batch" and isinstance(message, pb.PlayResponse):  # only with keep_join_options
            self.on_play_response(stream, message)
            return
        if self.should_drop(stream, kind):
            self.on_drop(stream, message.decision)
            cancel_upstream()
            self.note_text(f"relay drops the stream instead of decision {message.decision.decision_id}")
            await context.abort(grpc.StatusCode.UNAVAILABLE, DROP_DETAILS)
        self.on_server_message(stream, kind, getattr(message, kind) if kind else None)
        self.note("S>", message)

    def on_play_response(self, stream: StreamLog, message: pb.PlayResponse) -> None:
        """Note a Play message (a batch: each of its messages) that reaches the client unchanged."""
        kind = message.WhichOneof("kind")
        if kind == "batch":
            for item in message.batch.messages:
                inner = item.WhichOneof("kind")
                self.on_server_message(stream, inner, getattr(item, inner) if inner else None)
        else:
            self.on_server_message(stream, kind, getattr(message, kind) if kind else None)
        self.note("S>", message)

    def on_spectator_message(self, stream: StreamLog, message: pb.SpectateResponse) -> None:
        """A Spectate message reaches the client: note its sequence, the game's end and anything hidden in it."""
        kind = message.WhichOneof("kind")
        if kind == "started":
            stream.joined = True
            stream.last_sequence = int(message.started.sequence)
        elif kind == "event":
            stream.last_sequence = max(stream.last_sequence or 0, int(message.event.sequence))
            if message.event.WhichOneof("kind") == "game_ended":
                self.game_ended = True
        self.hidden.extend(hidden_parts(message))
        self.note("S>", message)

    def on_outcome(self, message: Any, *, accepted: bool) -> None:
        """An Accepted or a Rejection reaches the client."""
        if self.late_request is not None and message.decision_id == self.late_request.decision_id \
                and self.released.is_set() and not self.late_outcome:
            self.late_outcome = (("a duplicate" if message.duplicate else "accepted") if accepted
                                 else pb.RejectionReason.Name(message.reason))
        log = self.decisions.get(message.decision_id)
        mutated = message.decision_id == self.mutated_decision and not self.mutated_outcome
        if mutated:
            self.mutated_outcome = "accepted" if accepted else pb.RejectionReason.Name(message.reason)
            if log is not None and not accepted:
                log.rejections.append(self.mutated_outcome)
            return
        if log is None:
            return
        if accepted:
            log.accepted = True
        else:
            log.rejections.append(pb.RejectionReason.Name(message.reason))


def hidden_parts(message: pb.SpectateResponse) -> list[str]:
    """What a Spectate message shows that no spectator may see: a hand, a buried card, a kitty, discards, legal
    actions (docs/protocol.md, section 13). Empty for a message that keeps the secrets."""
    found: list[str] = []
    kind = message.WhichOneof("kind")
    if kind == "started":
        view = message.started.view
        shown = {"hand": list(view.hand), "buried": view.buried, "kitty": list(view.kitty),
                 "discards": list(view.discards), "legal_actions": len(view.legal_actions)}
        found += [f"the spectator's view has {name} {value}" for name, value in shown.items() if value]
        if view.HasField("seat"):
            found.append(f"the spectator's view names a seat ({view.seat})")
        for entry in view.history:
            action_case = entry.action.WhichOneof("kind")
            if action_case == "rob" and entry.action.rob.card:
                found.append(f"the spectator's view shows seat {entry.seat}'s buried card {entry.action.rob.card}")
            elif action_case == "discard" and entry.action.discard.cards:
                found.append(f"the spectator's view shows seat {entry.seat}'s discards")
    elif kind == "event":
        event = message.event
        case = event.WhichOneof("kind")
        secret: dict[str, Callable[[], object]] = {
            "deal_started": lambda: list(event.deal_started.hand), "robbed": lambda: event.robbed.buried,
            "kitty_taken": lambda: list(event.kitty_taken.kitty), "discarded": lambda: list(event.discarded.cards)}
        value = secret[case]() if case in secret else None
        if value:
            found.append(f"event {event.sequence} ({case}) shows {value}")
        if case == "action_timed_out":
            action = event.action_timed_out.action
            if action.rob.card or action.discard.cards:
                found.append(f"event {event.sequence} (action_timed_out) shows a hidden card of seat "
                             f"{event.action_timed_out.seat}")
    return found


#: A number for each PlayMany call the relay forwards (a conversation's :attr:`StreamLog.call`).
_CALLS = itertools.count(1)


class Relay(pb_grpc.TableServiceServicer):
    """Forwards ``TableService`` to ``upstream``, applying the current :attr:`script`."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.stub = pb_grpc.TableServiceStub(channel)
        self.script = Script()
        #: Scripts of their own, by seat token or spectated table id; anything else goes to :attr:`script`.
        self.scripts: dict[str, Script] = {}
        #: How long a held late answer waits at most for the default action.
        self.hold_limit = 60.0

    def script_for(self, key: str) -> Script:
        """The script of a seat token or a spectated table id."""
        return self.scripts.get(key, self.script)

    # --- plain forwarding ------------------------------------------------

    async def _unary(self, method: Callable[..., Any], request: Any, context: Context) -> Any:
        try:
            return await method(request)
        except grpc.aio.AioRpcError as error:
            await context.abort(error.code(), error.details() or "")

    async def _server_stream(self, method: Callable[..., Any], request: Any, context: Context) -> AsyncIterator[Any]:
        call = method(request)
        try:
            async for message in call:
                yield message
        except grpc.aio.AioRpcError as error:
            await context.abort(error.code(), error.details() or "")
        finally:
            call.cancel()

    async def CreateTable(self, request: pb.CreateTableRequest, context: Context) -> pb.CreateTableResponse:
        response: pb.CreateTableResponse = await self._unary(self.stub.CreateTable, request, context)
        return response

    async def ListTables(self, request: pb.ListTablesRequest, context: Context) -> pb.ListTablesResponse:
        response: pb.ListTablesResponse = await self._unary(self.stub.ListTables, request, context)
        return response

    async def GetTable(self, request: pb.GetTableRequest, context: Context) -> pb.GetTableResponse:
        response: pb.GetTableResponse = await self._unary(self.stub.GetTable, request, context)
        return response

    async def GetRecord(self, request: pb.GetRecordRequest, context: Context) -> pb.GetRecordResponse:
        response: pb.GetRecordResponse = await self._unary(self.stub.GetRecord, request, context)
        return response

    async def SeekGame(self, request: pb.SeekGameRequest, context: Context) -> AsyncIterator[pb.SeekGameResponse]:
        async for message in self._server_stream(self.stub.SeekGame, request, context):
            yield message

    async def Spectate(self, request: pb.SpectateRequest, context: Context) -> AsyncIterator[pb.SpectateResponse]:
        script = self.script_for(request.table_id)
        stream = script.open_stream("spectate")
        stream.token = request.table_id
        script.note("C>", request)
        async for message in self._server_stream(self.stub.Spectate, request, context):
            script.on_spectator_message(stream, message)
            yield message

    # --- seat streams ----------------------------------------------------

    async def SubmitAction(self, request: pb.SubmitActionRequest, context: Context) -> pb.SubmitActionResponse:
        script = self.script_for(request.token)
        script.note("C>", request)
        forwarded = pb.SubmitActionRequest(token=request.token, decide=script.on_decide(request.decide))
        await script.hold(forwarded.decide, self.hold_limit)
        response: pb.SubmitActionResponse = await self._unary(self.stub.SubmitAction, forwarded, context)
        kind = response.WhichOneof("outcome")
        if kind is not None:
            script.on_outcome(getattr(response, kind), accepted=kind == "accepted")
        script.note("S>", response)
        return response

    async def Watch(self, request: pb.WatchRequest, context: Context) -> AsyncIterator[pb.WatchResponse]:
        script = self.script_for(request.token)
        stream = script.open_stream("watch")
        script.note("C>", request)
        script.on_join(stream, request.token,
                       request.last_seen_sequence if request.HasField("last_seen_sequence") else None)
        call = self.stub.Watch(request)
        try:
            async for message in call:
                await script.pass_on(stream, message, call.cancel, context)
                yield message
        except grpc.aio.AioRpcError as error:
            await context.abort(error.code(), error.details() or "")
        finally:
            call.cancel()

    async def Play(self, request_iterator: AsyncIterator[pb.PlayRequest],
                   context: Context) -> AsyncIterator[pb.PlayResponse]:
        script = self.script
        stream = script.open_stream("play")
        upstream = self.stub.Play()  # type: ignore[call-arg]  # grpc-stubs: the iterator is optional (we write)

        async def forward() -> None:
            nonlocal script
            with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
                async for request in request_iterator:
                    script.note("C>", request)
                    kind = request.WhichOneof("kind")
                    if kind == "join" and not stream.token:
                        join = request.join
                        script = self._move(stream, script, join.token)
                        script.on_join(stream, join.token,
                                       join.last_seen_sequence if join.HasField("last_seen_sequence") else None)
                        stream.coalesce = join.coalesce_events
                        if not script.keep_join_options:
                            # The fault checks read and drop single messages: the client gets them one by one
                            # (batches and coalescing are options, never an obligation).
                            request = pb.PlayRequest()
                            request.join.CopyFrom(join)
                            request.join.accept_batches = request.join.coalesce_events = False
                    elif kind == "decide":
                        request = pb.PlayRequest(decide=script.on_decide(request.decide))
                        await script.hold(request.decide, self.hold_limit)
                    await upstream.write(request)
                await upstream.done_writing()

        writer = asyncio.ensure_future(forward())
        try:
            while True:
                message = await next_reply(upstream, pb.PlayResponse)
                if message is None:
                    break
                await script.pass_on(stream, message, upstream.cancel, context)
                yield message
            code = await upstream.code()
            if code != grpc.StatusCode.OK:
                await context.abort(code, await upstream.details())
        except grpc.aio.AioRpcError as error:
            await context.abort(error.code(), error.details() or "")
        finally:
            writer.cancel()
            upstream.cancel()
            with contextlib.suppress(BaseException):
                await writer


    def _move(self, stream: StreamLog, script: Script, token: str) -> Script:
        """The script of a stream that joined with ``token``: the stream is noted there from now on."""
        mine = self.script_for(token)
        if mine is not script:
            script.streams.remove(stream)
            mine.streams.append(stream)
        return mine

    async def PlayMany(self, request_iterator: AsyncIterator[pb.PlayManyRequest],
                       context: Context) -> AsyncIterator[pb.PlayManyResponse]:
        """Forwarded unchanged (no fault), each conversation watched as a Play stream of its seat's script."""
        call = next(_CALLS)
        conversations: dict[int, tuple[Script, StreamLog]] = {}

        async def requests() -> AsyncIterator[pb.PlayManyRequest]:
            async for message in request_iterator:
                for item in message.requests:
                    which = None if item.leave else item.request.WhichOneof("kind")
                    if which == "join":  # a new conversation under this number
                        join = item.request.join
                        script = self.script_for(join.token)
                        stream = script.open_stream("play-many")
                        stream.call = call
                        script.on_join(stream, join.token,
                                       join.last_seen_sequence if join.HasField("last_seen_sequence") else None)
                        stream.coalesce = join.coalesce_events
                        conversations[item.stream] = (script, stream)
                    known = conversations.get(item.stream)
                    if known is None or which is None:
                        continue
                    known[0].note("C>", item.request)
                    if which == "decide":
                        known[0].on_decide(item.request.decide)
                yield message

        try:
            async for message in forwarded(self.stub.PlayMany(), requests()):  # type: ignore[call-arg]
                for response in message.responses:
                    known = conversations.get(response.stream)
                    if known is not None and response.WhichOneof("kind") == "response":
                        known[0].on_play_response(known[1], response.response)
                yield message
        except grpc.aio.AioRpcError as error:
            await context.abort(error.code(), error.details() or "")

def upstream_channel(upstream: str, root_certificates: bytes | None = None) -> grpc.aio.Channel:
    """A channel to the server under the relay: TLS when ``root_certificates`` are given."""
    options = [("grpc.max_receive_message_length", 32 * 1024 * 1024)]
    if root_certificates is not None:
        return grpc.aio.secure_channel(upstream, grpc.ssl_channel_credentials(root_certificates), options=options)
    return grpc.aio.insecure_channel(upstream, options=options)


async def start_relay(upstream: str, host: str = "127.0.0.1", *,
                      root_certificates: bytes | None = None) -> tuple[grpc.aio.Server, Relay, str]:
    """Start a relay to ``upstream`` on a free port of ``host``; return the server, the relay and its address."""
    channel = upstream_channel(upstream, root_certificates)
    relay = Relay(channel)
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0),
                                      ("grpc.max_send_message_length", 32 * 1024 * 1024)])
    pb_grpc.add_TableServiceServicer_to_server(relay, server)
    port = server.add_insecure_port(f"{host}:0")
    if not port:
        raise RuntimeError(f"could not bind a relay port on {host}")
    await server.start()
    return server, relay, f"{host}:{port}"
