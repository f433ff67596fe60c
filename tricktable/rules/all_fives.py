"""All Fives (the All Fours family), section 2 of docs/games.md.

Rule choices, and where docs/games.md rules them:

- Players 2 (default) or 3, each alone: side ``k`` is seat ``k`` (2.1).
- 52 cards; every suit, trump included, ranks A K Q J 10 9 ... 2 (2.1).
- Target 61, option ``target`` (2.1); options are ``players``, ``target``
  and ``first_dealer`` (common rules), all written out by ``to_options``
  (the config lives in ``tricktable.rules.all_fives_config``).
- Deal 3 each then 3 each, eldest hand first, the dealer last, then expose
  the next card, the ``turn_up``: its suit is proposed as trump; it joins no
  hand (2.2, common rules on dealing).
- Eldest hand (dealer + 1) ``stand``s (the proposed suit is trump) or
  ``beg``s (2.2).
- After a beg the dealer ``gift``s (eldest scores 1 at once, trump stays)
  or ``run``s the pack. The gift is refused (``GIFT_NOT_ALLOWED``) when
  eldest's total before the deal plus one reaches the target: the dealer
  must run (2.2, Ruling after Foster's Hoyle).
- Running the pack: 3 more each, then expose the next card; repeat while
  the exposed suit is the proposed (refused) suit; the first exposed card
  of another suit sets trump; no second beg (2.2). The recorded ``run``
  lists every card it turned, in order (docs/records.md).
- Before each round of a run, the first included, the deck must hold 3
  cards per player plus one to expose, else the deal is void and the same
  dealer deals again; the match marks the next deal ``redeal`` (2.2,
  common rules). A void deal scores nothing, not even a gift (none can
  have been given: a run follows a beg that was not gifted).
- Exposed cards join no hand; hands hold 6, 9, 12 ... cards (2.2).
- Eldest hand leads the first trick; a player holding the suit led must
  follow it; a player void in it may play any card, a trump or not (2.3).
- Highest trump wins the trick, else the highest card of the suit led; the
  winner leads the next; all cards are played out (2.3, common rules).
- Each player scores the trumps in the tricks they won: A 4, K 3, Q 2, J 1,
  10 10, 5 5 (25 in all, less trumps not dealt); no other card counts
  (2.4). The trick points are added when the last trick is won; the gift
  shows in ``points`` as soon as it is given (2.4 "gift points count in
  the deal they were given"; docs/records.md: an aborted deal counts only a
  gift given).
- After each deal, if any player has reached the target, the game ends and
  the players with the highest total win, several sharing on a tie (2.4).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from tricktable.rules.actions import Action, Beg, Gift, Play, Run, Stand, action_sort_key, require_action
from tricktable.rules.all_fives_config import GAME, AllFivesConfig
from tricktable.rules.cards import ACE, JACK, KING, QUEEN, Card, Suit, codes, sort_cards
from tricktable.rules.dealing import deal
from tricktable.rules.errors import ErrorCode, RecordError, RuleError
from tricktable.rules.events import DealScored, DealVoided, Event, TrickWon, TrumpSet, event_of, history_seen_by
from tricktable.rules.frozen import evolve
from tricktable.rules.game import GameConfig, Result, Seat, SeatView, Trick
from tricktable.rules.record import action_to_json
from tricktable.rules.tricks import follow_suit_plays, next_to_play, remove_card, trick_winner

#: Trump counting cards by rank (docs/games.md 2.4): A 4, K 3, Q 2, J 1, 10 10, 5 5.
COUNTING_VALUES: Mapping[int, int] = {ACE: 4, KING: 3, QUEEN: 2, JACK: 1, 10: 10, 5: 5}

#: Cards dealt to each seat per round: the deal is two rounds, a run adds one per exposure.
ROUND = 3


class Phase(StrEnum):
    """The step of a deal: who must decide what."""

    STAND_OR_BEG = "stand_or_beg"
    """Eldest hand stands or begs."""
    GIFT_OR_RUN = "gift_or_run"
    """After a beg, the dealer gifts or runs the pack."""
    PLAY = "play"
    OVER = "over"
    """All cards played; the deal is scored."""
    VOID = "void"
    """The pack ran out during a run: the same dealer deals again."""


def counting_points(cards: Sequence[Card], trump: Suit) -> int:
    """What ``cards`` are worth to the player who won them: trump counting cards only (docs/games.md 2.4)."""
    return sum(COUNTING_VALUES.get(c.rank, 0) for c in cards if c.suit is trump)


def trick_strength(card: Card, trump: Suit, led: Suit | None) -> int:
    """How ``card`` bids for a trick led in ``led`` (docs/games.md 2.3): a trump over the suit led over the rest."""
    if card.suit is trump:
        return 200 + card.rank
    if card.suit is led:
        return 100 + card.rank
    return card.rank


@dataclass(frozen=True, slots=True, kw_only=True)
class AllFivesDeal:
    """One All Fives deal, immutable: :meth:`apply` returns a new deal.

    Build it with :meth:`start` (or ``RULES.start_deal``). Side ``k`` is seat
    ``k``, so ``points`` and ``scores_before`` are indexed by seat.
    """

    config: AllFivesConfig
    number: int
    dealer: Seat
    deck: tuple[Card, ...]
    redeal: bool
    scores_before: tuple[int, ...]
    #: The six-card hands as first dealt (the record's ``hands``).
    dealt_hands: tuple[tuple[Card, ...], ...]
    #: Hands now: run cards added, played cards removed.
    hands: tuple[tuple[Card, ...], ...]
    #: Every exposed card, the turn-up first.
    exposed: tuple[Card, ...]
    #: Cards of ``deck`` dealt or exposed so far; the rest is the stock nobody sees.
    used: int
    phase: Phase
    trump: Suit | None = None
    gift: bool = False
    history: tuple[tuple[Seat, Action], ...] = ()
    #: What happened in this deal so far, in order (:mod:`tricktable.rules.events`).
    events: tuple[Event, ...] = ()
    tricks: tuple[Trick, ...] = ()
    current: Trick | None = None
    #: Points per seat so far (see :attr:`points`).
    scored: tuple[int, ...] = ()

    @classmethod
    def start(cls, config: AllFivesConfig, *, number: int, dealer: Seat, deck: Sequence[Card],
              scores: Sequence[int], redeal: bool) -> AllFivesDeal:
        """Deal 3 each then 3 each and expose the turn-up (docs/games.md 2.2).

        Raises:
            RecordError: ``deck`` is not an ordering of the 52 cards.
            ValueError: ``dealer`` is not a seat or ``scores`` has the wrong length.
        """
        deck = tuple(deck)
        if len(deck) != 52 or set(deck) != set(config.deck()):
            raise RecordError(f"{GAME}: the deck must hold each of the 52 cards once (got {len(deck)} cards)")
        if not 0 <= dealer < config.players:
            raise ValueError(f"{GAME}: no seat {dealer} at a {config.players}-player table")
        if len(scores) != config.players:
            raise ValueError(f"{GAME}: {len(scores)} scores for {config.players} players")
        dealt = deal(deck, config.players, dealer, [ROUND, ROUND])
        return cls(
            config=config, number=number, dealer=dealer, deck=deck, redeal=redeal,
            scores_before=tuple(scores), dealt_hands=dealt.hands, hands=dealt.hands,
            exposed=(deck[dealt.used],), used=dealt.used + 1, phase=Phase.STAND_OR_BEG,
            scored=tuple(0 for _ in range(config.players)),
        )

    # --- public state ------------------------------------------------------

    @property
    def players(self) -> int:
        """Number of seats at the table."""
        return self.config.players

    @property
    def eldest(self) -> Seat:
        """Eldest hand, the dealer's left."""
        return (self.dealer + 1) % self.players

    @property
    def turn_up(self) -> Card:
        """The first exposed card; its suit is the proposed trump."""
        return self.exposed[0]

    @property
    def proposed(self) -> Suit:
        """The suit proposed as trump by the turn-up."""
        return self.turn_up.printed_suit

    @property
    def is_over(self) -> bool:
        """Played out or void."""
        return self.phase in (Phase.OVER, Phase.VOID)

    @property
    def is_void(self) -> bool:
        """The pack ran out during a run (docs/games.md 2.2): the same dealer deals again."""
        return self.phase is Phase.VOID

    @property
    def points(self) -> tuple[int, ...]:
        """Points per seat scored by this deal so far: the gift at once, the trumps won once played out."""
        return self.scored

    @property
    def leader(self) -> Seat:
        """Who leads the current or next trick: eldest first, then each trick's winner."""
        if self.current is not None:
            return self.current.leader
        if self.tricks:
            return self.tricks[-1].taken_by
        return self.eldest

    @property
    def to_act(self) -> Seat | None:
        """The seat that must act, or None once the deal is over."""
        if self.phase is Phase.STAND_OR_BEG:
            return self.eldest
        if self.phase is Phase.GIFT_OR_RUN:
            return self.dealer
        if self.phase is Phase.PLAY:
            return self.leader if self.current is None else next_to_play(self.current, self.players)
        return None

    @property
    def gift_allowed(self) -> bool:
        """A gift may not bring eldest hand to the target (docs/games.md 2.2, Ruling)."""
        return self.scores_before[self.eldest] + 1 < self.config.target

    @property
    def led_suit(self) -> Suit | None:
        """The suit of the current trick's first card, or None before a lead."""
        if self.current is None or not self.current.cards:
            return None
        return self.current.cards[0].suit

    def legal_actions(self) -> list[Action]:
        """Sorted legal actions of the seat to act; empty when the deal is over."""
        actions: list[Action]
        if self.phase is Phase.STAND_OR_BEG:
            actions = [Stand(), Beg()]
        elif self.phase is Phase.GIFT_OR_RUN:
            actions = [Gift(), Run()] if self.gift_allowed else [Run()]
        elif self.phase is Phase.PLAY:
            actions = [Play(card=c) for c in follow_suit_plays(self.hands[self._acting()], self.led_suit)]
        else:
            actions = []
        return sorted(actions, key=action_sort_key)

    # --- checking ----------------------------------------------------------

    def _acting(self) -> Seat:
        """The seat to act; once the deal is over every action is refused (``WRONG_PHASE``)."""
        to_act = self.to_act
        if to_act is None:
            raise RuleError(ErrorCode.WRONG_PHASE, f"deal {self.number} is over: no action is taken")
        return to_act

    def check(self, action: Action, seat: Seat | None = None) -> None:
        """Raise :class:`RuleError` unless ``seat`` (default: the seat to act) may take ``action`` now.

        Raises:
            RuleError: ``WRONG_PHASE`` (deal over, or an action this step does not accept),
                ``NOT_YOUR_TURN``, ``GIFT_NOT_ALLOWED``, ``MALFORMED_ACTION`` (a ``run`` whose
                given ``exposed`` is not what the deck turns), ``BAD_NAMED_SUIT``,
                ``CARD_NOT_IN_HAND``, ``MUST_FOLLOW_SUIT``.
        """
        require_action(action)
        to_act = self._acting()
        if seat is not None and seat != to_act:
            raise RuleError(ErrorCode.NOT_YOUR_TURN, f"seat {seat} may not act: it is seat {to_act}'s turn")
        expected = _PHASE_ACTIONS[self.phase]
        if not isinstance(action, expected):
            raise RuleError(ErrorCode.WRONG_PHASE, f"{action.type} is not allowed now: {_PHASE_WANTS[self.phase]}")
        if isinstance(action, Gift) and not self.gift_allowed:
            total = self.scores_before[self.eldest]
            raise RuleError(
                ErrorCode.GIFT_NOT_ALLOWED,
                f"gift not allowed: it would bring seat {self.eldest} from {total} to {total + 1}, "
                f"reaching the target {self.config.target}; the dealer must run the pack",
            )
        if isinstance(action, Run) and action.exposed is not None:
            turned = self._run().exposed[len(self.exposed):]
            if tuple(action.exposed) != turned:
                raise RuleError(
                    ErrorCode.MALFORMED_ACTION,
                    f"run: the deck turns [{' '.join(codes(turned))}], "
                    f"given exposed [{' '.join(codes(action.exposed))}]",
                )
        if isinstance(action, Play):
            self._check_play(action, to_act)

    def _check_play(self, action: Play, seat: Seat) -> None:
        if action.suit is not None:
            raise RuleError(ErrorCode.BAD_NAMED_SUIT,
                            "a play names a suit only when a joker is led at no-trump (Cinq Cents)")
        hand = self.hands[seat]
        if action.card not in hand:
            raise RuleError(ErrorCode.CARD_NOT_IN_HAND, f"seat {seat} does not hold {action.card.code}")
        led = self.led_suit
        if led is not None and action.card not in follow_suit_plays(hand, led):
            held = [c for c in sort_cards(hand) if c.suit is led]
            raise RuleError(
                ErrorCode.MUST_FOLLOW_SUIT,
                f"seat {seat} must follow suit {led.value} (holds {' '.join(codes(held))}), "
                f"not play {action.card.code}",
            )

    # --- applying ----------------------------------------------------------

    def apply(self, action: Action, seat: Seat | None = None) -> AllFivesDeal:
        """Check ``action``, then return the deal after it.

        Raises:
            RuleError: as :meth:`check`; this deal is unchanged.
        """
        self.check(action, seat)
        actor = self._acting()
        if isinstance(action, Stand):
            return evolve(self, phase=Phase.PLAY, trump=self.proposed, history=(*self.history, (actor, action)),
                           events=(*self.events, event_of(actor, action), TrumpSet(trump=self.proposed)))
        if isinstance(action, Beg):
            return evolve(self, phase=Phase.GIFT_OR_RUN, history=(*self.history, (actor, action)),
                           events=(*self.events, event_of(actor, action)))
        if isinstance(action, Gift):
            points = list(self.scored)
            points[self.eldest] += 1
            return evolve(self, phase=Phase.PLAY, trump=self.proposed, gift=True, scored=tuple(points),
                           history=(*self.history, (actor, action)),
                           events=(*self.events, event_of(actor, action, eldest=self.eldest),
                                   TrumpSet(trump=self.proposed)))
        if isinstance(action, Run):
            after = self._run()
            recorded = Run(exposed=after.exposed[len(self.exposed):])
            told: Event = DealVoided(number=self.number) if after.is_void else TrumpSet(trump=after.trump)
            return evolve(after, history=(*self.history, (actor, recorded)),
                           events=(*self.events, event_of(actor, recorded), told))
        if isinstance(action, Play):
            return self._play(actor, action)
        raise RuleError(ErrorCode.WRONG_PHASE, f"{action.type} is not an All Fives action")

    def _run(self) -> AllFivesDeal:
        """Run the pack (docs/games.md 2.2): the state after the run, its action not yet recorded."""
        hands = [list(h) for h in self.hands]
        exposed = list(self.exposed)
        used = self.used
        need = ROUND * self.players + 1
        while True:
            if len(self.deck) - used < need:
                return evolve(self, hands=tuple(tuple(h) for h in hands), exposed=tuple(exposed), used=used,
                               phase=Phase.VOID)
            dealt = deal(self.deck, self.players, self.dealer, [ROUND], start=used)
            for seat in range(self.players):
                hands[seat].extend(dealt.hands[seat])
            card = self.deck[dealt.used]
            exposed.append(card)
            used = dealt.used + 1
            if card.suit is not self.proposed:
                return evolve(self, hands=tuple(tuple(h) for h in hands), exposed=tuple(exposed), used=used,
                               phase=Phase.PLAY, trump=card.suit)

    def _play(self, seat: Seat, action: Play) -> AllFivesDeal:
        hands = list(self.hands)
        hands[seat] = remove_card(hands[seat], action.card)
        current = self.current or Trick(leader=seat, cards=())
        current = replace(current, cards=(*current.cards, action.card))
        history = (*self.history, (seat, action))
        events = (*self.events, event_of(seat, action))
        if len(current.cards) < self.players:
            return evolve(self, hands=tuple(hands), current=current, history=history, events=events)
        trump, led = self.trump, current.cards[0].suit
        if trump is None:
            raise RuleError(ErrorCode.WRONG_PHASE, "no card is played before trump is settled")
        winner = trick_winner(current.leader, current.cards, self.players, lambda c: trick_strength(c, trump, led))
        tricks = (*self.tricks, replace(current, winner=winner))
        if any(hands):
            won = TrickWon(number=len(tricks), trick=tricks[-1], deal_points=self.scored)
            return evolve(self, hands=tuple(hands), current=None, tricks=tricks, history=history,
                           events=(*events, won))
        points = list(self.scored)
        for trick in tricks:
            points[trick.taken_by] += counting_points(trick.cards, trump)
        scored = tuple(points)
        scores = tuple(a + b for a, b in zip(self.scores_before, scored, strict=True))
        return evolve(self, hands=tuple(hands), current=None, tricks=tricks, history=history,
                       phase=Phase.OVER, scored=scored,
                       events=(*events, TrickWon(number=len(tricks), trick=tricks[-1], deal_points=scored),
                               DealScored(number=self.number, points=scored, scores=scores)))

    # --- views and records -------------------------------------------------

    def recorded_action(self, index: int) -> dict[str, Any]:
        """The ``index``-th action as the record writes it: seat first, a run with its ``exposed``."""
        seat, action = self.history[index]
        return {"seat": seat, **action_to_json(action)}

    def view(self, seat: Seat, scores_before: Sequence[int]) -> SeatView:
        """What ``seat`` may know: its own hand and everything public, never other hands or the stock.

        Raises:
            ValueError: ``seat`` is not at the table.
        """
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat} at a {self.players}-player table")
        to_act = self.to_act
        scores = tuple(a + b for a, b in zip(scores_before, self.scored, strict=True))
        return SeatView(
            game=GAME, options=self.config.to_options(), seat=seat, players=self.players,
            sides=self.config.sides, deal_number=self.number, dealer=self.dealer,
            hand=tuple(sort_cards(self.hands[seat])), to_act=to_act,
            legal_actions=tuple(self.legal_actions()) if seat == to_act else (),
            scores=scores, deal_points=self.scored, trump=self.trump, turn_up=self.turn_up,
            exposed=self.exposed, current_trick=self.current, tricks=self.tricks,
            # Every All Fives action is public (docs/games.md, "What each player may know").
            history=history_seen_by(self.events, seat),
            hand_sizes=tuple(len(h) for h in self.hands),
            extras={"phase": self.phase.value, "eldest": self.eldest, "gift": self.gift,
                    "redeal": self.redeal},
        )

    def to_record(self, scores_before: Sequence[int]) -> dict[str, Any]:
        """This deal as docs/records.md's deal object (``redeal`` written only when true)."""
        out: dict[str, Any] = {
            "number": self.number,
            "dealer": self.dealer,
            "deck": codes(self.deck),
            "hands": {str(s): codes(self.dealt_hands[s]) for s in range(self.players)},
            "turn_up": self.turn_up.code,
            "trump": None if self.trump is None else self.trump.value,  # never set on a void deal
            "actions": [self.recorded_action(i) for i in range(len(self.history))],
            "tricks": [{"leader": t.leader, "cards": codes(t.cards), "winner": t.winner} for t in self.tricks],
            "points": list(self.scored),
            "scores": [a + b for a, b in zip(scores_before, self.scored, strict=True)],
        }
        if self.redeal:
            out["redeal"] = True
        return out


_PHASE_ACTIONS: dict[Phase, type[Any] | tuple[type[Any], ...]] = {
    Phase.STAND_OR_BEG: (Stand, Beg),
    Phase.GIFT_OR_RUN: (Gift, Run),
    Phase.PLAY: Play,
}
_PHASE_WANTS: dict[Phase, str] = {
    Phase.STAND_OR_BEG: "eldest hand must stand or beg",
    Phase.GIFT_OR_RUN: "the dealer must gift or run the pack",
    Phase.PLAY: "the deal is in play: play a card",
}


class AllFivesRules:
    """The All Fives game: options, deals and the end of the match (docs/games.md section 2)."""

    @property
    def name(self) -> str:
        """``all_fives``."""
        return GAME

    def config(self, options: Mapping[str, Any]) -> AllFivesConfig:
        """Validate ``options`` and resolve the defaults.

        Raises:
            OptionsError: an unknown key, a wrong type or a bad value.
        """
        return AllFivesConfig.from_options(options)

    def start_deal(self, config: GameConfig, *, number: int, dealer: Seat, deck: Sequence[Card],
                   scores: Sequence[int], redeal: bool) -> AllFivesDeal:
        """Deal ``deck`` (top card first): 3 each, 3 each, expose the turn-up.

        Raises:
            TypeError: ``config`` is not an All Fives config.
            RecordError: ``deck`` is not an ordering of the 52 cards.
        """
        if not isinstance(config, AllFivesConfig):
            raise TypeError(f"{GAME}: expected an AllFivesConfig, got {type(config).__name__}")
        return AllFivesDeal.start(config, number=number, dealer=dealer, deck=deck, scores=scores, redeal=redeal)

    def match_result(self, config: GameConfig, deal: object, scores: Sequence[int]) -> Result | None:
        """After a deal: if a player has reached the target, the highest totals win, shared on a tie (2.4)."""
        if not isinstance(config, AllFivesConfig):
            raise TypeError(f"{GAME}: expected an AllFivesConfig, got {type(config).__name__}")
        if max(scores) < config.target:
            return None
        best = max(scores)
        winners = tuple(s for s, total in enumerate(scores) if total == best)
        return Result(status="finished", winners=winners, scores=tuple(scores), reason="target reached")


#: The engine (its definition: tricktable.rules.all_fives_game).
RULES = AllFivesRules()

__all__ = ["COUNTING_VALUES", "GAME", "RULES", "AllFivesConfig", "AllFivesDeal", "AllFivesRules", "Phase",
           "counting_points", "trick_strength"]
