"""Cinq Cents québécois (Quebec 500), docs/games.md section 3.

Rule choices, each with the docs/games.md section that rules it:

- 4 players only, two sides: seats 0 and 2 (side 0) against 1 and 3 (side 1) (3.1).
- The 46-card deck: no 2s or 3s, plus La Blanche ``JKB`` and Le Fou ``JKF`` (3.1).
- Target 1000 (option ``target``) (3.1).
- Deal 3 each, 3 to the kitty, 4 each, 3 each, 3 to the kitty, eldest hand first
  and the dealer last in each round (3.2; common rules).
- One round of bidding from eldest hand clockwise to the dealer; each seat bids
  once or passes; a bid is 6 to 10 tricks in S < C < D < H < NT and must be
  strictly higher than the highest so far: more tricks, or as many in a higher
  denomination; an equal bid is refused (3.3). The ladder is fixed whatever the
  ``bid_values`` table says (3.6, last ruling).
- All four pass: the deal is void (trump and contract null, points zero) and
  the same dealer deals again; the match marks the next deal ``redeal`` (3.3;
  common rules; docs/records.md "A void deal").
- The highest bidder is declarer and their bid the contract; they take the
  kitty at once (the end of the bidding) and then discard any six of their 16
  cards in one ``discard`` action (3.3). Jokers and trumps may be discarded:
  docs/games.md sets no limit.
- The declarer leads the first trick (3.5).
- Trumps high to low: JKB, JKF, J of trump (first bower), J of the same colour
  (second bower), A K Q 10 9 8 7 6 5 4 of trump; the jokers and second bower
  are trumps for following and leading in every respect; plain suits rank
  A K Q J 10 ... 4 and lose the second bower (3.4).
- Following: a seat holding the suit led must follow (a trump lead is followed
  by any trump, jokers and second bower included); otherwise any card, with no
  duty to trump (3.5).
- No-trump: jokers belong to no suit and beat every card, JKB over JKF; a joker
  may be played only when its holder cannot follow, or led naming (``suit``) a
  suit that an earlier trick of the deal was led with by a card of that suit,
  hence never on the first trick; the others follow the named suit; a trick
  with a joker goes to the highest joker (3.4, 3.5). ``suit`` is refused on any
  other play (BAD_NAMED_SUIT).
- Scoring at the end of the deal only: contract made (declarer's side won at
  least the bid's tricks) scores the bid's value, failed loses it (no floor);
  the other side scores 10 a trick; no slam bonus (3.6).
- After each deal, a side that reached the target wins; when both reached it,
  the declarer's side wins (3.6).
- Options: ``players`` (4), ``target`` (1000), ``first_dealer`` (seat or null,
  common rules) and ``bid_values`` (the 3.3 table, a JSON object keyed "6" to
  "10", each keyed S, C, D, H, NT) (3.6 ruling). Our rulings where docs/games.md is
  silent: table values must be non-negative integers (a negative value would
  turn a made contract into a loss); the option may also be given as JSON text,
  and is always written back as an object.
- Refusals (common rules: refused, state unchanged), with the code chosen where
  two could apply: a joker led at no-trump on the first trick is
  JOKER_NOT_ALLOWED whatever suit it names; a later joker lead naming no suit,
  or a suit not yet led, is BAD_NAMED_SUIT; ``suit`` on any other play is
  BAD_NAMED_SUIT; a joker played at no-trump while able to follow is
  JOKER_NOT_ALLOWED, any other failure to follow MUST_FOLLOW_SUIT; an action of
  the wrong kind for the step, or on a finished deal, is WRONG_PHASE.
- ``legal_actions()``: the higher bids low to high, then ``Pass``; at the
  discard every one of the C(16, 6) = 8008 six-card discards; in play one
  ``Play`` per legal card, and for a joker lead at no-trump one per suit it may
  name.
- Record: a deal writes ``kitty`` (six cards as dealt) and omits ``turn_up``,
  which Cinq Cents has none of (docs/records.md, "A deal"); ``trump`` is S, C,
  D, H or NT; ``contract`` is ``{"seat", "tricks", "suit"}``, null on a void deal.
- Privacy: the kitty (once taken) and the six discards are shown to the
  declarer only; the others see that a discard happened, not its cards
  (docs/games.md, "What each player may know").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from tricktable.rules.actions import Action, Bid, Denomination, Discard, Pass, Play, discards_of, require_action
from tricktable.rules.cards import Card, Suit, cinq_cents_deck, codes
from tricktable.rules.cinq_cents_bids import GAME, LADDER, MAX_TRICKS, MIN_TRICKS, STANDARD_TABLE, BidTable, is_higher
from tricktable.rules.cinq_cents_play import led_suit, legal_plays, play_error, strength
from tricktable.rules.dealing import Step, deal
from tricktable.rules.errors import ErrorCode, OptionsError, RuleError
from tricktable.rules.events import (
    ContractSet,
    DealScored,
    DealVoided,
    Event,
    KittyTaken,
    TrickWon,
    TrumpSet,
    event_of,
    history_seen_by,
)
from tricktable.rules.frozen import evolve
from tricktable.rules.game import Contract, DealState, GameConfig, GameRules, Result, Seat, SeatView, Trick
from tricktable.rules.record import action_to_json
from tricktable.rules.tricks import next_to_play, remove_card, trick_winner

PLAYERS = 4
SIDES: tuple[tuple[Seat, ...], ...] = ((0, 2), (1, 3))
#: docs/games.md 3.2: 3 each, 3 to the kitty, 4 each, 3 each, 3 to the kitty.
DEAL_PATTERN: tuple[Step, ...] = (3, ("kitty", 3), 4, 3, ("kitty", 3))
HAND_SIZE = 10
DISCARD_SIZE = 6
TRICKS_PER_DEAL = 10
POINTS_PER_TRICK = 10
OPTION_NAMES = ("players", "target", "first_dealer", "bid_values")


@dataclass(frozen=True, slots=True, kw_only=True)
class CinqCentsConfig:
    """Resolved, validated Cinq Cents options. Build it with :meth:`from_options`."""

    players: int = PLAYERS
    target: int = 1000
    first_dealer: Seat | None = None
    bid_values: BidTable = STANDARD_TABLE

    @property
    def game(self) -> str:
        """Always ``cinq_cents``."""
        return GAME

    @property
    def sides(self) -> tuple[tuple[Seat, ...], ...]:
        """Seats 0 and 2 against 1 and 3 (docs/games.md 3.1)."""
        return SIDES

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> CinqCentsConfig:
        """Validate table options and resolve defaults.

        Raises:
            OptionsError: unknown option, or a value of the wrong type or range, with an exact message.
        """
        unknown = sorted(k for k in options if k not in OPTION_NAMES)
        if unknown:
            raise OptionsError(f"{GAME}: unknown option {', '.join(repr(k) for k in unknown)} "
                               f"(options: {', '.join(OPTION_NAMES)})")
        players = options.get("players", PLAYERS)
        if not _is_int(players) or players != PLAYERS:
            raise OptionsError(f"{GAME}: players must be 4, not {players!r}")
        target = options.get("target", 1000)
        if not _is_int(target) or target < 1:
            raise OptionsError(f"{GAME}: target must be a positive integer, not {target!r}")
        first = options.get("first_dealer")
        if first is not None and (not _is_int(first) or not 0 <= first < PLAYERS):
            raise OptionsError(f"{GAME}: first_dealer must be a seat 0 to 3 or null, not {first!r}")
        raw_values = options.get("bid_values")
        table = STANDARD_TABLE if raw_values is None else BidTable.from_json(raw_values)
        return cls(players=players, target=target, first_dealer=first, bid_values=table)

    def to_options(self) -> dict[str, Any]:
        """Every option, defaults written out; ``bid_values`` in its JSON form."""
        return {"players": self.players, "target": self.target, "first_dealer": self.first_dealer,
                "bid_values": self.bid_values.to_json()}

    def deck(self) -> tuple[Card, ...]:
        """The 46-card deck (docs/games.md 3.1)."""
        return cinq_cents_deck()


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Phase(StrEnum):
    """Steps of a deal."""

    BIDDING = "bidding"
    DISCARD = "discard"
    PLAY = "play"
    OVER = "over"


@dataclass(frozen=True, slots=True, kw_only=True)
class CinqCentsDeal:
    """One Cinq Cents deal, immutable. Start it with :meth:`start`; ``apply`` returns the next state."""

    config: CinqCentsConfig
    number: int
    dealer: Seat
    redeal: bool
    deck: tuple[Card, ...]
    #: Hands as dealt, before the kitty, and the kitty as dealt.
    dealt: tuple[tuple[Card, ...], ...]
    kitty: tuple[Card, ...]
    #: Hands now.
    hands: tuple[tuple[Card, ...], ...]
    phase: Phase = Phase.BIDDING
    #: Bids in order: (seat, bid) or (seat, None) for a pass.
    bids: tuple[tuple[Seat, Bid | None], ...] = ()
    contract: Contract | None = None
    discards: tuple[Card, ...] = ()
    tricks: tuple[Trick, ...] = ()
    current: Trick | None = None
    actions: tuple[tuple[Seat, Action], ...] = ()
    points: tuple[int, ...] = field(default=(0, 0))
    #: Side totals before this deal.
    scores_before: tuple[int, ...] = field(default=(0, 0))
    #: What happened in this deal so far, in order (:mod:`tricktable.rules.events`).
    events: tuple[Event, ...] = ()

    @classmethod
    def start(cls, config: CinqCentsConfig, *, number: int, dealer: Seat, deck: Sequence[Card],
              redeal: bool = False, scores: Sequence[int] = (0, 0)) -> CinqCentsDeal:
        """Deal ``deck`` (top card first) by the 3.2 pattern.

        Raises:
            ValueError: when ``deck`` is not the 46 cards of the Cinq Cents deck.
        """
        cards = tuple(deck)
        if sorted(cards) != sorted(config.deck()):
            raise ValueError(f"{GAME}: a deal needs the 46 cards of the Cinq Cents deck, each once")
        dealt = deal(cards, PLAYERS, dealer, DEAL_PATTERN)
        return cls(config=config, number=number, dealer=dealer, redeal=redeal, deck=cards,
                   dealt=dealt.hands, kitty=dealt.kitty, hands=dealt.hands, scores_before=tuple(scores))

    # --- state -----------------------------------------------------------

    @property
    def to_act(self) -> Seat | None:
        """The seat that must act, or ``None`` once the deal is over."""
        if self.phase is Phase.BIDDING:
            return (self.dealer + 1 + len(self.bids)) % PLAYERS
        if self.phase is Phase.DISCARD:
            return self.settled_contract.seat
        if self.phase is Phase.PLAY:
            return next_to_play(self.trick_in_play, PLAYERS)
        return None

    @property
    def settled_contract(self) -> Contract:
        """The contract, from the end of the bidding on.

        Raises:
            RuleError: ``WRONG_PHASE`` while the bidding is on or after all passed (there is no contract).
        """
        if self.contract is None:
            raise RuleError(ErrorCode.WRONG_PHASE, f"deal {self.number} has no contract: the bidding made none")
        return self.contract

    @property
    def trick_in_play(self) -> Trick:
        """The trick being played (its leader known, maybe no card yet).

        Raises:
            RuleError: ``WRONG_PHASE`` before the play or once the last trick is taken.
        """
        if self.current is None:
            raise RuleError(ErrorCode.WRONG_PHASE, f"deal {self.number} has no trick in play")
        return self.current

    @property
    def is_over(self) -> bool:
        """Played out, or void because all passed."""
        return self.phase is Phase.OVER

    @property
    def is_void(self) -> bool:
        """All four passed (docs/games.md 3.3): the same dealer deals again."""
        return self.phase is Phase.OVER and self.contract is None

    @property
    def trump(self) -> Suit | None:
        """The contract's trump suit; ``None`` at no-trump or before the contract."""
        return None if self.contract is None else self.contract.denomination.suit

    @property
    def highest_bid(self) -> Bid | None:
        """The highest bid so far, or ``None`` when all who spoke passed."""
        made = [b for _, b in self.bids if b is not None]
        return made[-1] if made else None

    def tricks_won(self) -> tuple[int, ...]:
        """Completed tricks won by each side."""
        won = [0, 0]
        for t in self.tricks:
            won[t.taken_by % 2] += 1
        return tuple(won)

    # --- actions ---------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """Sorted legal actions of the seat to act (bids then pass; the C(16,6) discards; plays by card)."""
        seat = self.to_act
        if seat is None:
            return []
        if self.phase is Phase.BIDDING:
            high = self.highest_bid
            bids: list[Action] = [b for b in LADDER if is_higher(b, high)]
            return [*bids, Pass()]
        if self.phase is Phase.DISCARD:
            return list(discards_of(self.hands[seat], DISCARD_SIZE))
        plays: list[Action] = list(legal_plays(self.hands[seat], self.trick_in_play, self.trump, self.tricks, seat))
        return plays

    def _acting(self) -> Seat:
        """The seat to act; once the deal is over every action is refused (``WRONG_PHASE``)."""
        to_act = self.to_act
        if to_act is None:
            raise RuleError(ErrorCode.WRONG_PHASE, f"deal {self.number} is over")
        return to_act

    def check(self, action: Action, seat: Seat | None = None) -> None:
        """Raise :class:`RuleError` unless ``seat`` (default: the seat to act) may take ``action`` now.

        Codes: WRONG_PHASE, NOT_YOUR_TURN, MALFORMED_ACTION, BID_OUT_OF_RANGE,
        BID_TOO_LOW, BAD_DISCARD, CARD_NOT_IN_HAND, BAD_NAMED_SUIT,
        JOKER_NOT_ALLOWED, MUST_FOLLOW_SUIT.
        """
        require_action(action)
        to_act = self._acting()
        if seat is not None and seat != to_act:
            raise RuleError(ErrorCode.NOT_YOUR_TURN, f"it is seat {to_act}'s turn, not seat {seat}'s")
        if self.phase is Phase.BIDDING:
            self._check_bidding(action)
        elif self.phase is Phase.DISCARD:
            self._check_discard(action, to_act)
        else:
            self._check_play(action, to_act)

    def _check_bidding(self, action: Action) -> None:
        if isinstance(action, Pass):
            return
        if not isinstance(action, Bid):
            raise RuleError(ErrorCode.WRONG_PHASE, f"the bidding is on: bid or pass, not {action.type}")
        if not _is_int(action.tricks) or not isinstance(action.denomination, Denomination):
            raise RuleError(ErrorCode.MALFORMED_ACTION,
                            f"a bid needs an integer 'tricks' and a denomination, not {action!r}")
        if not MIN_TRICKS <= action.tricks <= MAX_TRICKS:
            raise RuleError(ErrorCode.BID_OUT_OF_RANGE, f"a bid is 6 to 10 tricks, not {action.tricks}")
        high = self.highest_bid
        if high is not None and not is_higher(action, high):
            raise RuleError(
                ErrorCode.BID_TOO_LOW,
                f"{_bid_text(action)} is not higher than the highest bid so far, {_bid_text(high)}: "
                f"bid more tricks, or as many in a higher denomination",
            )

    def _check_discard(self, action: Action, seat: Seat) -> None:
        if not isinstance(action, Discard):
            raise RuleError(ErrorCode.WRONG_PHASE,
                            f"the declarer must discard six cards now, not {action.type}")
        items = action.cards
        if not isinstance(items, tuple) or not all(isinstance(c, Card) for c in items):
            raise RuleError(ErrorCode.MALFORMED_ACTION, f"a discard is a tuple of cards, not {items!r}")
        if len(items) != DISCARD_SIZE:
            raise RuleError(ErrorCode.BAD_DISCARD, f"the declarer discards exactly six cards, not {len(items)}")
        twice = sorted({c for c in items if items.count(c) > 1})
        if twice:
            raise RuleError(ErrorCode.BAD_DISCARD, f"the discard names {', '.join(codes(twice))} more than once")
        missing = [c for c in items if c not in self.hands[seat]]
        if missing:
            raise RuleError(ErrorCode.BAD_DISCARD,
                            f"the discard names {', '.join(codes(missing))}, not in seat {seat}'s hand")

    def _check_play(self, action: Action, seat: Seat) -> None:
        if not isinstance(action, Play):
            raise RuleError(ErrorCode.WRONG_PHASE, f"the play is on: play a card, not {action.type}")
        if not isinstance(action.card, Card) or not (action.suit is None or isinstance(action.suit, Suit)):
            raise RuleError(ErrorCode.MALFORMED_ACTION, f"a play needs a card and at most a suit, not {action!r}")
        error = play_error(action, self.hands[seat], self.trick_in_play, self.trump, self.tricks, seat)
        if error is not None:
            raise error

    def apply(self, action: Action, seat: Seat | None = None) -> CinqCentsDeal:
        """Check ``action``, then return the state after it.

        Raises:
            RuleError: the action is refused; this state is unchanged (it is immutable anyway).
        """
        self.check(action, seat)
        actor = self._acting()
        logged = evolve(self, actions=(*self.actions, (actor, action)))
        if isinstance(action, Pass | Bid):
            return logged._after_bid(actor, action if isinstance(action, Bid) else None)
        if isinstance(action, Discard):
            return logged._after_discard(actor, action)
        if isinstance(action, Play):
            return logged._after_play(actor, action)
        raise RuleError(ErrorCode.WRONG_PHASE, f"{action.type} is not a Cinq Cents action")

    def _after_bid(self, seat: Seat, bid: Bid | None) -> CinqCentsDeal:
        bids = (*self.bids, (seat, bid))
        events = (*self.events, event_of(seat, Pass() if bid is None else bid))
        if len(bids) < PLAYERS:
            return evolve(self, bids=bids, events=events)
        made = [(s, b) for s, b in bids if b is not None]
        if not made:
            # docs/games.md 3.3: all four passed; the deal is void and the same dealer deals again.
            return evolve(self, bids=bids, phase=Phase.OVER, events=(*events, DealVoided(number=self.number)))
        declarer, contract_bid = made[-1]
        contract = Contract(seat=declarer, tricks=contract_bid.tricks, denomination=contract_bid.denomination)
        hands = list(self.hands)
        hands[declarer] = hands[declarer] + self.kitty
        # docs/games.md 3.3: the declarer takes the kitty at once.
        told = (ContractSet(contract=contract),
                TrumpSet(trump=contract.denomination.suit, no_trump=contract.denomination is Denomination.NO_TRUMP),
                KittyTaken(seat=declarer, kitty=self.kitty))
        return evolve(self, bids=bids, contract=contract, hands=tuple(hands), phase=Phase.DISCARD,
                       events=(*events, *told))

    def _after_discard(self, seat: Seat, action: Discard) -> CinqCentsDeal:
        hand = self.hands[seat]
        for c in action.cards:
            hand = remove_card(hand, c)
        hands = list(self.hands)
        hands[seat] = hand
        # docs/games.md 3.5: the declarer leads the first trick.
        return evolve(self, hands=tuple(hands), discards=action.cards, phase=Phase.PLAY,
                       current=Trick(leader=seat, cards=()),
                       events=(*self.events, event_of(seat, action)))

    def _after_play(self, seat: Seat, action: Play) -> CinqCentsDeal:
        current = self.trick_in_play
        hands = list(self.hands)
        hands[seat] = remove_card(hands[seat], action.card)
        trick = replace(current, cards=(*current.cards, action.card),
                        named_suit=action.suit if not current.cards else current.named_suit)
        events = (*self.events, event_of(seat, action))
        if len(trick.cards) < PLAYERS:
            return evolve(self, hands=tuple(hands), current=trick, events=events)
        trump = self.trump
        led = led_suit(trick, trump)
        winner = trick_winner(trick.leader, trick.cards, PLAYERS, lambda c: strength(c, trump, led))
        tricks = (*self.tricks, replace(trick, winner=winner))
        state = evolve(self, hands=tuple(hands), tricks=tricks, current=Trick(leader=winner, cards=()))
        if len(tricks) < TRICKS_PER_DEAL:
            won = TrickWon(number=len(tricks), trick=tricks[-1], deal_points=self.points)
            return evolve(state, events=(*events, won))
        points = state._score()
        scores = tuple(b + p for b, p in zip(self.scores_before, points, strict=True))
        return evolve(state, current=None, phase=Phase.OVER, points=points,
                       events=(*events, TrickWon(number=len(tricks), trick=tricks[-1], deal_points=points),
                               DealScored(number=self.number, points=points, scores=scores, contract=self.contract)))

    def _score(self) -> tuple[int, ...]:
        """docs/games.md 3.6: the contract's value won or lost; the other side 10 a trick."""
        contract = self.settled_contract
        won = self.tricks_won()
        ours = contract.seat % 2
        value = self.config.bid_values.value(contract.tricks, contract.denomination)
        points = [0, 0]
        points[ours] = value if won[ours] >= contract.tricks else -value
        points[1 - ours] = POINTS_PER_TRICK * won[1 - ours]
        return tuple(points)

    # --- views and records ---------------------------------------------

    def recorded_action(self, index: int) -> dict[str, Any]:
        """The ``index``-th action as the record writes it, seat first."""
        seat, action = self.actions[index]
        return {"seat": seat, **action_to_json(action)}

    def view(self, seat: Seat, scores_before: Sequence[int]) -> SeatView:
        """What ``seat`` may know: its own hand, public play, and the kitty and discards if it is declarer."""
        declarer = self.contract is not None and self.contract.seat == seat
        to_act = self.to_act
        return SeatView(
            game=GAME,
            options=self.config.to_options(),
            seat=seat,
            players=PLAYERS,
            sides=SIDES,
            deal_number=self.number,
            dealer=self.dealer,
            hand=tuple(sorted(self.hands[seat])),
            to_act=to_act,
            legal_actions=tuple(self.legal_actions()) if to_act == seat else (),
            scores=tuple(b + p for b, p in zip(scores_before, self.points, strict=True)),
            deal_points=self.points,
            trump=self.trump,
            no_trump=self.contract is not None and self.contract.denomination is Denomination.NO_TRUMP,
            current_trick=self.current,
            tricks=self.tricks,
            history=history_seen_by(self.events, seat),
            bids=tuple((s, None if b is None else (b.tricks, b.denomination)) for s, b in self.bids),
            contract=self.contract,
            kitty=self.kitty if declarer else (),
            discards=self.discards if declarer else (),
            hand_sizes=tuple(len(h) for h in self.hands),
        )

    def to_record(self, scores_before: Sequence[int]) -> dict[str, Any]:
        """The deal object of docs/records.md: ``kitty`` and ``contract``, no ``turn_up``."""
        contract = self.contract
        out: dict[str, Any] = {
            "number": self.number,
            "dealer": self.dealer,
            "deck": codes(self.deck),
            "hands": {str(s): codes(h) for s, h in enumerate(self.dealt)},
            "kitty": codes(self.kitty),
            "trump": None if contract is None else contract.denomination.value,
            "actions": [self.recorded_action(i) for i in range(len(self.actions))],
            "tricks": [{"leader": t.leader, "cards": codes(t.cards), "winner": t.winner} for t in self.tricks],
            "points": list(self.points),
            "scores": [b + p for b, p in zip(scores_before, self.points, strict=True)],
            "contract": None if contract is None else {
                "seat": contract.seat, "tricks": contract.tricks, "suit": contract.denomination.value},
        }
        if self.redeal:
            out["redeal"] = True
        return out


def _bid_text(bid: Bid) -> str:
    return f"{bid.tricks} {bid.denomination.value}"


class CinqCentsRules:
    """The Cinq Cents game for :mod:`tricktable.rules.registry` and :class:`tricktable.rules.match.Match`."""

    @property
    def name(self) -> str:
        """``cinq_cents``."""
        return GAME

    def config(self, options: Mapping[str, Any]) -> CinqCentsConfig:
        """Validate and resolve options (see :meth:`CinqCentsConfig.from_options`)."""
        return CinqCentsConfig.from_options(options)

    def start_deal(self, config: GameConfig, *, number: int, dealer: Seat, deck: Sequence[Card],
                   scores: Sequence[int], redeal: bool) -> CinqCentsDeal:
        """Deal a new deal from ``deck`` (``scores`` are only told: they play no part in a Cinq Cents deal).

        Raises:
            TypeError: ``config`` is not a Cinq Cents config.
        """
        return CinqCentsDeal.start(_own(config), number=number, dealer=dealer, deck=deck, redeal=redeal,
                                   scores=scores)

    def match_result(self, config: GameConfig, deal: DealState, scores: Sequence[int]) -> Result | None:
        """docs/games.md 3.6: a side at the target wins; both at it, the declarer's side wins.

        Raises:
            TypeError: ``config`` or ``deal`` is not Cinq Cents'.
        """
        if not isinstance(deal, CinqCentsDeal):
            raise TypeError(f"{GAME}: expected a CinqCentsDeal, got {type(deal).__name__}")
        reached = [side for side, score in enumerate(scores) if score >= _own(config).target]
        if not reached:
            return None
        if len(reached) > 1:
            reached = [deal.settled_contract.seat % 2]
        return Result(status="finished", winners=tuple(reached), scores=tuple(scores), reason="target reached")


def _own(config: GameConfig) -> CinqCentsConfig:
    if not isinstance(config, CinqCentsConfig):
        raise TypeError(f"{GAME}: expected a CinqCentsConfig, got {type(config).__name__}")
    return config


#: The engine (its definition: :mod:`tricktable.rules.cinq_cents_game`).
RULES = CinqCentsRules()
_PROTOCOL_CHECK: GameRules = RULES  # mypy checks that the game meets the GameRules contract
