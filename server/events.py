"""What a table tells its audiences, independent of the wire format.

Each seat and the spectators have their own event log with sequence numbers
from 1 (protocol: events.proto). The service converts these to protocol
messages; the table never deals in protobuf. Every payload in a log is
already cut to what that audience may know (rules.md, "What each player may
know"): actions come in the form the audience's own view shows them, views
are the audience's.

Order after an action: the action, then what the rules made of it
(:class:`ContractSet`, :class:`TrumpSet`, :class:`KittyTaken`,
:class:`TrickWon`, :class:`DealScored` or :class:`DealVoided`), then the
next :class:`DealStarted` or :class:`TableEnded`. A timed-out decision is
announced by :class:`ActionTimedOut` just before the action played for it.
Decision requests are not events: they have no sequence number and go only
to the seat that must act, after the events that led to them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.actions import Action
from rules.cards import Card, Suit
from rules.game import Contract, Result, Seat, SeatView, Trick

#: An audience: a seat number, or None for the spectators.
Audience = Seat | None


@dataclass(frozen=True, slots=True, kw_only=True)
class TableStarted:
    """Every seat has joined and play begins. ``seed_sha256`` commits the server to its seed."""

    table_id: str
    game: str
    options: Mapping[str, Any]
    names: tuple[str, ...]
    seed_sha256: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DealStarted:
    """A deal was dealt; ``view`` is the audience's view of it (its own hand only)."""

    view: SeatView
    redeal: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionTaken:
    """A seat acted. ``action`` is the record form as the audience may see it (seat included).

    ``turn_up`` and ``dealer`` are the deal's public context (a rob takes the
    turn-up; a gift goes to the dealer's left).
    """

    seat: Seat
    action: Mapping[str, Any]
    turn_up: Card | None
    dealer: Seat


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractSet:
    """Cinq Cents: the auction ended with a contract."""

    contract: Contract


@dataclass(frozen=True, slots=True, kw_only=True)
class TrumpSet:
    """The trump for this deal's play is known (or changed, All Fives' run)."""

    trump: Suit | None
    no_trump: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class KittyTaken:
    """Cinq Cents: the declarer took the kitty; ``kitty`` is empty for everyone but the declarer."""

    seat: Seat
    kitty: tuple[Card, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TrickWon:
    """A trick is complete (``number`` from 1 within the deal)."""

    number: int
    trick: Trick
    deal_points: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class DealScored:
    """A deal is over and scored: points per side and the running totals."""

    number: int
    points: tuple[int, ...]
    scores: tuple[int, ...]
    #: Forty-Five: ``{"seat": s, "card": c}`` of the highest trump played, as the record writes it.
    bonus: Mapping[str, Any] | None
    contract: Contract | None


@dataclass(frozen=True, slots=True, kw_only=True)
class DealVoided:
    """A deal was void; the same dealer deals again."""

    number: int
    reason: str


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


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionTimedOut:
    """A seat's clock ran out; ``action`` (audience form) is played for it next."""

    seat: Seat
    decision_id: int
    action: Mapping[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class TableEnded:
    """The table is over: finished or aborted (``result.reason`` says why). Nothing follows."""

    result: Result


EventBody = (TableStarted | DealStarted | ActionTaken | ContractSet | TrumpSet | KittyTaken | TrickWon
             | DealScored | DealVoided | SeatJoined | SeatDisconnected | ActionTimedOut | TableEnded)


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
