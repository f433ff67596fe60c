"""Dealing from the top of a deck, as docs/games.md's common rules describe it.

"Deal k each" gives k cards to eldest hand (the dealer's left), then k to
the next seat clockwise, the dealer last. A pattern may also send cards to
the kitty (Cinq Cents). Shared by every game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tricktable.rules.cards import Card
from tricktable.rules.game import Seat

#: A pattern step: a number of cards to each seat, or ``("kitty", k)`` for k cards to the kitty.
Step = int | tuple[str, int]


@dataclass(frozen=True, slots=True)
class Dealt:
    """Hands after a deal (indexed by seat), the kitty, and how many cards of the deck were used."""

    hands: tuple[tuple[Card, ...], ...]
    kitty: tuple[Card, ...]
    used: int


def seats_from_eldest(dealer: Seat, players: int) -> list[Seat]:
    """Seats in dealing order: eldest hand first, the dealer last."""
    return [(dealer + 1 + i) % players for i in range(players)]


def deal(deck: Sequence[Card], players: int, dealer: Seat, pattern: Sequence[Step],
         start: int = 0) -> Dealt:
    """Deal ``deck`` from position ``start`` following ``pattern``.

    Raises:
        ValueError: when the deck is too short for the pattern.
    """
    hands: list[list[Card]] = [[] for _ in range(players)]
    kitty: list[Card] = []
    pos = start
    order = seats_from_eldest(dealer, players)
    for step in pattern:
        if isinstance(step, tuple):
            _, k = step
            kitty.extend(deck[pos:pos + k])
            pos += k
            continue
        for seat in order:
            hands[seat].extend(deck[pos:pos + step])
            pos += step
    if pos > len(deck):
        raise ValueError(f"the deck has {len(deck)} cards; the deal needs {pos}")
    return Dealt(tuple(tuple(h) for h in hands), tuple(kitty), pos)
