"""The server's events, decisions and tables as ``tricktable.v1`` messages.

Cards, actions, options, views and results go through the one conversion
module (:mod:`tricktable.protocol.convert`); this module only assembles the
server-specific messages around them, joining the entries a decision
repeats from their wire bytes (:mod:`tricktable.server.wire_entries`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import events_pb2, game_pb2, table_service_pb2
from tricktable.rules.actions import Action
from tricktable.rules.events import ActionEvent
from tricktable.rules.game import Result, SeatView, Trick
from tricktable.server.events import (
    ActionTimedOut,
    DecisionRequested,
    DefaultReason,
    Event,
    EventBody,
    SeatDisconnected,
    SeatJoined,
    TableEnded,
    TableStarted,
)
from tricktable.server.storage import TableMeta
from tricktable.server.tables import Table, TableStatus
from tricktable.server.wire_entries import legal_action_converted, seat_action_converted, trick_converted

T = TypeVar("T")

_STATUSES = convert.by_name(TableStatus, table_service_pb2.TableStatus, "TABLE_STATUS")[0]
#: Why a default was played, on the wire.
_DEFAULT_REASONS = convert.by_name(DefaultReason, events_pb2.DefaultReason, "DEFAULT_REASON")[0]


def status_to_proto(status: str) -> table_service_pb2.TableStatus.ValueType:
    """The ``TableStatus`` of a table status name."""
    return _STATUSES[TableStatus(status)]


def ms(seconds: float) -> int:
    """Seconds as whole milliseconds."""
    return round(seconds * 1000)


#: Table options converted lately, by the identity of their dict (each with its dict, so an id is not reused
#: while it is here): a table's options are one dict, read by everything that sends them.
_OPTIONS: OrderedDict[int, tuple[Mapping[str, Any], game_pb2.TableOptions]] = OrderedDict()
#: Option dicts kept at most: more than the tables a server holds open at once is not needed.
MAX_OPTIONS = 4096


def options_message(game: str, options: Mapping[str, Any]) -> game_pb2.TableOptions:
    """``convert.options_to_proto`` of a table's options dict, converted once: shared, copy it, never change it.

    Why: a game sends its table's options in ``CreateTable``'s answer,
    every seat's ``Joined`` (its table and its view), every seat stream's
    decisions and the table's start: about fourteen conversions of one dict,
    which never changes (``Table.options``).
    """
    kept = _OPTIONS.get(id(options))
    if kept is not None and kept[0] is options:
        return kept[1]
    message = convert.options_to_proto(game, options)
    _OPTIONS[id(options)] = (options, message)
    if len(_OPTIONS) > MAX_OPTIONS:
        _OPTIONS.popitem(last=False)
    return message


#: Log entries converted lately, by identity (each with its entry, so an id is not reused while it is here).
_ENTRIES: OrderedDict[int, tuple[Event, events_pb2.Event]] = OrderedDict()
#: Entries kept at most: far more than the events of one step of every table of a loop turn.
MAX_ENTRIES = 4096


def event_to_proto(event: Event, into: events_pb2.Event | None = None) -> events_pb2.Event:
    """One log entry as an ``Event`` (already cut to its audience by the table), written into ``into`` when given.

    Why the entries are kept: a public event is one entry object in every
    audience's log (the table shares it), so it is converted once, sequence
    and time included, and copied for the other seats, a copy in C instead
    of a conversion in Python.
    """
    out = events_pb2.Event() if into is None else into
    key = id(event)
    kept = _ENTRIES.get(key)
    if kept is None or kept[0] is not event:
        message = _body_to_proto(event.body)
        message.sequence = event.seq
        message.time_unix_ms = ms(event.time)
        kept = _ENTRIES[key] = (event, message)
        if len(_ENTRIES) > MAX_ENTRIES:
            _ENTRIES.popitem(last=False)
    out.CopyFrom(kept[1])
    return out


def _body_to_proto(body: EventBody) -> events_pb2.Event:
    """The table's own events here; the game's go through :func:`tricktable.protocol.convert.event_to_proto`."""
    out = events_pb2.Event()
    if isinstance(body, TableStarted):
        out.table_started.CopyFrom(events_pb2.TableStarted(
            table_id=body.table_id, game=convert.game_to_proto(body.game),
            options=options_message(body.game, body.options), seat_names=list(body.names),
            seed_sha256=body.seed_sha256))
    elif isinstance(body, SeatJoined):
        out.seat_joined.CopyFrom(events_pb2.SeatJoined(seat=body.seat, name=body.name, rejoined=body.rejoined))
    elif isinstance(body, SeatDisconnected):
        out.seat_disconnected.CopyFrom(events_pb2.SeatDisconnected(seat=body.seat,
                                                                   grace_until_unix_ms=ms(body.grace_until)))
    elif isinstance(body, ActionTimedOut):
        out.action_timed_out.CopyFrom(events_pb2.ActionTimedOut(
            seat=body.seat, decision_id=str(body.decision_id),
            action=convert.seat_action_to_proto(body.action).action, reason=_DEFAULT_REASONS[body.reason]))
    elif isinstance(body, TableEnded):
        out.game_ended.result.CopyFrom(convert.result_to_proto(body.result))
    else:
        out = convert.event_to_proto(body)
    return out


class SeatWire:
    """One seat stream's decisions as messages, with what stays the same between them converted once.

    - what every view of the seat shares (game, the table's options,
      players, sides, seat) and, within a deal, its completed tricks and its
      history, which only grow: kept as wire bytes, the shared fields once
      and each trick and history entry as its entry's bytes, converted once
      for every seat (:mod:`tricktable.server.wire_entries`); a decision adds only the tricks and
      entries new since the stream's last decision;
    - the legal actions, each converted once for every decision that offers
      it, as its entries' bytes in the request and in its view
      (:data:`tricktable.server.wire_entries.legal_action_converted`), and their
      ids kept, so the answer that names one is found without converting
      the actions again (:meth:`action_named`).

    Why bytes: protobuf fields concatenate, so a decision's request and view
    start as one parse (in C) of these joined bytes instead of a copy of
    every kept message (a history entry, a legal action twice) into them;
    the view's other fields are written on top (:func:`convert.view_to_proto`).

    A Cinq Cents discard goes as a ``DiscardChoice`` (in the request and its
    view) unless the stream asked to enumerate discards (``Join.enumerate_discards``).
    With ``legal_actions_once`` (``Join.legal_actions_once``) the legal actions
    go in the request only: the view's deprecated copies are left empty.
    """

    def __init__(self, options: game_pb2.TableOptions, *, enumerate_discards: bool = False,
                 legal_actions_once: bool = False) -> None:
        self.options = options
        self.enumerate_discards = enumerate_discards
        self.legal_actions_once = legal_actions_once
        self._shared = b""
        self._tricks: list[bytes] = []
        self._history: list[bytes] = []
        self._kept_for: tuple[str, int] | None = None
        self._kept_deal = -1
        self._history_last: ActionEvent | None = None
        self._trick_last: Trick | None = None
        self._decision_id = 0
        self._ids: dict[str, Action] = {}

    def decision(self, decision: DecisionRequested, into: table_service_pb2.DecisionRequest) -> None:
        """Write ``decision`` into ``into`` (a new or cleared ``DecisionRequest``, inside its response)."""
        view = decision.view
        choice = None if self.enumerate_discards else convert.discard_choice_to_proto(decision.legal_actions)
        ids: dict[str, Action] = {}
        kept = self._kept_of(view)
        once = self.legal_actions_once
        offered: tuple[()] | None = () if once else None  # (): none written in the view, or already in ``kept``
        if choice is not None:
            into.discard_choice.CopyFrom(choice)
        else:
            legal = [legal_action_converted(action) for action in decision.legal_actions]
            into.MergeFromString(b"".join([item.in_request for item in legal]))
            ids = {item.id: action for item, action in zip(legal, decision.legal_actions, strict=True)}
            if not once and (view.legal_actions is decision.legal_actions
                             or view.legal_actions == decision.legal_actions):
                kept = b"".join([kept, *[item.in_view for item in legal]])
                offered = ()
        into.decision_id = str(decision.decision_id)
        into.deadline_unix_ms = ms(decision.deadline)
        into.time_bank_ms = ms(decision.bank_seconds)
        convert.view_to_proto(view, enumerate_discards=self.enumerate_discards, kept=kept, legal_actions=offered,
                              into=into.view)
        self._decision_id, self._ids = decision.decision_id, ids

    def action_named(self, decision_id: int, action_id: str) -> Action | None:
        """The legal action of the stream's last decision with ``action_id``; None if it is not that decision's."""
        return self._ids.get(action_id) if decision_id == self._decision_id else None

    def _kept_of(self, view: SeatView) -> bytes:
        """The seat's kept view parts brought up to ``view``, as wire bytes: shared, this deal's tricks and history."""
        if self._kept_for != (view.game, view.seat):  # the first decision (a stream serves one seat of one table)
            shared = game_pb2.SeatView()
            convert.fill_view_shared(shared, view, self.options)
            self._shared = shared.SerializeToString()
            self._kept_for, self._kept_deal = (view.game, view.seat), -1
        history, tricks = view.history, view.tricks
        kept_history, kept_tricks = self._history, self._tricks
        if (view.deal_number != self._kept_deal or not _continues(history, len(kept_history), self._history_last)
                or not _continues(tricks, len(kept_tricks), self._trick_last)):
            kept_history.clear()  # another deal (or a view that does not continue the last one): start again
            kept_tricks.clear()
            self._kept_deal = view.deal_number
        if len(history) > len(kept_history):
            kept_history.extend([seat_action_converted(event) for event in history[len(kept_history):]])
        if len(tricks) > len(kept_tricks):
            kept_tricks.extend([trick_converted(trick) for trick in tricks[len(kept_tricks):]])
        self._history_last = history[-1] if history else None
        self._trick_last = tricks[-1] if tricks else None
        return b"".join([self._shared, *kept_tricks, *kept_history])


def _continues(items: Sequence[T], known: int, last: T | None) -> bool:
    """Whether ``items`` go on from the ``known`` items converted before, the last of which was ``last``."""
    return len(items) >= known and (known == 0 or items[known - 1] == last)


def decision_to_proto(decision: DecisionRequested, options: game_pb2.TableOptions | None = None, *,
                      enumerate_discards: bool = False,
                      legal_actions_once: bool = False) -> table_service_pb2.DecisionRequest:
    """A pending decision as a ``DecisionRequest`` (``options``: the table's, converted once per stream)."""
    view = decision.view
    wire = SeatWire(convert.options_to_proto(view.game, view.options) if options is None else options,
                    enumerate_discards=enumerate_discards, legal_actions_once=legal_actions_once)
    out = table_service_pb2.DecisionRequest()
    wire.decision(decision, out)
    return out


#: Tables' facts that never change (id, game, options, clocks, commitment, creation, marks) as ``TableInfo``
#: bytes, each for as long as its table lives (weakly: a kept entry must not hold an ended table in memory).
def table_info(table: Table) -> table_service_pb2.TableInfo:
    """The public facts of an open (or recently ended) table.

    Why its fixed facts are kept as bytes: a game sends its table's facts
    five times (``CreateTable``, each seat's ``Joined``), and parsing them in
    C and writing what changes on top (status, seats, deal, scores, result)
    costs about half of building them.
    """
    fixed = table.fixed_info
    if fixed is None:
        fixed = table.fixed_info = _fixed_info(table).SerializeToString()
    info = table_service_pb2.TableInfo.FromString(fixed)
    match = table.match
    info.status = status_to_proto(table.status.value)
    seats = info.seats
    for s in table.seats:
        seats.add(seat=s.seat, name=s.name, joined=s.joined, connected=s.connected)
    if table.status is not TableStatus.WAITING:
        info.deal_number = match.deal.number
    info.scores.extend(match.scores)
    if match.result is not None:
        info.result.CopyFrom(convert.result_to_proto(match.result))
    return info


def _fixed_info(table: Table) -> table_service_pb2.TableInfo:
    """What :func:`table_info` says of ``table`` that never changes."""
    return table_service_pb2.TableInfo(
        table_id=table.id, game=convert.game_to_proto(table.game), options=options_message(table.game, table.options),
        time_control=table_service_pb2.TimeControl(decision_ms=ms(table.time_control.decision_seconds),
                                                   bank_ms=ms(table.time_control.bank_seconds)),
        seed_sha256=table.seed_sha256, created_unix_ms=ms(table.created_at), seed_chosen=table.seed_chosen,
        sealed=table.sealed)


def stored_table_info(meta: TableMeta) -> table_service_pb2.TableInfo:
    """The public facts of a stored (ended) table."""
    info = table_service_pb2.TableInfo(
        table_id=meta.id, game=convert.game_to_proto(meta.game),
        options=convert.options_to_proto(meta.game, meta.options), status=status_to_proto(meta.status),
        seats=[table_service_pb2.SeatInfo(seat=i, name=n, joined=True, connected=False)
               for i, n in enumerate(meta.names)],
        time_control=table_service_pb2.TimeControl(decision_ms=ms(meta.time_control.get("decision_seconds", 0)),
                                                   bank_ms=ms(meta.time_control.get("bank_seconds", 0))),
        seed_sha256=meta.seed_sha256, created_unix_ms=ms(meta.created_at), scores=list(meta.scores),
        seed_chosen=meta.seed_chosen, sealed=meta.sealed)
    info.result.CopyFrom(convert.result_to_proto(Result(
        status="finished" if meta.status == "finished" else "aborted",
        winners=tuple(meta.winners), scores=tuple(meta.scores), reason=meta.reason)))
    return info
