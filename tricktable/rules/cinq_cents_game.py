"""Cinq Cents as a definition: its engine with everything else it knows (docs/games.md section 3).

The jokers and the bowers rank above the trump suit (3.4), the second bower
belongs to the trump suit, a joker led at no-trump names its suit, and the
declarer discards six cards after taking the kitty.
"""

from __future__ import annotations

from tricktable.rules.cards import SUITS, Card, Suit
from tricktable.rules.cinq_cents import RULES
from tricktable.rules.cinq_cents_play import led_suit, legal_plays, suit_of
from tricktable.rules.cinq_cents_play import strength as play_strength
from tricktable.rules.definition import BotTuning, FollowRule, GameDefinition, OptionSpec, known_trump
from tricktable.rules.fast.codec import CINQ_CENTS_ENGINE
from tricktable.rules.game import SeatView, Trick


def is_trump(view: SeatView, card: Card) -> bool:
    """A card of the trump suit, the second bower and the jokers included; nothing at no-trump."""
    trump = known_trump(view)
    return trump is not None and suit_of(card, trump) is trump


def strength(view: SeatView, card: Card, trick: Trick | None) -> int:
    """The engine's own strength against the suit led; a joker at no-trump outranks every suit (3.4)."""
    trump = known_trump(view)
    if card.is_joker and trump is None:
        return play_strength(card, None, Suit.SPADES)
    following = trick if trick is not None and trick.cards else Trick(leader=view.seat, cards=(card,))
    return play_strength(card, trump, led_suit(following, trump))


def lowness(view: SeatView, card: Card) -> tuple[int, int, int]:
    """Not trump before trump (jokers are trumps), each by its strength in its own suit, then the card index.

    A joker at no-trump belongs to no suit and ranks by the jokers' own order (La Blanche above Le Fou),
    whatever suit is named.
    """
    trump = view.trump
    trumps = card.is_joker or (trump is not None and suit_of(card, trump) is trump)
    led = card.suit if card.suit is not None else trump if trump is not None else SUITS[0]
    return (int(trumps), play_strength(card, trump, led), card.index)


def follow_rule(view: SeatView) -> FollowRule:
    """The engine's own legal plays (3.5), asked of a two-card hand."""
    trump = view.trump

    def rule(trick: Trick, card: Card, other: Card) -> bool:
        plays = legal_plays((card, other), trick, trump, (), trick.leader)
        return any(p.card is card for p in plays)
    return rule


#: Random bidders never reach 1000 (docs/games.md sets no floor): the conformance suite plays to 100, where
#: the defenders' 10 a trick end a game within a few deals; the demo's heuristic players to 500.
CINQ_CENTS = GameDefinition(
    rules=RULES,
    options=(OptionSpec("players", "int"), OptionSpec("target", "int"), OptionSpec("first_dealer", "int"),
             OptionSpec("bid_values", "bid_values")),
    follow_rule=follow_rule, is_trump=is_trump, strength=strength, lowness=lowness, fast=CINQ_CENTS_ENGINE,
    bots=BotTuning(heuristic="tricktable.bots.heuristic.cinq_cents", win_bonus=100.0, playout="greedy", solve_at=0),
    short_options={"target": 100}, demo_bot="heuristic", demo_options={"target": 500},
)

__all__ = ["CINQ_CENTS", "follow_rule", "is_trump", "lowness", "strength"]
