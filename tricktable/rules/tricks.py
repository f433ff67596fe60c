"""Trick play shared by every game: whose turn, who won, what a seat may see.

A game supplies how cards rank (a ``strength`` function for the trick's
context); this module keeps the mechanics that docs/games.md states once for all
games: the leader plays, then each other player clockwise, and the winner
leads the next trick.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tricktable.rules.cards import Card, Suit
from tricktable.rules.game import Seat, Trick


def next_to_play(trick: Trick, players: int) -> Seat:
    """The seat whose card comes next in an unfinished trick."""
    return (trick.leader + len(trick.cards)) % players


def trick_winner(leader: Seat, played: Sequence[Card], players: int,
                 strength: Callable[[Card], int]) -> Seat:
    """The seat of the strongest card; ``strength`` must already encode trump and the suit led.

    Cards that can not win (off-suit, non-trump) should get a strength below
    every card that can; ties never happen between distinct cards.
    """
    best = max(range(len(played)), key=lambda i: strength(played[i]))
    return (leader + best) % players


def remove_card(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    """The hand without ``card`` (which must be in it)."""
    i = hand.index(card)
    return hand[:i] + hand[i + 1:]


def follow_suit_plays(hand: Sequence[Card], led: Suit | None,
                      suit_of: Callable[[Card], Suit | None] = lambda c: c.suit) -> list[Card]:
    """Strict follow: the cards of ``hand`` in suit ``led``, or the whole hand when it holds none.

    ``led`` None (the seat leads) allows the whole hand. ``suit_of`` gives a
    card's suit for following, for games where a card follows another suit
    than its own (Cinq Cents' second bower and jokers).
    """
    if led is None:
        return list(hand)
    following = [c for c in hand if suit_of(c) is led]
    return following or list(hand)
