"""A tiny trick game for tests that must not wait for the real games, and the example of docs/adding-a-game.md.

Each player is dealt three cards; must follow suit; the highest card of the
suit led wins; a trick is one point; the first side to ``target`` points wins.
It implements the :mod:`tricktable.rules.game` contract honestly, so the server drives it
exactly as it drives the real games, and it is a whole game the way the guide
says: :data:`TOY` is its definition, registered by tests as ``"toy"``
(``tests/docs/test_adding_a_game.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tricktable.rules.actions import Action, Play
from tricktable.rules.cards import Card, codes, standard_deck
from tricktable.rules.dealing import deal
from tricktable.rules.definition import BotTuning, FollowRule, GameDefinition, OptionSpec
from tricktable.rules.errors import ErrorCode, OptionsError, RuleError
from tricktable.rules.events import DealScored, Event, TrickWon, event_of, history_seen_by
from tricktable.rules.game import Result, Seat, SeatView, Trick
from tricktable.rules.record import action_to_json
from tricktable.rules.tricks import follow_suit_plays, next_to_play, remove_card, trick_winner

HAND = 3


def trick_strength(card: Card, led: Card) -> int:
    """A card of the suit led by its rank; any other card cannot win."""
    return 100 + card.rank if card.suit is led.suit else 0


@dataclass(frozen=True, slots=True, kw_only=True)
class ToyConfig:
    game: str = "toy"
    players: int = 2
    target: int = 3
    first_dealer: Seat | None = None

    @property
    def sides(self) -> tuple[tuple[Seat, ...], ...]:
        return tuple((s,) for s in range(self.players))

    def to_options(self) -> dict[str, Any]:
        return {"players": self.players, "target": self.target, "first_dealer": self.first_dealer}

    def deck(self) -> tuple[Card, ...]:
        return standard_deck()


@dataclass(frozen=True, slots=True, kw_only=True)
class ToyDeal:
    config: ToyConfig
    number: int
    dealer: Seat
    deck: tuple[Card, ...]
    dealt: tuple[tuple[Card, ...], ...]
    hands: tuple[tuple[Card, ...], ...]
    tricks: tuple[Trick, ...] = ()
    current: Trick | None = None
    actions: tuple[tuple[Seat, Action], ...] = ()
    redeal: bool = False
    scores_before: tuple[int, ...] = ()
    events: tuple[Event, ...] = ()

    @property
    def to_act(self) -> Seat | None:
        if self.is_over:
            return None
        if self.current is None:
            return self.tricks[-1].winner if self.tricks else (self.dealer + 1) % self.config.players
        return next_to_play(self.current, self.config.players)

    @property
    def is_over(self) -> bool:
        return len(self.tricks) == HAND

    @property
    def is_void(self) -> bool:
        return False

    @property
    def points(self) -> tuple[int, ...]:
        return tuple(sum(1 for t in self.tricks if t.winner == s) for s in range(self.config.players))

    def legal_actions(self) -> list[Action]:
        seat = self.to_act
        if seat is None:
            return []
        led = self.current.cards[0].suit if self.current else None
        return [Play(card=c) for c in sorted(follow_suit_plays(self.hands[seat], led))]

    def check(self, action: Action, seat: Seat | None = None) -> None:
        if self.is_over:
            raise RuleError(ErrorCode.GAME_OVER, "the deal is over")
        if seat is not None and seat != self.to_act:
            raise RuleError(ErrorCode.NOT_YOUR_TURN, f"seat {self.to_act} is to act, not seat {seat}")
        if not isinstance(action, Play):
            raise RuleError(ErrorCode.WRONG_PHASE, f"{action.type} is not allowed: play a card")
        assert self.to_act is not None
        if action.card not in self.hands[self.to_act]:
            raise RuleError(ErrorCode.CARD_NOT_IN_HAND, f"{action.card.code} is not in your hand")
        if action not in self.legal_actions():
            raise RuleError(ErrorCode.MUST_FOLLOW_SUIT, f"{action.card.code} does not follow suit")

    def apply(self, action: Action, seat: Seat | None = None) -> ToyDeal:
        self.check(action, seat)
        assert isinstance(action, Play)
        who = self.to_act
        assert who is not None
        hands = list(self.hands)
        hands[who] = remove_card(hands[who], action.card)
        current: Trick | None = self.current or Trick(leader=who, cards=())
        assert current is not None
        current = replace(current, cards=(*current.cards, action.card))
        tricks = self.tricks
        players = self.config.players
        events = (*self.events, event_of(who, action))
        if len(current.cards) == players:
            lead = current.cards[0]
            current = replace(current, winner=trick_winner(current.leader, current.cards, players,
                                                           lambda c: trick_strength(c, lead)))
            tricks = (*tricks, current)
            current = None
        after = replace(self, hands=tuple(hands), current=current, tricks=tricks,
                        actions=(*self.actions, (who, action)))
        if len(tricks) > len(self.tricks):
            events = (*events, TrickWon(number=len(tricks), trick=tricks[-1], deal_points=after.points))
            if after.is_over:
                scores = tuple(a + b for a, b in zip(self.scores_before, after.points, strict=True))
                events = (*events, DealScored(number=self.number, points=after.points, scores=scores))
        return replace(after, events=events)

    def view(self, seat: Seat, scores_before: Sequence[int]) -> SeatView:
        points = self.points
        return SeatView(
            game="toy", options=self.config.to_options(), seat=seat, players=self.config.players,
            sides=self.config.sides, deal_number=self.number, dealer=self.dealer, hand=self.hands[seat],
            to_act=self.to_act, legal_actions=tuple(self.legal_actions()) if self.to_act == seat else (),
            scores=tuple(a + b for a, b in zip(scores_before, points, strict=True)), deal_points=points,
            current_trick=self.current, tricks=self.tricks,
            history=history_seen_by(self.events, seat),
            hand_sizes=tuple(len(h) for h in self.hands),
        )

    def recorded_action(self, index: int) -> dict[str, Any]:
        seat, action = self.actions[index]
        return {"seat": seat, **action_to_json(action)}

    def to_record(self, scores_before: Sequence[int]) -> dict[str, Any]:
        return {
            "number": self.number, "dealer": self.dealer, "deck": codes(self.deck),
            "hands": {str(s): codes(h) for s, h in enumerate(self.dealt)},
            "trump": None,
            "actions": [self.recorded_action(i) for i in range(len(self.actions))],
            "tricks": [{"leader": t.leader, "cards": codes(t.cards), "winner": t.winner} for t in self.tricks],
            "points": list(self.points),
            "scores": [a + b for a, b in zip(scores_before, self.points, strict=True)],
        }


class ToyRules:
    name = "toy"

    def config(self, options: Mapping[str, Any]) -> ToyConfig:
        unknown = set(options) - {"players", "target", "first_dealer"}
        if unknown:
            raise OptionsError(f"toy: unknown options {sorted(unknown)}")
        players = options.get("players", 2)
        if not isinstance(players, int) or not 2 <= players <= 4:
            raise OptionsError(f"toy: players must be 2 to 4, not {players!r}")
        target = options.get("target", 3)
        if not isinstance(target, int) or target < 1:
            raise OptionsError(f"toy: target must be a positive integer, not {target!r}")
        return ToyConfig(players=players, target=target, first_dealer=options.get("first_dealer"))

    def start_deal(self, config: Any, *, number: int, dealer: Seat, deck: Sequence[Card],
                   scores: Sequence[int], redeal: bool) -> ToyDeal:
        dealt = deal(deck, config.players, dealer, [HAND]).hands
        return ToyDeal(config=config, number=number, dealer=dealer, deck=tuple(deck), dealt=dealt, hands=dealt,
                       redeal=redeal, scores_before=tuple(scores))

    def match_result(self, config: Any, deal: Any, scores: Sequence[int]) -> Result | None:
        best = max(scores)
        if best < config.target:
            return None
        winners = tuple(i for i, s in enumerate(scores) if s == best)
        return Result(status="finished", winners=winners, scores=tuple(scores), reason="target reached")


RULES = ToyRules()


# --- the definition (docs/adding-a-game.md, step 2) -------------------------------

def strength(view: SeatView, card: Card, trick: Trick | None) -> int:
    """The engine's own trick strength; the card leads an empty trick."""
    return trick_strength(card, trick.cards[0] if trick is not None and trick.cards else card)


def follow_rule(view: SeatView) -> FollowRule:
    """Follow suit when you can."""
    return lambda trick, card, other: card in follow_suit_plays((card, other), trick.cards[0].suit)


def choose_action(view: SeatView) -> Action:
    """The toy's heuristic: the highest card allowed (a bot strategy module exports ``choose_action``)."""
    return max(view.legal_actions, key=lambda a: a.card.rank if isinstance(a, Play) else -1)


#: The toy's line of ``tricktable.rules.registry.GAME_MODULES`` (tests add it; a real game's is in registry.py).
REGISTRY_ENTRY = "tests.server.toy_game:TOY"

TOY = GameDefinition(
    rules=RULES,
    options=(OptionSpec("players", "int"), OptionSpec("target", "int"), OptionSpec("first_dealer", "int")),
    follow_rule=follow_rule,
    is_trump=lambda view, card: False,
    strength=strength,
    lowness=lambda view, card: (card.rank, card.index),
    fast=None,
    bots=BotTuning(heuristic="tests.server.toy_game", win_bonus=1.0, playout="greedy", solve_at=0),
    short_options={},
    demo_bot="random",
    demo_options={},
)
