"""Twenty-Five and Forty-Five: the Spoil Five family (docs/games.md section 1).

One engine, two presets of one config (:mod:`tricktable.rules.spoil_five_config`);
ranking tables live in :mod:`tricktable.rules.spoil_five_ranking`. Rule choices, each
with the section of docs/games.md that rules it:

- Players and sides (1.1): twenty_five 4 or 6 players (sides 2; with six, 2
  by default or 3); forty_five 2..10 players (default 4), sides any divisor
  of the player count from 2 up, default 2 with 4 or 6 players, otherwise
  everyone alone. Seat ``s`` is on side ``s mod sides``.
- Deal (1.2): 52 cards, 3 each then 2 each (``deal_pattern`` "3-2", or
  "2-3"), eldest hand first and the dealer last; the next card is the
  turn-up and its suit is trump; the rest of the deck is unused. Eldest hand
  leads the first trick.
- Ranking (1.3): trumps 5 of T, J of T, A of hearts, A of T (not when T is
  hearts), then red K Q 10 9 8 7 6 4 3 2 / black K Q 2 3 4 6 7 8 9 10; the A
  of hearts is always a trump (14 trumps, 13 with hearts). Plain red K Q J
  10 ... 2 A, plain black K Q J A 2 ... 10. The highest trump wins a trick,
  else the highest card of the suit led; the A of hearts led is a trump lead.
- Robbing (1.4, option ``robbing``, default on): with the ace of trumps
  turned up, the dealer decides first (``rob`` burying a card of the hand as
  dealt, never the turn-up, or ``pass_rob``). Otherwise the seat dealt the ace
  of trumps may ``rob`` at its first turn of the first trick and must then
  ``play`` in the same turn; declining leaves no trace. The robbed card may
  be the ace itself. The A of hearts gives the right only when hearts are
  trumps. At most one rob a deal. Who robbed is public; the buried card is
  known to the robber alone.
- Following (1.5): to a plain lead, a seat holding the suit led must follow
  (``trump_at_will``: follow or trump; default off for twenty_five, on for
  forty_five); void, any card. To a trump lead, a top trump (5 of T, J of T,
  A of hearts) that outranks the lead is exempt; a seat holding a non-exempt
  trump must play a trump (any, exempt ones included), otherwise any card.
- Twenty-Five scoring (1.6): 5 a trick to the winner's side as it is won;
  the deal and the game stop the moment a side's running total reaches
  ``target`` (25); the remaining tricks are not played.
- Forty-Five scoring (1.7): 5 a trick and 5 bonus to the side of the seat
  that played the highest trump of the deal (none when no trump was played),
  added at the end of the deal. After a deal, when sides reached ``target``
  (45), the first in counting order wins: from eldest hand's side clockwise
  by seat, the dealer's side last.
- Jink (1.7, forty_five option ``jink``, default off): after the dealer's rob
  decision and before the first lead, each seat from eldest hand may
  ``jink`` or ``pass_jink``; the first ``jink`` closes the round. A declaring
  side taking all five tricks scores its deal points doubled (60 with the
  bonus); one that fails scores as usual and the game ends at once: it
  loses, and the other sides with the highest total win.

Project rulings made here where docs/games.md is silent (pinned by tests): an
unfinished Forty-Five deal (aborted game) records ``bonus`` null and zero
points, as points are added at the end of a deal only; a jink made in a deal
where no trump was played scores 2 x 25 = 50; a failed jink decides the game
before the counting order does (the other sides' highest total wins even
when a side counted earlier reached the target).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from operator import attrgetter
from typing import Any

from tricktable.rules.actions import Action, Jink, PassJink, PassRob, Play, Rob, action_sort_key, require_action
from tricktable.rules.cards import Card, Suit, codes, standard_deck
from tricktable.rules.dealing import deal as deal_cards
from tricktable.rules.errors import ErrorCode, RuleError
from tricktable.rules.events import ActionEvent, DealScored, Event, TrickWon, TrumpSet, event_of
from tricktable.rules.frozen import evolve
from tricktable.rules.game import DealState, GameConfig, GameRules, Result, Seat, SeatView, Trick
from tricktable.rules.record import action_to_json
from tricktable.rules.spoil_five_config import FORTY_FIVE, TWENTY_FIVE, SpoilFiveConfig, resolve
from tricktable.rules.spoil_five_ranking import RANKINGS, Ranking, follow_error, playable
from tricktable.rules.tricks import remove_card, trick_winner

__all__ = ["FORTY_FIVE", "RULES", "TWENTY_FIVE", "Phase", "SpoilFiveConfig", "SpoilFiveDeal", "SpoilFiveRules"]

#: Tricks in a deal: every seat holds five cards.
TRICKS_PER_DEAL = 5
#: A card's place in the deck: the order of cards in a hand as a view shows it, and of the plays among legal actions.
_by_index = attrgetter("index")
#: The play of each card: a decision's legal plays are these frozen values, not new ones for every view (the acting
#: seat's view lists them at every move).
_PLAY_OF: dict[Card, Action] = {card: Play(card=card) for card in standard_deck()}


class Phase(StrEnum):
    """The step of a deal: who may do what."""

    ROB = "rob"
    """The dealer, with the ace of trumps turned up, robs or passes (1.4)."""
    JINK = "jink"
    """Forty-Five with ``jink``: the declaration round (1.7)."""
    PLAY = "play"
    """Trick play, a holder's rob included (1.4, 1.5)."""
    OVER = "over"
    """Played out, or stopped by Twenty-Five's target (1.6)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SpoilFiveDeal:
    """One deal of Twenty-Five or Forty-Five, immutable; build it with :meth:`SpoilFiveRules.start_deal`.

    ``dealt`` are the hands as first dealt, ``hands`` the hands now (after a
    rob and the cards played). ``points`` are what this deal has scored so
    far: trick by trick in Twenty-Five, all at the end in Forty-Five.
    """

    config: SpoilFiveConfig
    number: int
    dealer: Seat
    deck: tuple[Card, ...]
    dealt: tuple[tuple[Card, ...], ...]
    turn_up: Card
    scores_before: tuple[int, ...]
    redeal: bool = False
    phase: Phase
    hands: tuple[tuple[Card, ...], ...]
    actions: tuple[tuple[Seat, Action], ...] = ()
    robbed_by: Seat | None = None
    buried: Card | None = None
    #: A holder has just robbed: their play follows in the same turn (1.4).
    must_play: bool = False
    jink_passes: int = 0
    jinked_by: Seat | None = None
    trick: Trick
    tricks: tuple[Trick, ...] = ()
    points: tuple[int, ...]
    #: The highest trump played so far and its seat (Forty-Five's bonus, 1.7).
    best_trump: tuple[Seat, Card] | None = None
    #: What happened in this deal so far, in order (:mod:`tricktable.rules.events`).
    events: tuple[Event, ...] = ()
    #: The action events of ``events``, whole truth, kept as they happen: a view takes them as they are (every one
    #: is public but a rob's buried card) instead of filtering the deal's events again.
    history: tuple[ActionEvent, ...] = ()

    # --- state -----------------------------------------------------------

    @property
    def ranking(self) -> Ranking:
        """The rank tables for this deal's trump suit."""
        return RANKINGS[self.trump]

    @property
    def trump(self) -> Suit:
        """The trump suit: the turn-up's suit (1.2)."""
        return self.turn_up.printed_suit

    @property
    def to_act(self) -> Seat | None:
        """The seat that must act, or None once the deal is over."""
        if self.phase is Phase.PLAY:
            return (self.trick.leader + len(self.trick.cards)) % self.config.players
        if self.phase is Phase.ROB:
            return self.dealer
        if self.phase is Phase.JINK:
            return (self.dealer + 1 + self.jink_passes) % self.config.players
        return None

    @property
    def is_over(self) -> bool:
        """Played out, or cut short because a Twenty-Five side reached the target."""
        return self.phase is Phase.OVER

    @property
    def is_void(self) -> bool:
        """Never: the Spoil Five family has no void deals."""
        return False

    @property
    def jink_made(self) -> bool:
        """A jink was declared and the declaring side won all five tricks."""
        if self.jinked_by is None or len(self.tricks) < TRICKS_PER_DEAL:
            return False
        side = self.config.side_of(self.jinked_by)
        return all(self.config.side_of(t.winner) == side for t in self.tricks if t.winner is not None)

    @property
    def bonus(self) -> tuple[Seat, Card] | None:
        """Forty-Five's bonus as scored: the highest trump of a finished deal, else None."""
        if self.config.bonus_points == 0 or self.phase is not Phase.OVER:
            return None
        return self.best_trump

    # --- legality --------------------------------------------------------

    def _may_rob(self, seat: Seat) -> bool:
        """The holder's rob (1.4): dealt the ace of trumps, first turn of the first trick, nobody robbed."""
        ace = self.ranking.ace_of_trumps
        return (self.config.robbing and self.robbed_by is None and not self.must_play
                and not self.tricks and self.turn_up is not ace and ace in self.dealt[seat])

    def _legal_cards(self, hand: tuple[Card, ...]) -> tuple[Card, ...]:
        """The cards of ``hand`` that may be played to the current trick (1.5)."""
        lead = self.trick.cards[0] if self.trick.cards else None
        return playable(self.ranking, hand, lead, trump_at_will=self.config.trump_at_will)

    def legal_actions(self) -> list[Action]:
        """Sorted legal actions of the seat to act; empty once the deal is over."""
        actor = self.to_act
        if actor is None:
            return []
        if self.phase is Phase.ROB:
            robs: list[Action] = [Rob(card=c) for c in self.dealt[actor]]
            return sorted([PassRob(), *robs], key=action_sort_key)
        if self.phase is Phase.JINK:
            return sorted([Jink(), PassJink()], key=action_sort_key)
        hand = self.hands[actor]
        # In action_sort_key's order without sorting the actions: the plays, then a holder's robs, each by card.
        out = [_PLAY_OF[c] for c in sorted(self._legal_cards(hand), key=_by_index)]
        if self._may_rob(actor):
            out.extend(Rob(card=c) for c in sorted(hand, key=_by_index))
        return out

    def _acting(self) -> Seat:
        """The seat to act; once the deal is over every action is refused (``GAME_OVER``)."""
        actor = self.to_act
        if actor is None:
            raise RuleError(ErrorCode.GAME_OVER, "the deal is over")
        return actor

    def check(self, action: Action, seat: Seat | None = None) -> None:
        """Raise :class:`RuleError` unless ``seat`` (default: the seat to act) may take ``action``.

        Never changes the state. Codes: GAME_OVER, NOT_YOUR_TURN, WRONG_PHASE,
        CARD_NOT_IN_HAND, MUST_FOLLOW_SUIT, MUST_FOLLOW_OR_TRUMP,
        MUST_PLAY_TRUMP, ROB_NOT_ALLOWED, MUST_PLAY_AFTER_ROB, MALFORMED_ACTION.
        """
        require_action(action)
        actor = self._acting()
        if seat is not None and seat != actor:
            raise RuleError(ErrorCode.NOT_YOUR_TURN, f"not your turn: seat {actor} is to act")
        if self.phase is Phase.ROB:
            if isinstance(action, Rob):
                self._check_bury(action.card, actor)
            elif not isinstance(action, PassRob):
                raise RuleError(ErrorCode.WRONG_PHASE,
                                f"the dealer must first rob or pass_rob ({self.turn_up.code} is turned up)")
            return
        if self.phase is Phase.JINK:
            if not isinstance(action, Jink | PassJink):
                raise RuleError(ErrorCode.WRONG_PHASE, "the jink round comes first: jink or pass_jink")
            return
        if self.must_play and not isinstance(action, Play):
            raise RuleError(ErrorCode.MUST_PLAY_AFTER_ROB, "you have robbed: now play a card")
        if isinstance(action, Play):
            self._check_play(action, actor)
        elif isinstance(action, Rob):
            self._check_holder_rob(action.card, actor)
        elif isinstance(action, Jink | PassJink):
            why = "the jink round is over" if self.config.jink else "jink is not played at this table"
            raise RuleError(ErrorCode.WRONG_PHASE, why)
        elif isinstance(action, PassRob):
            raise RuleError(ErrorCode.WRONG_PHASE,
                            "pass_rob is only for the dealer, before play, with the ace of trumps turned up")
        else:
            raise RuleError(ErrorCode.WRONG_PHASE, f"{action.type} is not an action of {self.config.game}")

    def is_legal(self, action: Action, seat: Seat | None = None) -> bool:
        """True when :meth:`check` would accept ``action`` from ``seat``."""
        try:
            self.check(action, seat)
        except RuleError:
            return False
        return True

    def _check_bury(self, card: Card, seat: Seat) -> None:
        if card is self.turn_up:
            raise RuleError(ErrorCode.CARD_NOT_IN_HAND,
                            f"the turn-up {card.code} cannot be buried: name a card of your hand as dealt")
        if card not in self.dealt[seat]:
            raise RuleError(ErrorCode.CARD_NOT_IN_HAND, f"{card.code} is not in your hand")

    def _check_holder_rob(self, card: Card, seat: Seat) -> None:
        ace = self.ranking.ace_of_trumps
        if not self.config.robbing:
            raise RuleError(ErrorCode.ROB_NOT_ALLOWED, "robbing is off at this table")
        if self.robbed_by is not None:
            raise RuleError(ErrorCode.ROB_NOT_ALLOWED, "the pack has already been robbed this deal")
        if self.turn_up is ace:
            raise RuleError(ErrorCode.ROB_NOT_ALLOWED,
                            f"only the dealer may rob this deal ({ace.code} is turned up)")
        if self.tricks:
            raise RuleError(ErrorCode.ROB_NOT_ALLOWED, "a rob comes only at your first turn of the first trick")
        if ace not in self.dealt[seat]:
            raise RuleError(ErrorCode.ROB_NOT_ALLOWED,
                            f"only the player dealt the ace of trumps ({ace.code}) may rob")
        self._check_bury(card, seat)

    def _check_play(self, action: Play, seat: Seat) -> None:
        card = action.card
        if action.suit is not None:
            raise RuleError(ErrorCode.MALFORMED_ACTION, "a play names no suit in this game")
        hand = self.hands[seat]
        if card not in hand:
            raise RuleError(ErrorCode.CARD_NOT_IN_HAND, f"{card.code} is not in your hand")
        if card in self._legal_cards(hand):
            return
        raise follow_error(self.ranking, self.trick.cards[0], trump_at_will=self.config.trump_at_will)

    # --- transitions -----------------------------------------------------

    def apply(self, action: Action, seat: Seat | None = None) -> SpoilFiveDeal:
        """Check ``action``, then return the state after it (one copy of the state per action).

        Raises:
            RuleError: the action is refused (see :meth:`check`); this state is unchanged.
        """
        self.check(action, seat)
        actor = self._acting()
        done = event_of(actor, action, turn_up=self.turn_up)
        actions = (*self.actions, (actor, action))
        events = (*self.events, done)
        history = (*self.history, done)
        if isinstance(action, Play):
            return self._play(action.card, actor, actions, events, history)
        if isinstance(action, Rob):
            hand = (*remove_card(self.dealt[actor], action.card), self.turn_up)
            hands = (*self.hands[:actor], hand, *self.hands[actor + 1:])
            if self.phase is Phase.ROB:
                return evolve(self, actions=actions, hands=hands, robbed_by=actor, buried=action.card,
                              events=events, history=history, phase=self._after_rob_decision())
            return evolve(self, actions=actions, hands=hands, robbed_by=actor, buried=action.card, events=events,
                          history=history, must_play=True)
        if isinstance(action, PassRob):
            return evolve(self, actions=actions, phase=self._after_rob_decision(), events=events, history=history)
        if isinstance(action, Jink):
            return evolve(self, actions=actions, jinked_by=actor, phase=Phase.PLAY, events=events, history=history)
        passes = self.jink_passes + 1
        phase = Phase.PLAY if passes == self.config.players else Phase.JINK
        return evolve(self, actions=actions, jink_passes=passes, phase=phase, events=events, history=history)

    def _after_rob_decision(self) -> Phase:
        return Phase.JINK if self.config.jink else Phase.PLAY

    def _play(self, card: Card, seat: Seat, actions: tuple[tuple[Seat, Action], ...],
              events: tuple[Event, ...], history: tuple[ActionEvent, ...]) -> SpoilFiveDeal:
        config = self.config
        ranking = self.ranking
        hands = (*self.hands[:seat], remove_card(self.hands[seat], card), *self.hands[seat + 1:])
        best = self.best_trump
        rank = ranking.trump_rank[card.index]
        if rank and (best is None or rank > ranking.trump_rank[best[1].index]):
            best = (seat, card)
        played = (*self.trick.cards, card)
        if len(played) < config.players:
            trick = Trick(leader=self.trick.leader, cards=played)
            return evolve(self, actions=actions, hands=hands, trick=trick, must_play=False, best_trump=best,
                          events=events, history=history)
        lead = played[0]
        winner = trick_winner(self.trick.leader, played, config.players, lambda c: ranking.strength(c, lead))
        tricks = (*self.tricks, Trick(leader=self.trick.leader, cards=played, winner=winner))
        changes: dict[str, Any] = {"actions": actions, "hands": hands, "trick": Trick(leader=winner, cards=()),
                                   "tricks": tricks, "must_play": False, "best_trump": best, "history": history}
        if config.score_as_won:
            # Twenty-Five (1.6): the trick scores now; reaching the target stops the deal.
            side = config.side_of(winner)
            points = tuple(p + config.trick_points if k == side else p for k, p in enumerate(self.points))
            reached = self.scores_before[side] + points[side] >= config.target
            over = reached or len(tricks) == TRICKS_PER_DEAL
        elif len(tricks) < TRICKS_PER_DEAL:
            points, over = self.points, False
        else:  # Forty-Five's last trick: the points need the finished deal (once a deal, so a second copy)
            points, over = evolve(self, **changes)._final_points(), True
        return self._trick_events(changes, points, events, over=over)

    def _trick_events(self, changes: dict[str, Any], points: tuple[int, ...], events: tuple[Event, ...], *,
                      over: bool) -> SpoilFiveDeal:
        """The state after a trick (``changes``), told: the trick won, and the deal's score when it ended the deal.

        Built as one copy of this state: a trick costs no second copy for its points and events.
        """
        tricks: tuple[Trick, ...] = changes["tricks"]
        won = TrickWon(number=len(tricks), trick=tricks[-1], deal_points=points)
        if not over:
            return evolve(self, **changes, points=points, phase=Phase.PLAY, events=(*events, won))
        scores = tuple(b + p for b, p in zip(self.scores_before, points, strict=True))
        bonus = changes["best_trump"] if self.config.bonus_points else None  # :attr:`bonus` of the finished deal
        scored = DealScored(number=self.number, points=points, scores=scores, bonus=bonus)
        return evolve(self, **changes, points=points, phase=Phase.OVER, events=(*events, won, scored))

    def _final_points(self) -> tuple[int, ...]:
        """Forty-Five (1.7): tricks and bonus, doubled for a jink made."""
        config = self.config
        points = [0] * config.side_count
        for t in self.tricks:
            points[config.side_of(t.taken_by)] += config.trick_points
        if self.best_trump is not None:
            points[config.side_of(self.best_trump[0])] += config.bonus_points
        if self.jink_made:
            points = [2 * p for p in points]
        return tuple(points)

    # --- views and records -----------------------------------------------

    def view(self, seat: Seat, scores_before: Sequence[int]) -> SeatView:
        """What ``seat`` may know: its own hand, everything public, its own buried card; no other hand."""
        config = self.config
        to_act = self.to_act
        legal = tuple(self.legal_actions()) if to_act == seat else ()
        history = self.history
        if self.robbed_by is not None and self.robbed_by != seat:  # the one hidden part: another seat's buried card
            history = tuple(event.seen_by(seat) for event in history)
        extras: dict[str, Any] = {}
        if config.bonus_points and self.phase is Phase.OVER:
            extras["bonus"] = self._bonus_json()
        return SeatView(
            game=config.game,
            options=config.to_options(),
            seat=seat,
            players=config.players,
            sides=config.sides,
            deal_number=self.number,
            dealer=self.dealer,
            hand=tuple(sorted(self.hands[seat], key=_by_index)),
            to_act=to_act,
            legal_actions=legal,
            scores=tuple(b + p for b, p in zip(scores_before, self.points, strict=True)),
            deal_points=self.points,
            trump=self.turn_up.suit,
            turn_up=self.turn_up,
            current_trick=self.trick if self.phase is Phase.PLAY else None,
            tricks=self.tricks,
            history=history,
            robbed_by=self.robbed_by,
            buried=self.buried if seat == self.robbed_by else None,
            jinked_by=self.jinked_by,
            hand_sizes=tuple(map(len, self.hands)),
            extras=extras,
        )

    def recorded_action(self, index: int) -> dict[str, Any]:
        """The ``index``-th action as the record writes it: ``{"seat": s, "type": ..., ...}``."""
        seat, action = self.actions[index]
        return {"seat": seat, **action_to_json(action)}

    def _bonus_json(self) -> dict[str, Any] | None:
        bonus = self.bonus
        return None if bonus is None else {"seat": bonus[0], "card": bonus[1].code}

    def to_record(self, scores_before: Sequence[int]) -> dict[str, Any]:
        """This deal as a record deal object (docs/records.md, "A deal")."""
        record: dict[str, Any] = {
            "number": self.number,
            "dealer": self.dealer,
            "deck": codes(self.deck),
            "hands": {str(s): codes(hand) for s, hand in enumerate(self.dealt)},
            "turn_up": self.turn_up.code,
            "trump": self.turn_up.code[-1],
            "actions": [self.recorded_action(i) for i in range(len(self.actions))],
            "tricks": [{"leader": t.leader, "cards": codes(t.cards), "winner": t.winner} for t in self.tricks],
            "points": list(self.points),
            "scores": [b + p for b, p in zip(scores_before, self.points, strict=True)],
        }
        if self.config.bonus_points:
            record["bonus"] = self._bonus_json()
        if self.redeal:
            record["redeal"] = True
        return record


@dataclass(frozen=True, slots=True)
class SpoilFiveRules:
    """The :class:`tricktable.rules.game.GameRules` of one preset (twenty_five or forty_five)."""

    preset: SpoilFiveConfig

    @property
    def name(self) -> str:
        """The game's name: ``twenty_five`` or ``forty_five``."""
        return self.preset.game

    def config(self, options: Mapping[str, Any]) -> SpoilFiveConfig:
        """Validate ``options`` and resolve the defaults.

        Raises:
            OptionsError: see :func:`tricktable.rules.spoil_five_config.resolve`.
        """
        return resolve(self.preset, options)

    def start_deal(
        self,
        config: GameConfig,
        *,
        number: int,
        dealer: Seat,
        deck: Sequence[Card],
        scores: Sequence[int],
        redeal: bool,
    ) -> SpoilFiveDeal:
        """Deal ``deck`` (top card first) by the deal pattern and turn up the next card (1.2).

        Raises:
            ValueError: the deck is not the 52 cards once each, or ``config`` is not this family's.
        """
        cfg = _own(config)
        deck = tuple(deck)
        if len(deck) != 52 or set(deck) != set(cfg.deck()):
            raise ValueError("a Spoil Five deck must hold the 52 cards once each")
        dealt = deal_cards(deck, cfg.players, dealer, cfg.pattern)
        turn_up = deck[dealt.used]
        ranking = RANKINGS[turn_up.printed_suit]
        if cfg.robbing and turn_up is ranking.ace_of_trumps:
            phase = Phase.ROB
        elif cfg.jink:
            phase = Phase.JINK
        else:
            phase = Phase.PLAY
        return SpoilFiveDeal(
            config=cfg, number=number, dealer=dealer, deck=deck, dealt=dealt.hands, turn_up=turn_up,
            scores_before=tuple(scores), redeal=redeal, phase=phase, hands=dealt.hands,
            trick=Trick(leader=(dealer + 1) % cfg.players, cards=()), points=(0,) * cfg.side_count,
            events=(TrumpSet(trump=turn_up.suit),),
        )

    def match_result(self, config: GameConfig, deal: DealState, scores: Sequence[int]) -> Result | None:
        """The result once a deal is over, or None to deal again (1.6, 1.7)."""
        cfg = _own(config)
        if not deal.is_over:
            return None
        scores = tuple(scores)
        if isinstance(deal, SpoilFiveDeal) and deal.jinked_by is not None and not deal.jink_made:
            # 1.7: a failed jink ends the game; the other sides with the highest total win.
            loser = cfg.side_of(deal.jinked_by)
            best = max(s for k, s in enumerate(scores) if k != loser)
            winners = tuple(k for k, s in enumerate(scores) if k != loser and s == best)
            return Result(status="finished", winners=winners, scores=scores, reason="jink failed")
        for side in counting_order(cfg, deal.dealer):
            if scores[side] >= cfg.target:
                return Result(status="finished", winners=(side,), scores=scores, reason="target reached")
        return None


def counting_order(config: SpoilFiveConfig, dealer: Seat) -> list[int]:
    """Sides in counting order (1.7): from eldest hand's side clockwise by seat, the dealer's side last."""
    order: list[int] = []
    for i in range(1, config.players + 1):
        side = config.side_of((dealer + i) % config.players)
        if side not in order:
            order.append(side)
    return order


def _own(config: GameConfig) -> SpoilFiveConfig:
    if not isinstance(config, SpoilFiveConfig):
        raise ValueError(f"not a Spoil Five config: {config!r}")
    return config


#: The engines of the family's two games, by name (their definitions: tricktable.rules.spoil_five_game).
RULES: dict[str, GameRules] = {
    "twenty_five": SpoilFiveRules(TWENTY_FIVE),
    "forty_five": SpoilFiveRules(FORTY_FIVE),
}
