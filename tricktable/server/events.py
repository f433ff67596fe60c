"""What a table tells its audiences, independent of the wire format.

Each seat and the spectators have their own event log with sequence numbers
from 1 (protocol: events.proto). The service converts these to protocol
messages; the table never deals in protobuf. Every payload in a log is
already cut to what that audience may know (docs/games.md, "What each player may
know").

The game's events are the rules' own (:mod:`tricktable.rules.events`), forwarded as
``apply`` returned them and cut by their ``seen_by``: after an action, the
action's event, then what the rules made of it (a contract, a trump, the
kitty, a trick, the deal scored or voided), then the next deal dealt; then
:class:`TableEnded` when the game is over. This module adds the table's own:
:class:`TableStarted`, presence (:class:`SeatJoined`,
:class:`SeatDisconnected`), :class:`ActionTimedOut` (announced just before
the action played for it) and :class:`TableEnded`. Decision requests are not
events: they have no sequence number and go only to the seat that must act,
after the events that led to them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tricktable.rules.actions import Action
from tricktable.rules.events import ActionEvent, Audience
from tricktable.rules.events import Event as GameEvent
from tricktable.rules.game import Result, Seat, SeatView

__all__ = ["ActionTimedOut", "Audience", "DecisionRequested", "Event", "EventBody", "GameEvent", "SeatDisconnected",
           "SeatJoined", "TableEnded", "TableStarted"]


@dataclass(frozen=True, slots=True, kw_only=True)
class TableStarted:
    """Every seat has joined and play begins. ``seed_sha256`` commits the server to its seed."""

    table_id: str
    game: str
    options: Mapping[str, Any]
    names: tuple[str, ...]
    seed_sha256: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatJoined:
    """A seat's client rejoined a running table (the first joins precede :class:`TableStarted`)."""

    seat: Seat
    name: str
    rejoined: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatDisconnected:
    """A seat's last stream closed; it keeps its place until ``grace_until`` (Unix seconds)."""

    seat: Seat
    grace_until: float


class DefaultReason(StrEnum):
    """Why the server played a seat's default action."""

    #: The decision's time and the seat's bank ran out.
    TIMEOUT = "timeout"
    #: The seat is away (disconnected past its grace period, or timed out several decisions in a row).
    AWAY = "away"


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionTimedOut:
    """The server plays ``action`` (as the audience sees it) for ``seat`` next, as its default, for ``reason``."""

    seat: Seat
    decision_id: int
    action: ActionEvent
    reason: DefaultReason = DefaultReason.TIMEOUT


@dataclass(frozen=True, slots=True, kw_only=True)
class TableEnded:
    """The table is over: finished or aborted (``result.reason`` says why). Nothing follows."""

    result: Result


EventBody = TableStarted | GameEvent | SeatJoined | SeatDisconnected | ActionTimedOut | TableEnded


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of an audience's log; ``time`` is Unix seconds."""

    seq: int
    time: float
    body: EventBody


@dataclass(frozen=True, slots=True, kw_only=True)
class DecisionRequested:
    """The seat must act. Not an event: sent only to that seat, when it is pending.

    ``deadline`` is a Unix time when the per-decision limit ends;
    ``bank_seconds`` is the bank left after it.
    """

    decision_id: int
    seat: Seat
    legal_actions: tuple[Action, ...]
    view: SeatView
    deadline: float
    bank_seconds: float
