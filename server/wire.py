"""The server's events, decisions and tables as ``tricktable.v1`` messages.

Cards, actions, options, views and results go through the one conversion
module (:mod:`protocol.convert`); this module only assembles the
server-specific messages around them.
"""

from __future__ import annotations

from protocol import convert
from protocol.generated.tricktable.v1 import events_pb2, game_pb2, table_service_pb2
from rules.game import Result
from server.events import (
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
from server.storage import TableMeta
from server.tables import Table, TableStatus

_STATUSES = convert.by_name(TableStatus, table_service_pb2.TableStatus, "TABLE_STATUS")[0]
#: Why a default was played, on the wire.
_DEFAULT_REASONS = convert.by_name(DefaultReason, events_pb2.DefaultReason, "DEFAULT_REASON")[0]


def status_to_proto(status: str) -> table_service_pb2.TableStatus.ValueType:
    """The ``TableStatus`` of a table status name."""
    return _STATUSES[TableStatus(status)]


def ms(seconds: float) -> int:
    """Seconds as whole milliseconds."""
    return round(seconds * 1000)


def event_to_proto(event: Event) -> events_pb2.Event:
    """One log entry as an ``Event`` (already cut to its audience by the table)."""
    out = _body_to_proto(event.body)
    out.sequence = event.seq
    out.time_unix_ms = ms(event.time)
    return out


def _body_to_proto(body: EventBody) -> events_pb2.Event:
    """The table's own events here; the game's go through :func:`protocol.convert.event_to_proto`."""
    out = events_pb2.Event()
    if isinstance(body, TableStarted):
        out.table_started.CopyFrom(events_pb2.TableStarted(
            table_id=body.table_id, game=convert.game_to_proto(body.game),
            options=convert.options_to_proto(body.game, body.options), seat_names=list(body.names),
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


def decision_to_proto(decision: DecisionRequested, options: game_pb2.TableOptions | None = None, *,
                      enumerate_discards: bool = False) -> table_service_pb2.DecisionRequest:
    """A pending decision as a ``DecisionRequest`` (``options``: the table's, converted once per stream).

    A Cinq Cents discard goes as a ``DiscardChoice`` (in the request and its
    view) unless the stream asked to enumerate discards (``Join.enumerate_discards``).
    """
    view = decision.view
    choice = None if enumerate_discards else convert.discard_choice_to_proto(decision.legal_actions)
    legal = [] if choice is not None else convert.legal_actions_to_proto(decision.legal_actions)
    same = view.legal_actions is decision.legal_actions or view.legal_actions == decision.legal_actions
    view_message = convert.view_to_proto(
        view, options=options, legal_actions=[item.action for item in legal] if same and choice is None else None,
        enumerate_discards=enumerate_discards)
    return table_service_pb2.DecisionRequest(
        decision_id=str(decision.decision_id), legal_actions=legal, discard_choice=choice,
        deadline_unix_ms=ms(decision.deadline), time_bank_ms=ms(decision.bank_seconds), view=view_message)


def table_info(table: Table) -> table_service_pb2.TableInfo:
    """The public facts of an open (or recently ended) table."""
    match = table.match
    info = table_service_pb2.TableInfo(
        table_id=table.id, game=convert.game_to_proto(table.game),
        options=convert.options_to_proto(table.game, table.options), status=status_to_proto(table.status.value),
        seats=[table_service_pb2.SeatInfo(seat=s.seat, name=s.name, joined=s.joined, connected=s.connected)
               for s in table.seats],
        time_control=table_service_pb2.TimeControl(decision_ms=ms(table.time_control.decision_seconds),
                                                   bank_ms=ms(table.time_control.bank_seconds)),
        seed_sha256=table.seed_sha256, created_unix_ms=ms(table.created_at),
        deal_number=match.deal.number if table.status is not TableStatus.WAITING else 0,
        scores=list(match.scores), seed_chosen=table.seed_chosen, sealed=table.sealed)
    if match.result is not None:
        info.result.CopyFrom(convert.result_to_proto(match.result))
    return info


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
