"""The server's events, decisions and tables as ``tricktable.v1`` messages.

Cards, actions, options, views and results go through the one conversion
module (:mod:`protocol.convert`); this module only assembles the
server-specific messages around them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocol import convert
from protocol.generated.tricktable.v1 import events_pb2, game_pb2, table_service_pb2
from server.events import (
    ActionTaken,
    ActionTimedOut,
    ContractSet,
    DealScored,
    DealStarted,
    DealVoided,
    DecisionRequested,
    Event,
    KittyTaken,
    SeatDisconnected,
    SeatJoined,
    TableEnded,
    TableStarted,
    TrickWon,
    TrumpSet,
)
from server.storage import TableMeta
from server.tables import Table, TableStatus

_STATUSES: dict[str, table_service_pb2.TableStatus.ValueType] = {
    TableStatus.WAITING.value: table_service_pb2.TABLE_STATUS_WAITING,
    TableStatus.RUNNING.value: table_service_pb2.TABLE_STATUS_PLAYING,
    TableStatus.FINISHED.value: table_service_pb2.TABLE_STATUS_FINISHED,
    TableStatus.ABORTED.value: table_service_pb2.TABLE_STATUS_ABORTED,
}


def status_to_proto(status: str) -> table_service_pb2.TableStatus.ValueType:
    """The ``TableStatus`` of a table status name."""
    return _STATUSES[status]


def ms(seconds: float) -> int:
    """Seconds as whole milliseconds."""
    return round(seconds * 1000)


#: Converted bodies by identity: a body the table sends to several audiences is converted once.
_CACHE: dict[int, tuple[object, events_pb2.Event]] = {}
_CACHE_SIZE = 4096


def event_to_proto(event: Event, players: int) -> events_pb2.Event:
    """One log entry as an ``Event`` (already cut to its audience by the table)."""
    body = event.body
    hit = _CACHE.get(id(body))
    if hit is not None and hit[0] is body:
        out = events_pb2.Event()
        out.CopyFrom(hit[1])
    else:
        out = _body_to_proto(body, players)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        _CACHE[id(body)] = (body, out)
        out = events_pb2.Event()
        out.CopyFrom(_CACHE[id(body)][1])
    out.sequence = event.seq
    out.time_unix_ms = ms(event.time)
    return out


def _body_to_proto(body: object, players: int) -> events_pb2.Event:
    if isinstance(body, ActionTaken):
        out = convert.action_event(body.action, players=players)
        if out.WhichOneof("kind") == "robbed":
            out.robbed.taken = convert.card_to_proto(body.turn_up)
    else:
        out = events_pb2.Event()
        _fill(out, body, players)
    return out


def _fill(out: events_pb2.Event, body: object, players: int) -> None:
    if isinstance(body, TableStarted):
        out.table_started.CopyFrom(events_pb2.TableStarted(
            table_id=body.table_id, game=convert.game_to_proto(body.game),
            options=convert.options_to_proto(body.game, body.options), seat_names=list(body.names),
            seed_sha256=body.seed_sha256))
    elif isinstance(body, DealStarted):
        view = body.view
        out.deal_started.CopyFrom(events_pb2.DealStarted(
            deal_number=view.deal_number, dealer=view.dealer, redeal=body.redeal,
            hand=convert.cards_to_proto(view.hand), turn_up=convert.card_to_proto(view.turn_up),
            hand_sizes=list(view.hand_sizes), scores=list(view.scores)))
    elif isinstance(body, ContractSet):
        out.contract_set.contract.CopyFrom(convert.contract_to_proto(body.contract))
    elif isinstance(body, TrumpSet):
        out.trump_set.CopyFrom(events_pb2.TrumpSet(trump=convert.suit_to_proto(body.trump), no_trump=body.no_trump))
    elif isinstance(body, KittyTaken):
        out.kitty_taken.CopyFrom(events_pb2.KittyTaken(seat=body.seat, kitty=convert.cards_to_proto(body.kitty)))
    elif isinstance(body, TrickWon):
        out.trick_won.CopyFrom(events_pb2.TrickWon(trick_number=body.number, trick=convert.trick_to_proto(body.trick),
                                                   deal_points=list(body.deal_points)))
    elif isinstance(body, DealScored):
        scored = events_pb2.DealScored(deal_number=body.number, points=list(body.points), scores=list(body.scores))
        if body.bonus:
            scored.bonus.CopyFrom(events_pb2.Bonus(seat=int(body.bonus["seat"]), card=str(body.bonus["card"])))
        if body.contract is not None:
            scored.contract.CopyFrom(convert.contract_to_proto(body.contract))
        out.deal_scored.CopyFrom(scored)
    elif isinstance(body, DealVoided):
        out.deal_voided.CopyFrom(events_pb2.DealVoided(deal_number=body.number, reason=body.reason))
    elif isinstance(body, SeatJoined):
        out.seat_joined.CopyFrom(events_pb2.SeatJoined(seat=body.seat, name=body.name, rejoined=body.rejoined))
    elif isinstance(body, SeatDisconnected):
        out.seat_disconnected.CopyFrom(events_pb2.SeatDisconnected(seat=body.seat,
                                                                   grace_until_unix_ms=ms(body.grace_until)))
    elif isinstance(body, ActionTimedOut):
        out.action_timed_out.CopyFrom(events_pb2.ActionTimedOut(
            seat=body.seat, decision_id=str(body.decision_id), action=convert.action_dict_to_proto(body.action)))
    elif isinstance(body, TableEnded):
        out.game_ended.result.CopyFrom(convert.result_to_proto(body.result))
    else:  # pragma: no cover - every body type is handled above
        raise TypeError(f"no wire form for {type(body).__name__}")


class ViewEncoder:
    """One seat's successive views as messages, converting what repeats only once.

    A seat's view carries the whole history of the deal, so each decision
    would convert every earlier action again: the entries already converted
    are kept, and the message of every leading entry equal to one seen before
    is reused (a new deal, or any change, converts from the first difference
    on). The table's options (costly for Cinq Cents) are converted once. It
    also holds the stream's form of a discard decision (compact by default).
    """

    __slots__ = ("_entries", "_messages", "_options", "enumerate_discards")

    def __init__(self, *, enumerate_discards: bool = False) -> None:
        #: The stream asked for Cinq Cents discards as 8008 legal actions (``Join.enumerate_discards``).
        self.enumerate_discards = enumerate_discards
        self._entries: list[Mapping[str, Any]] = []
        self._messages: list[game_pb2.SeatAction] = []
        self._options: tuple[str, dict[str, Any], game_pb2.TableOptions] | None = None

    def history(self, history: Sequence[Mapping[str, Any]]) -> list[game_pb2.SeatAction]:
        """``history`` converted, entry by entry."""
        entries, messages = self._entries, self._messages
        same, limit = 0, min(len(entries), len(history))
        while same < limit and entries[same] == history[same]:
            same += 1
        del entries[same:], messages[same:]
        for entry in history[same:]:
            messages.append(convert.seat_action_to_proto(entry))
            entries.append(entry)
        return messages

    def options(self, game: str, options: Mapping[str, Any]) -> game_pb2.TableOptions:
        """``options`` of ``game`` converted (the previous message when they are equal)."""
        seen = self._options
        if seen is None or seen[0] != game or seen[1] != options:
            seen = self._options = (game, dict(options), convert.options_to_proto(game, options))
        return seen[2]


def decision_to_proto(decision: DecisionRequested,
                      encoder: ViewEncoder | None = None) -> table_service_pb2.DecisionRequest:
    """A pending decision as a ``DecisionRequest`` (``encoder``: the seat's, to convert less).

    A Cinq Cents discard goes as a ``DiscardChoice`` (in the request and its
    view) unless the encoder's stream asked to enumerate discards.
    """
    view = decision.view
    enumerate_discards = encoder is not None and encoder.enumerate_discards
    choice = None if enumerate_discards else convert.discard_choice_to_proto(decision.legal_actions)
    legal = [] if choice is not None else convert.legal_actions_to_proto(decision.legal_actions)
    same = view.legal_actions is decision.legal_actions or view.legal_actions == decision.legal_actions
    view_message = convert.view_to_proto(
        view, history=None if encoder is None else encoder.history(view.history),
        options=None if encoder is None else encoder.options(view.game, view.options),
        legal_actions=[item.action for item in legal] if same and choice is None else None,
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
        scores=list(match.scores))
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
        seed_sha256=meta.seed_sha256, created_unix_ms=ms(meta.created_at), scores=list(meta.scores))
    info.result.CopyFrom(game_pb2.Result(
        status=game_pb2.RESULT_STATUS_FINISHED if meta.status == "finished" else game_pb2.RESULT_STATUS_ABORTED,
        winners=meta.winners, scores=meta.scores, reason=meta.reason))
    return info
