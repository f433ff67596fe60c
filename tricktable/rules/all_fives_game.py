"""All Fives as a definition: its engine with everything else it knows (docs/games.md section 2).

Plain ranks, A high; trumps over the suit led over the rest; a seat must
follow suit when it can.
"""

from __future__ import annotations

from tricktable.rules.all_fives import RULES, trick_strength
from tricktable.rules.cards import Card
from tricktable.rules.definition import BotTuning, FollowRule, GameDefinition, OptionSpec, known_trump
from tricktable.rules.fast.codec import ALL_FIVES_ENGINE
from tricktable.rules.game import SeatView, Trick
from tricktable.rules.tricks import follow_suit_plays


def is_trump(view: SeatView, card: Card) -> bool:
    """A card of the turn-up's suit."""
    return card.suit is known_trump(view)


def strength(view: SeatView, card: Card, trick: Trick | None) -> int:
    """The engine's own trick strength (2.3); a card of neither trump nor the suit led cannot win."""
    trump = known_trump(view)
    if trump is None:  # no-trump exists only in Cinq Cents
        raise ValueError(f"{view.game}: a deal at no-trump has no All Fives ranking")
    led = trick.cards[0] if trick is not None and trick.cards else card
    return trick_strength(card, trump, led.suit) if card.suit in (trump, led.suit) else 0


def lowness(view: SeatView, card: Card) -> tuple[int, int, int]:
    """Not trump before trump, each 2 lowest and A highest, then the card index (the default action's order)."""
    trump = view.trump
    return (int(trump is not None and card.suit is trump), card.rank, card.index)


def follow_rule(view: SeatView) -> FollowRule:
    """Follow suit when you can (2.3)."""
    return lambda trick, card, other: card in follow_suit_plays((card, other), trick.cards[0].suit)


#: A short game for the conformance suite: 11 points, a few deals of random play.
ALL_FIVES = GameDefinition(
    rules=RULES,
    options=(OptionSpec("players", "int"), OptionSpec("target", "int"), OptionSpec("first_dealer", "int")),
    follow_rule=follow_rule, is_trump=is_trump, strength=strength, lowness=lowness, fast=ALL_FIVES_ENGINE,
    bots=BotTuning(heuristic="tricktable.bots.heuristic.all_fives", win_bonus=5.0, playout="greedy", solve_at=0),
    short_options={"target": 11}, demo_bot="random", demo_options={},
)

__all__ = ["ALL_FIVES", "follow_rule", "is_trump", "lowness", "strength"]
