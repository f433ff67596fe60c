"""What happened: the typed, past-tense events a step of the rules causes, and who may see what of them.

``Match.apply`` returns the next match, whose :attr:`tricktable.rules.match.Match.events`
are the events that step caused, in order: the action's own event (a card
played, a rob, a bid...), then what the rules made of it (a contract, a trump,
the kitty taken, a trick won, the deal scored or voided), then the next deal
dealt. Each game's ``apply`` writes them as they happen, so nobody has to
work them out again by comparing views.

Every event holds the whole truth; :meth:`seen_by` gives what one audience
(a seat, or ``None`` for the spectators) may know of it (docs/games.md, "What each
player may know"): another seat's buried card, the declarer's kitty and
discards, and other seats' hands read ``None``. ``SeatView.history`` is the
deal's action events as that seat sees them. Dicts exist only in records
(:mod:`tricktable.rules.record`); the wire has one message per event
(:mod:`tricktable.protocol.convert`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, TypeAlias

from tricktable.rules.actions import (
    Action,
    Beg,
    Bid,
    Denomination,
    Discard,
    Gift,
    Jink,
    Pass,
    PassJink,
    PassRob,
    Play,
    Rob,
    Run,
    Stand,
)
from tricktable.rules.cards import Card, Suit
from tricktable.rules.frozen import evolve
from tricktable.rules.game import Contract, Seat, Trick

#: Who is told: a seat, or None for the spectators.
Audience: TypeAlias = Seat | None


@dataclass(frozen=True, slots=True, kw_only=True)
class DealStarted:
    """A deal was dealt. ``hands`` (sorted) holds every seat's hand; seen by a seat, its own only."""

    number: int
    dealer: Seat
    redeal: bool
    turn_up: Card | None
    scores: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    hands: Mapping[Seat, tuple[Card, ...]]

    def seen_by(self, audience: Audience) -> DealStarted:
        """Only the audience's own hand (none for the spectators)."""
        own = {} if audience is None else {audience: self.hands[audience]}
        return evolve(self, hands=own)


@dataclass(frozen=True, slots=True, kw_only=True)
class CardPlayed:
    """A seat played a card; ``named_suit`` when a joker was led at no-trump (Cinq Cents)."""

    action_type: ClassVar[str] = Play.type
    seat: Seat
    card: Card
    named_suit: Suit | None = None

    @property
    def action(self) -> Action:
        """The action that caused it."""
        return Play(card=self.card, suit=self.named_suit)

    def seen_by(self, audience: Audience) -> CardPlayed:
        """Public."""
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class Robbed:
    """A seat robbed: took the turn-up (``taken``, public) and buried a card (``buried``: the robber's alone)."""

    action_type: ClassVar[str] = Rob.type
    seat: Seat
    taken: Card
    buried: Card | None

    @property
    def action(self) -> Action | None:
        """The action that caused it; None when the buried card is hidden from this audience."""
        return None if self.buried is None else Rob(card=self.buried)

    def seen_by(self, audience: Audience) -> Robbed:
        """That a seat robbed is public; the buried card is known to the robber alone (docs/games.md 1.4)."""
        return self if audience == self.seat else evolve(self, buried=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class RobPassed:
    """The dealer, with the ace of trumps turned up, did not rob."""

    action_type: ClassVar[str] = PassRob.type
    seat: Seat

    @property
    def action(self) -> Action:
        """The action that caused it."""
        return PassRob()

    def seen_by(self, audience: Audience) -> RobPassed:
        """Public."""
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class Jinked:
    """Forty-Five: a seat declared its side would take all five tricks."""

    action_type: ClassVar[str] = Jink.type
    seat: Seat

    @property
    def action(self) -> Action:
        """The action that caused it."""
        return Jink()

    def seen_by(self, audience: Audience) -> Jinked:
        """Public."""
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class JinkPassed:
    """Forty-Five: a seat did not declare."""

    action_type: ClassVar[str] = PassJink.type
    seat: Seat

    @property
    def action(self) -> Action:
        """The action that caused it."""
        return PassJink()

    def seen_by(self, audience: Audience) -> JinkPassed:
        """Public."""
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class Stood:
    """All Fives: eldest hand accepted the proposed trump."""

    action_type: ClassVar[str] = Stand.type
    seat: Seat

    @property
    def action(self) -> Action:
        """The action that caused it."""
        return Stand()

    def seen_by(self, audience: Audience) -> Stood:
        """Public."""
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class Begged:
    """All Fives: eldest hand asked for another trump."""

    action_type: ClassVar[str] = Beg.type
    seat: Seat

    @property
    def action(self) -> Action:
        """The action that caused it."""
        return Beg()

    def seen_by(self, audience: Audience) -> Begged:
        """Public."""
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class Gifted:
    """All Fives: the dealer gave ``receiver`` (eldest hand) one point; the trump stays."""

    action_type: ClassVar[str] = Gift.type
    seat: Seat
    receiver: Seat

    @property
    def action(self) -> Action:
        """The action that caused it."""
        return Gift()

    def seen_by(self, audience: Audience) -> Gifted:
        """Public."""
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class PackRun:
    """All Fives: the dealer ran the pack, turning ``exposed`` (public)."""

    action_type: ClassVar[str] = Run.type
    seat: Seat
    exposed: tuple[Card, ...]

    @property
    def action(self) -> Action:
        """The action that caused it, as the record writes it (with the cards it turned)."""
        return Run(exposed=self.exposed)

    def seen_by(self, audience: Audience) -> PackRun:
        """Public."""
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class BidMade:
    """Cinq Cents: a seat bid ``tricks`` in ``denomination``."""

    action_type: ClassVar[str] = Bid.type
    seat: Seat
    tricks: int
    denomination: Denomination

    @property
    def action(self) -> Action:
        """The action that caused it."""
        return Bid(tricks=self.tricks, denomination=self.denomination)

    def seen_by(self, audience: Audience) -> BidMade:
        """Public."""
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class Passed:
    """Cinq Cents: a seat passed in the auction."""

    action_type: ClassVar[str] = Pass.type
    seat: Seat

    @property
    def action(self) -> Action:
        """The action that caused it."""
        return Pass()

    def seen_by(self, audience: Audience) -> Passed:
        """Public."""
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class Discarded:
    """Cinq Cents: the declarer discarded six cards (``cards``: the declarer's alone)."""

    action_type: ClassVar[str] = Discard.type
    seat: Seat
    cards: tuple[Card, ...] | None

    @property
    def action(self) -> Action | None:
        """The action that caused it; None when the cards are hidden from this audience."""
        return None if self.cards is None else Discard(cards=self.cards)

    def seen_by(self, audience: Audience) -> Discarded:
        """That the declarer discarded is public; the cards are not (docs/games.md, "What each player may know")."""
        return self if audience == self.seat else evolve(self, cards=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractSet:
    """Cinq Cents: the auction ended with a contract."""

    contract: Contract

    def seen_by(self, audience: Audience) -> ContractSet:
        """Public."""
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class TrumpSet:
    """The trump of this deal's play became known (or changed: All Fives' run)."""

    trump: Suit | None
    no_trump: bool = False

    def seen_by(self, audience: Audience) -> TrumpSet:
        """Public."""
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class KittyTaken:
    """Cinq Cents: the declarer took the kitty (``kitty``: the declarer's alone)."""

    seat: Seat
    kitty: tuple[Card, ...] | None

    def seen_by(self, audience: Audience) -> KittyTaken:
        """That the declarer took it is public; its cards are not."""
        return self if audience == self.seat else evolve(self, kitty=None)


@dataclass(frozen=True, slots=True, kw_only=True)
class TrickWon:
    """A trick is complete (``number`` from 1 within the deal); ``deal_points`` are the deal's points after it."""

    number: int
    trick: Trick
    deal_points: tuple[int, ...]

    def seen_by(self, audience: Audience) -> TrickWon:
        """Public."""
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class DealScored:
    """A deal is over and scored: points per side and the running totals."""

    number: int
    points: tuple[int, ...]
    scores: tuple[int, ...]
    #: Forty-Five: the seat that played the highest trump, and that trump; else None.
    bonus: tuple[Seat, Card] | None = None
    #: Cinq Cents: the contract played.
    contract: Contract | None = None

    def seen_by(self, audience: Audience) -> DealScored:
        """Public."""
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class DealVoided:
    """A deal was void; the same dealer deals again."""

    number: int

    @property
    def reason(self) -> str:
        """Why, in words."""
        return f"deal {self.number} is void; the same dealer deals again"

    def seen_by(self, audience: Audience) -> DealVoided:
        """Public."""
        return self


#: An event a seat's action causes first: what the seat did.
ActionEvent: TypeAlias = (CardPlayed | Robbed | RobPassed | Jinked | JinkPassed | Stood | Begged | Gifted | PackRun
                          | BidMade | Passed | Discarded)
#: Every event of the rules.
Event: TypeAlias = (DealStarted | ActionEvent | ContractSet | TrumpSet | KittyTaken | TrickWon | DealScored
                    | DealVoided)

ACTION_EVENTS: tuple[type[ActionEvent], ...] = (CardPlayed, Robbed, RobPassed, Jinked, JinkPassed, Stood, Begged,
                                               Gifted, PackRun, BidMade, Passed, Discarded)


def event_of(seat: Seat, action: Action, *, turn_up: Card | None = None, eldest: Seat | None = None) -> ActionEvent:
    """The event of ``seat`` taking ``action``: the one mapping from actions to events (the inverse of ``.action``).

    ``turn_up`` is what a rob takes; ``eldest`` receives a gift.

    Raises:
        ValueError: a rob without the turn-up, or a gift without eldest hand.
    """
    match action:
        case Play():
            return CardPlayed(seat=seat, card=action.card, named_suit=action.suit)
        case Rob():
            if turn_up is None:
                raise ValueError("a rob takes the turn-up: give turn_up")
            return Robbed(seat=seat, taken=turn_up, buried=action.card)
        case Gift():
            if eldest is None:
                raise ValueError("a gift goes to eldest hand: give eldest")
            return Gifted(seat=seat, receiver=eldest)
        case Run():
            return PackRun(seat=seat, exposed=action.exposed or ())
        case Bid():
            return BidMade(seat=seat, tricks=action.tricks, denomination=action.denomination)
        case Discard():
            return Discarded(seat=seat, cards=action.cards)
        case _:
            return _BARE[type(action)](seat=seat)


#: The events of actions without fields.
_BARE: dict[type[Action], type[RobPassed | Jinked | JinkPassed | Stood | Begged | Passed]] = {
    PassRob: RobPassed, Jink: Jinked, PassJink: JinkPassed, Stand: Stood, Beg: Begged, Pass: Passed,
}


def history_seen_by(events: tuple[Event, ...], audience: Audience) -> tuple[ActionEvent, ...]:
    """The action events of ``events``, as ``audience`` sees them (``SeatView.history``)."""
    return tuple(e.seen_by(audience) for e in events if isinstance(e, ACTION_EVENTS))
