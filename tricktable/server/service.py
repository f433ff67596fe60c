"""The thin gRPC servicer of ``tricktable.v1.TableService``.

It decodes requests, calls the lobby and the tables, and encodes what they
answer; it holds no game state and no rules. Errors of a call are raised as
:mod:`tricktable.server.errors` domain errors and mapped to status codes by the error
interceptor; refusals of a decision are in-band rejections.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from collections.abc import AsyncGenerator, AsyncIterator, Coroutine
from dataclasses import replace
from typing import Any, Literal

import grpc
import structlog

from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.protocol.reasons import RejectReason
from tricktable.rules.actions import Action
from tricktable.rules.annotation import AnnotationError
from tricktable.rules.errors import NotationError
from tricktable.rules.game import Seat
from tricktable.rules.notation import from_notation
from tricktable.rules.registry import game_rules
from tricktable.server.clocks import LIMITS, TimeControl
from tricktable.server.errors import (
    InvalidRequestError,
    JoinDeadlineError,
    TooManyRejectionsError,
    UndecodableRequestError,
    bounded,
)
from tricktable.server.events import Audience, DecisionRequested, Event
from tricktable.server.interceptors import client_of
from tricktable.server.lobby import Lobby
from tricktable.server.play_many import ManyCall
from tricktable.server.storage import TableMeta as StoredMeta
from tricktable.server.stream_guard import Inbox, StreamFailure, TokenBucket, decoded
from tricktable.server.tables import Outcome, Table
from tricktable.server.wire import SeatWire, event_to_proto, options_message, stored_table_info, table_info
from tricktable.server.withholding import DeckSet

Context = grpc.aio.ServicerContext[Any, Any]
log = structlog.get_logger("tricktable.service")


class TableService(table_service_pb2_grpc.TableServiceServicer):
    """Tables over gRPC: create, seek, list, play (bidirectional or watch + submit), spectate, records."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    # --- tables ----------------------------------------------------------

    async def CreateTable(self, request: pb.CreateTableRequest, context: Context) -> pb.CreateTableResponse:
        game = convert.game_from_proto(request.game)
        options = convert.options_from_proto(game, request.options) if request.HasField("options") else {}
        control = self.lobby.time_control
        if request.HasField("time_control"):
            control = _time_control(request.time_control, control)
        table, tokens = self.lobby.create_table(
            game=game, options=options, time_control=control,
            seed=request.seed if request.HasField("seed") else None,
            names=list(request.seat_names), client=client_of(context), sealed=request.sealed,
            deck_set=DeckSet(request.deck_set.tables, request.deck_set.index) if request.HasField("deck_set") else None,
            owner_token=request.owner_token)
        return pb.CreateTableResponse(
            table_id=table.id, seed_sha256=table.seed_sha256, table=table_info(table),
            seat_tokens=[pb.SeatToken(seat=s, token=t) for s, t in enumerate(tokens)], owner_token=table.owner_token)

    async def SeekGame(self, request: pb.SeekGameRequest, context: Context) -> AsyncIterator[pb.SeekGameResponse]:
        game = convert.game_from_proto(request.game)
        players = request.players or game_rules(game).config({}).players
        seeking = asyncio.ensure_future(self.lobby.seek(game=game, players=players, name=request.name,
                                                        client=client_of(context)))
        try:
            await asyncio.sleep(0)  # let the seek join the queue, so the count includes it
            while not seeking.done():  # a waiting update now and whenever the count changes
                yield pb.SeekGameResponse(waiting=pb.SeekWaiting(waiting=self.lobby.seekers(game, players),
                                                                 needed=players))
                change = asyncio.ensure_future(self.lobby.seekers_change(game, players))
                try:
                    await asyncio.wait((seeking, change), return_when=asyncio.FIRST_COMPLETED)
                finally:
                    change.cancel()
            ticket = await seeking
        finally:
            seeking.cancel()
        yield pb.SeekGameResponse(seated=pb.SeekSeated(table_id=ticket.table_id, seat=ticket.seat,
                                                       token=ticket.token, seed_sha256=ticket.seed_sha256,
                                                       play_address=ticket.play_address))

    async def ListTables(self, request: pb.ListTablesRequest, context: Context) -> pb.ListTablesResponse:
        game = convert.game_from_proto(request.game) if request.game else None
        infos = [self._info(t) for t in self.lobby.tables()]
        known = {i.table_id for i in infos}
        infos += [await self._stored_info(m) for m in await self.lobby.stored(game=game) if m.id not in known]
        infos = [i for i in infos if (game is None or i.game == request.game)
                 and (not request.status or i.status == request.status)]
        infos.sort(key=lambda i: i.created_unix_ms)
        return pb.ListTablesResponse(tables=infos)

    async def GetTable(self, request: pb.GetTableRequest, context: Context) -> pb.GetTableResponse:
        table = self.lobby.find(request.table_id)
        if table is not None:
            return pb.GetTableResponse(table=self._info(table))
        return pb.GetTableResponse(table=await self._stored_info(await self.lobby.stored_meta(request.table_id)))

    def _info(self, table: Table) -> pb.TableInfo:
        """The table's public facts, its progress left out while withheld (fair play: a twin may be running)."""
        info = table_info(table)
        return _without_progress(info) if self.lobby.withheld(table) else info

    async def _stored_info(self, meta: StoredMeta) -> pb.TableInfo:
        info = stored_table_info(meta)
        return _without_progress(info) if await self.lobby.withheld_meta(meta) else info

    async def GetRecord(self, request: pb.GetRecordRequest, context: Context) -> pb.GetRecordResponse:
        record = await self.lobby.record(request.table_id, request.owner_token)
        return pb.GetRecordResponse(record_json=json.dumps(record))

    # --- playing ---------------------------------------------------------

    async def Play(self, request_iterator: AsyncIterator[pb.PlayRequest],
                   context: Context) -> AsyncGenerator[pb.PlayResponse, None]:
        """One seat's conversation: its join, then its messages until its table ends (docs/protocol.md, section 5).

        The one home of a seat's conversation: PlayMany runs each of its
        conversations through this method. A sharded server plays a seat of
        another shard there once it has joined (:meth:`_played_elsewhere`).
        """
        limits = self.lobby.limits
        loop = asyncio.get_running_loop()
        requests = decoded(request_iterator.__aiter__())
        budget = TokenBucket(limits.max_rejections_burst, limits.max_rejections_per_second)
        deadline = loop.time() + limits.join_deadline_seconds
        join: pb.Join | None = None
        while join is None:
            try:
                async with asyncio.timeout_at(deadline):  # in this task: no task of its own per join, as wait_for made
                    request = await anext(requests, None)
            except TimeoutError:
                raise JoinDeadlineError(f"no join within {limits.join_deadline_seconds:g} s of opening the stream; "
                                        "send join first") from None
            if request is None:
                return
            if request.WhichOneof("kind") == "join":
                join = request.join
                break
            if not budget.spend(loop.time()):
                raise TooManyRejectionsError(_too_many_rejections(limits.max_rejections_burst))
            yield pb.PlayResponse(rejection=pb.Rejection(
                decision_id=_bounded(request.decide.decision_id),
                reason=convert.rejection_reason_to_proto("NOT_JOINED"), message="join with a token first"))
        relayed = self._played_elsewhere(join, requests, context)
        if relayed is not None:
            async for response in relayed:
                yield response
            return
        table, seat = self.lobby.resolve(join.token)
        self.lobby.check_join(table)
        self.lobby.check_seat_streams(table, seat)
        last_seen = join.last_seen_sequence if join.HasField("last_seen_sequence") else None
        inbox = Inbox()
        wire = _seat_wire(table, join.enumerate_discards, join.legal_actions_once)
        coalesce = join.coalesce_events

        async def read() -> None:
            """Answer each decide into ``inbox``; an undecodable request or a flood of refusals ends the stream."""
            try:
                async for request in requests:
                    if request.WhichOneof("kind") == "decide":
                        try:
                            outcome = decide(table, seat, request.decide, wire)
                        except Exception as error:  # never leave the stream without a reader
                            log.exception("decide failed", table=table.id, game=table.game, seat=seat)
                            outcome = table.reject(seat, RejectReason.MALFORMED_ACTION,
                                                   f"refused: {type(error).__name__}")
                        response = _outcome_response(pb.PlayResponse, request.decide.decision_id, outcome)
                    else:
                        outcome = table.reject(seat, RejectReason.ALREADY_JOINED, "this stream has already joined")
                        response = pb.PlayResponse(rejection=pb.Rejection(
                            reason=convert.rejection_reason_to_proto("ALREADY_JOINED"),
                            message="this stream has already joined"))
                    if not outcome.accepted and not budget.spend(loop.time()):
                        raise TooManyRejectionsError(_too_many_rejections(limits.max_rejections_burst))
                    await inbox.room()  # a client that does not read is no longer read either
                    inbox.append(response)
                    if not (coalesce and outcome.accepted and not outcome.duplicate):
                        table.wake(seat)  # a move's Accepted needs none: the hold since its decision bounds it
            except (UndecodableRequestError, TooManyRejectionsError) as error:
                event = "undecodable request" if isinstance(error, UndecodableRequestError) else "stream flooded"
                log.warning(event, table=table.id, game=table.game, seat=seat, error=error.message)
                inbox.append(StreamFailure(error))
                table.wake(seat)
                # Read on (dropping everything) until the writer ends the call: a call ended while the client's
                # messages lie unread fails on the client as INTERNAL instead of carrying this status.
                with contextlib.suppress(Exception):
                    async for _ in requests:
                        pass

        async for response in _seat_stream(table, seat, join.name, last_seen, pb.PlayResponse, inbox, read(),
                                           join.accept_batches or join.coalesce_events, join.enumerate_discards,
                                           join.coalesce_events, wire):
            yield response

    def _played_elsewhere(self, join: pb.Join, requests: AsyncIterator[pb.PlayRequest],
                          context: Context) -> AsyncIterator[pb.PlayResponse] | None:
        """Where a stream that has joined is played when its seat is not here (None: here).

        A sharded server relays a seat of another shard (:mod:`server.shards`);
        what comes before the join (deadline, refusals) is answered here either way.
        """
        return None

    async def PlayMany(self, request_iterator: AsyncIterator[pb.PlayManyRequest],
                       context: Context) -> AsyncIterator[pb.PlayManyResponse]:
        """Many seats' Play conversations over one call, each through :meth:`Play` (see :mod:`server.play_many`)."""
        call = ManyCall(self.Play, context, client_of(context), self.lobby.limits, self.lobby.client_streams)
        async for response in call.responses(request_iterator):
            yield response

    async def Watch(self, request: pb.WatchRequest, context: Context) -> AsyncIterator[pb.WatchResponse]:
        table, seat = self.lobby.resolve(request.token)
        self.lobby.check_join(table)
        self.lobby.check_seat_streams(table, seat)
        last_seen = request.last_seen_sequence if request.HasField("last_seen_sequence") else None
        async for response in _seat_stream(table, seat, request.name, last_seen, pb.WatchResponse, Inbox(), None,
                                           enumerate_discards=request.enumerate_discards,
                                           wire=_seat_wire(table, request.enumerate_discards,
                                                           request.legal_actions_once)):
            yield response

    async def SubmitAction(self, request: pb.SubmitActionRequest,
                           context: Context) -> pb.SubmitActionResponse:
        table, seat = self.lobby.resolve(request.token)
        outcome = decide(table, seat, request.decide)
        response: pb.SubmitActionResponse = _outcome_response(pb.SubmitActionResponse, request.decide.decision_id,
                                                              outcome)
        return response

    async def Spectate(self, request: pb.SpectateRequest,
                       context: Context) -> AsyncIterator[pb.SpectateResponse]:
        table = self.lobby.table(request.table_id)
        self.lobby.check_reveal(table, request.owner_token)  # first: even a refused resume point tells progress
        last_seen = request.last_seen_sequence if request.HasField("last_seen_sequence") else None
        check_resume_point(table, None, last_seen)
        # A stream let in while the table was not withheld ends (PERMISSION_DENIED) once it is: a twin created
        # meanwhile deals the same cards. The creator's stream goes on.
        gate = None if self.lobby.owns(table, request.owner_token) else functools.partial(self.lobby.check_open, table)
        with self.lobby.spectating(table):
            snap = table.snapshot(None)
            yield pb.SpectateResponse(started=pb.SpectateStarted(table=table_info(table), sequence=snap.seq,
                                                                 view=convert.view_to_proto(snap.view)))
            after = snap.seq if last_seen is None else last_seen
            async for item in table.follow(None, after, gate=gate):
                if isinstance(item, Event):
                    yield pb.SpectateResponse(event=event_to_proto(item))


def _too_many_rejections(burst: int) -> str:
    return (f"this stream sent refused messages faster than its budget ({burst} at once); "
            "the stream is closed: reconnect, join, and answer only pending decisions")


def check_resume_point(table: Table, audience: Audience, last_seen: int | None) -> None:
    """Refuse a ``last_seen_sequence`` beyond the audience's log: replaying "after" it would skip events unseen.

    Any value up to the last event is a resume point, 0 included (the whole log), on a first join too.

    Raises:
        InvalidRequestError: the sequence was never sent to this audience.
    """
    last = table.last_sequence(audience)
    if last_seen is not None and last_seen > last:
        whose = "the spectators'" if audience is None else f"seat {audience}'s"
        raise InvalidRequestError(f"last_seen_sequence {last_seen} is beyond the last event of {whose} log "
                                  f"({last}); resume with the last sequence received, or leave it unset")


def _without_progress(info: pb.TableInfo) -> pb.TableInfo:
    """``info`` without what tells how the deals went (deal number, scores, result)."""
    info.deal_number = 0
    del info.scores[:]
    info.ClearField("result")
    return info


#: The fields of a wire ``TimeControl`` (milliseconds) and the limits they set (seconds).
_WIRE_CLOCKS: tuple[tuple[Literal["decision_ms", "bank_ms"], str], ...] = (
    ("decision_ms", "decision_seconds"), ("bank_ms", "bank_seconds"))


def _time_control(message: pb.TimeControl, base: TimeControl) -> TimeControl:
    """``base`` with the fields the request sets; an error names the field as the protos do, in milliseconds."""
    control = base
    for field, name in _WIRE_CLOCKS:
        if message.HasField(field):
            value = getattr(message, field)
            low, high = (round(limit * 1000) for limit in LIMITS[name])
            if not low <= value <= high:
                raise InvalidRequestError(f"time_control.{field} must be {low} to {high} milliseconds, not {value}")
            control = replace(control, **{name: value / 1000})
    return control.validate()


#: The longest decision id the server could have issued (a decision number as decimal digits).
_MAX_DECISION_ID = 19


def decide(table: Table, seat: Seat, message: pb.Decide, wire: SeatWire | None = None) -> Outcome:
    """Judge a decide in the order docs/protocol.md section 8 states, and play it when nothing refuses it.

    1. the table's state and the decision id (:meth:`Table.refuse`): not
       started; a settled id (the same answer again is a duplicate, anything
       else stale); game over; not the seat's turn; not its pending decision;
    2. then the annotation: over a limit or malformed is ``BAD_ANNOTATION``;
    3. then the choice: none or an undecodable (deprecated) ``action`` is malformed; an
       ``action_id`` is looked up among the ids this stream was sent, else read as a notation,
       and one that is no action's notation is unknown;
    4. then the rules (:meth:`Table.submit`), which keeps the annotation with the action played.

    ``wire``: the stream that sent the decision, which knows its legal action ids.
    """
    decision_id = _decision_number(message.decision_id)
    done = None if decision_id is None else table.resolved(decision_id)
    if decision_id is not None and done is not None and done[0] == seat and _names(message, done[1]):
        return table.submit(seat, decision_id, done[1])  # the same answer again: a duplicate, played once
    refused = table.refuse(seat, decision_id)
    if refused is not None:
        return refused
    if decision_id is None:  # refuse() passes only the seat's pending decision, which has an id
        raise RuntimeError("a decide without a decision id passed refuse()")
    try:
        annotation = convert.annotation_from_proto(message.annotation) if message.HasField("annotation") else None
    except AnnotationError as error:
        return table.reject(seat, RejectReason.BAD_ANNOTATION, f"annotation: {error}")
    choice = message.WhichOneof("choice")
    if choice == "action_id":
        action = None if wire is None else wire.action_named(decision_id, message.action_id)
        if action is None:  # not sent on this stream (SubmitAction, a discard choice): read it as a notation
            try:
                action = from_notation(message.action_id)
            except NotationError as error:
                return table.reject(seat, RejectReason.UNKNOWN_ACTION_ID,
                                    f"action_id {_bounded(message.action_id)!r} is neither a legal action id of "
                                    f"decision {decision_id} nor an action's notation: {bounded(str(error))}")
        return table.submit(seat, decision_id, action, annotation)
    if choice != "action":
        return table.reject(seat, RejectReason.MALFORMED_ACTION, "a decide needs an action_id (or an action)")
    # The deprecated Decide.action, still accepted from v1 clients.
    try:
        action = convert.action_from_proto(message.action)
    except Exception as error:  # NotationError for bad notation; anything else is still the client's input
        return table.reject(seat, RejectReason.MALFORMED_ACTION, bounded(str(error)) or type(error).__name__)
    return table.submit(seat, decision_id, action, annotation)


#: Characters at most of a client's id (decision or action) quoted back: the ids the server issues are shorter.
MAX_ID_CHARS = 64


def _bounded(client_id: str) -> str:
    """A client's id as it may be quoted back (cut to :data:`MAX_ID_CHARS`)."""
    return client_id[:MAX_ID_CHARS]


def _decision_number(text: str) -> int | None:
    """The decision number of a decision id as the server writes it (``"17"``), or None for any other text."""
    if not (0 < len(text) <= _MAX_DECISION_ID and text.isascii() and text.isdigit()):
        return None
    number = int(text)
    return number if str(number) == text else None


def _names(message: pb.Decide, action: Action) -> bool:
    """Whether the decide's choice is ``action`` (by its id, or as an Action message that decodes to it)."""
    choice = message.WhichOneof("choice")
    if choice == "action_id":
        return message.action_id == convert.action_id(action)
    if choice == "action":
        try:
            return convert.action_from_proto(message.action) == action
        except Exception:  # an undecodable action names nothing
            return False
    return False


def _outcome_response(kind: Any, decision_id: str, outcome: Outcome) -> Any:
    """The answer to a decide as a response of ``kind`` (an Accepted, every move: built in place, not copied in)."""
    if outcome.accepted:
        out = kind()
        out.accepted.SetInParent()
        out.accepted.decision_id = decision_id
        out.accepted.duplicate = outcome.duplicate
        return out
    reason = outcome.reason or RejectReason.MALFORMED_ACTION
    return kind(rejection=pb.Rejection(decision_id=_bounded(decision_id),
                                       reason=convert.rejection_reason_to_proto(reason.value),
                                       message=bounded(outcome.message)))


async def _seat_stream(table: Table, seat: Seat, name: str, last_seen: int | None, kind: Any,
                       inbox: Inbox, reader: Coroutine[Any, Any, None] | None,
                       batches: bool = False, enumerate_discards: bool = False,
                       coalesce: bool = False, wire: SeatWire | None = None) -> AsyncIterator[Any]:
    """Joined, then the seat's events, decisions and the reader's answers (from ``inbox``) until the table ends.

    One generator writes everything: the reader task only fills ``inbox`` and
    wakes the table's followers, so no message waits on a second hop. With
    ``batches`` (a Play client that set ``Join.accept_batches``), the messages
    ready at once go as one ``PlayBatch``: one write per move for most seats.
    With ``enumerate_discards`` (``Join.enumerate_discards``) a Cinq Cents
    discard is sent as its legal actions, not as a ``DiscardChoice``.
    With ``coalesce`` too (``Join.coalesce_events``), what is for information
    only (events, Accepted) waits for the seat's next decision, a refusal or
    a short bounded delay (:meth:`Table.follow_batches`). ``wire``: the
    stream's decision conversions (its reader looks answers up in it); with
    its ``legal_actions_once`` the views sent leave their legal actions out.
    """
    try:
        check_resume_point(table, seat, last_seen)
    except InvalidRequestError:
        if reader is not None:
            reader.close()  # never started: the stream ends with the error, nothing read, nothing joined
        raise
    if wire is None:
        wire = _seat_wire(table, enumerate_discards)
    table.connect(seat, name)
    snap = table.snapshot(seat)
    after = snap.seq if last_seen is None else last_seen
    reading = None if reader is None else asyncio.ensure_future(reader)
    try:
        yield kind(joined=pb.Joined(table_id=table.id, seat=seat,
                                    view=convert.view_to_proto(snap.view, options=wire.options,
                                                               enumerate_discards=enumerate_discards,
                                                               legal_actions=() if wire.legal_actions_once else None),
                                    sequence=snap.seq, table=table_info(table)))
        if batches:
            async for batch in table.follow_batches(seat, after, inbox, _is_accepted if coalesce else None):
                if len(batch) == 1 and not isinstance(batch[0], Event | DecisionRequested | StreamFailure):
                    yield batch[0]  # an answer, as it is
                    continue
                response = kind()
                if len(batch) == 1:
                    _fill_seat_message(response, batch[0], wire)
                else:
                    for item in batch:  # built inside the batch: nothing is built apart and copied in
                        _fill_seat_message(response.batch.messages.add(), item, wire)
                yield response
        else:
            async for item in table.follow(seat, after, inbox):
                if isinstance(item, Event | DecisionRequested | StreamFailure):
                    response = kind()
                    _fill_seat_message(response, item, wire)
                    yield response
                else:
                    yield item
    finally:
        if reading is not None:
            reading.cancel()
            with contextlib.suppress(BaseException):
                await reading
        table.disconnect(seat)


def _seat_wire(table: Table, enumerate_discards: bool, legal_actions_once: bool = False) -> SeatWire:
    """A seat stream's conversions, with the table's options converted once (the same for every decision)."""
    return SeatWire(options_message(table.game, table.options), enumerate_discards=enumerate_discards,
                    legal_actions_once=legal_actions_once)


def _is_accepted(message: Any) -> bool:
    """Whether an answer to the client is an Accepted: information only, so a coalescing stream may hold it."""
    return isinstance(message, pb.PlayResponse) and message.WhichOneof("kind") == "accepted"  # not a StreamFailure


def _fill_seat_message(out: Any, item: Any, wire: SeatWire) -> None:
    """Write one item a seat's stream follows into ``out`` (a response): an event, a decision, or an answer."""
    if isinstance(item, Event):
        event_to_proto(item, into=out.event)
    elif isinstance(item, DecisionRequested):
        wire.decision(item, into=out.decision)
    elif isinstance(item, StreamFailure):
        raise item.error  # the reader ended the stream: its status reaches the client by the error interceptor
    else:
        out.CopyFrom(item)
