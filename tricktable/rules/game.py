"""What every game provides: the contract between a game module and the match.

A game module (``spoil_five``, ``all_fives``, ``cinq_cents``) exports one
:class:`GameRules` object. The generic :class:`tricktable.rules.match.Match` drives it:
it deals from a :class:`DeckSource`, passes the deal on, keeps the running
scores and asks the game whether the match is over. Everything a seat may
see is a :class:`SeatView`, the same shape for every game, so the server,
the SDK and the bots handle all four games with one code path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from tricktable.rules.actions import Action, Denomination
from tricktable.rules.cards import Card, Suit

if TYPE_CHECKING:  # tricktable.rules.events builds on the types of this module
    from tricktable.rules.events import ActionEvent, Event

#: A seat number, 0..players-1, clockwise.
Seat: TypeAlias = int
#: A side number, 0..len(sides)-1.
SideIndex: TypeAlias = int


@dataclass(frozen=True, slots=True, kw_only=True)
class Trick:
    """A completed (``winner`` set) or current (``winner`` None) trick."""

    leader: Seat
    cards: tuple[Card, ...]
    winner: Seat | None = None
    #: The suit named by a joker lead at no-trump (Cinq Cents), else None.
    named_suit: Suit | None = None

    def seats(self, players: int) -> tuple[Seat, ...]:
        """The seat that played each card, in order."""
        return tuple((self.leader + i) % players for i in range(len(self.cards)))

    @property
    def taken_by(self) -> Seat:
        """The seat that won this completed trick.

        Raises:
            ValueError: for a trick still being played (no winner yet).
        """
        if self.winner is None:
            raise ValueError(f"the trick led by seat {self.leader} is still being played: no one has taken it")
        return self.winner


@dataclass(frozen=True, slots=True, kw_only=True)
class Contract:
    """Cinq Cents: the declarer and their winning bid."""

    seat: Seat
    tricks: int
    denomination: Denomination


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """How a match ended: ``winners`` are sides (several on a shared win; empty when aborted)."""

    status: str  # "finished" or "aborted"
    winners: tuple[SideIndex, ...]
    scores: tuple[int, ...]
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatView:
    """Everything one seat may know, and nothing more (docs/games.md, "What each player may know").

    ``history`` is the deal's actions as typed events (:mod:`tricktable.rules.events`)
    seen by this seat: another seat's rob shows no buried card, the
    declarer's discard no cards to the others. ``legal_actions`` is non-empty
    only when this seat must act.
    """

    game: str
    options: Mapping[str, Any]
    seat: Seat
    players: int
    sides: tuple[tuple[Seat, ...], ...]
    deal_number: int
    dealer: Seat
    hand: tuple[Card, ...]
    to_act: Seat | None
    legal_actions: tuple[Action, ...]
    scores: tuple[int, ...]
    #: Points each side has scored in this deal so far (docs/games.md: what is scored when).
    deal_points: tuple[int, ...]
    trump: Suit | None = None
    no_trump: bool = False
    turn_up: Card | None = None
    #: All Fives: every card exposed in this deal, the turn-up first.
    exposed: tuple[Card, ...] = ()
    current_trick: Trick | None = None
    tricks: tuple[Trick, ...] = ()
    history: tuple[ActionEvent, ...] = ()
    #: Spoil Five family: who robbed this deal, and (to the robber only) the buried card.
    robbed_by: Seat | None = None
    buried: Card | None = None
    #: Forty-Five with jink: who declared.
    jinked_by: Seat | None = None
    #: Cinq Cents: bids so far as (seat, bid or None for a pass), the contract,
    #: and, to the declarer only, the kitty as dealt and their six discards.
    bids: tuple[tuple[Seat, tuple[int, Denomination] | None], ...] = ()
    contract: Contract | None = None
    kitty: tuple[Card, ...] = ()
    discards: tuple[Card, ...] = ()
    #: Number of cards each seat holds now (public: everyone can count).
    hand_sizes: tuple[int, ...] = ()
    result: Result | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)

    def side_of(self, seat: Seat) -> SideIndex:
        """The side a seat belongs to."""
        for index, members in enumerate(self.sides):
            if seat in members:
                return index
        raise ValueError(f"seat {seat} is in no side")


class GameConfig(Protocol):
    """A game's resolved, validated options (frozen, keyword-only)."""

    @property
    def game(self) -> str: ...
    @property
    def players(self) -> int: ...
    @property
    def sides(self) -> tuple[tuple[Seat, ...], ...]: ...
    @property
    def first_dealer(self) -> Seat | None: ...

    def to_options(self) -> dict[str, Any]:
        """Every option with its value, defaults written out, as the record stores them."""
        ...

    def deck(self) -> tuple[Card, ...]:
        """The unshuffled deck this game uses."""
        ...


class DealState(Protocol):
    """One deal, immutable: every ``apply`` returns a new state."""

    @property
    def number(self) -> int: ...
    @property
    def dealer(self) -> Seat: ...
    @property
    def to_act(self) -> Seat | None:
        """The seat that must act, or ``None`` when the deal is over."""
        ...
    @property
    def is_over(self) -> bool:
        """The deal is finished (played out, void, or cut short by a match-ending rule)."""
        ...
    @property
    def is_void(self) -> bool:
        """A void deal (all passed; pack exhausted): the same dealer deals again."""
        ...
    @property
    def points(self) -> tuple[int, ...]:
        """Points per side scored by this deal so far."""
        ...
    @property
    def events(self) -> tuple[Event, ...]:
        """What happened in this deal so far, in order, whole truth (each event's ``seen_by`` cuts it)."""
        ...

    def legal_actions(self) -> list[Action]:
        """Sorted legal actions of the seat to act; empty when the deal is over."""
        ...

    def check(self, action: Action, seat: Seat | None = None) -> None:
        """Raise :class:`rules.errors.RuleError` if ``seat`` (default: the seat to act) may not take ``action``."""
        ...

    def apply(self, action: Action, seat: Seat | None = None) -> DealState:
        """Check, then return the state after ``action``."""
        ...

    def view(self, seat: Seat, scores_before: Sequence[int]) -> SeatView:
        """What ``seat`` may know of this deal (match fields are filled from ``scores_before``)."""
        ...

    def recorded_action(self, index: int) -> dict[str, Any]:
        """The ``index``-th action as the record writes it (seat included, results such as ``exposed`` filled)."""
        ...

    def to_record(self, scores_before: Sequence[int]) -> dict[str, Any]:
        """This deal as a record deal object (docs/records.md, "A deal")."""
        ...


class GameRules(Protocol):
    """A game: its name, how options become a config, how a deal starts, how a match ends."""

    @property
    def name(self) -> str: ...

    def config(self, options: Mapping[str, Any]) -> GameConfig:
        """Validate ``options`` (unknown keys, types, ranges) and resolve the defaults.

        Raises:
            OptionsError: with a message naming the game and the bad values.
        """
        ...

    def start_deal(
        self,
        config: GameConfig,
        *,
        number: int,
        dealer: Seat,
        deck: Sequence[Card],
        scores: Sequence[int],
        redeal: bool,
    ) -> DealState:
        """Deal ``deck`` (top card first) and return the deal's first state."""
        ...

    def match_result(
        self, config: GameConfig, deal: DealState, scores: Sequence[int]
    ) -> Result | None:
        """After a deal ends (or a match-ending rule fires in one), the result, or None to play on."""
        ...
