"""The ranking helper: how strongly a card contends for a trick, in whichever game the view is of.

Each game ranks cards its own way (docs/games.md 1.3, 2.1, 3.4): the Spoil Five
family's 5 and J of trumps and A of hearts, red and black suits ranking
differently, All Fives' plain A-high order, Cinq Cents' jokers and bowers.
A bot author should not need three modules of the rules engine to ask "does
this card win the trick?", so this module answers it from the
:class:`tricktable.rules.game.SeatView` alone, through the game's own definition
(:mod:`tricktable.rules.registry`: the engine's ranking tables, never a second copy of the rules).

``strength(view, card)`` is 0 when the card cannot win the trick (a plain
card off the suit led); higher numbers win. Numbers only compare within one
trick of one deal.
"""

from __future__ import annotations

from tricktable.rules.cards import Card
from tricktable.rules.game import Seat, SeatView, Trick
from tricktable.rules.registry import game_definition


def is_trump(view: SeatView, card: Card) -> bool:
    """Whether ``card`` is a trump in this deal (the A of hearts in the Spoil Five family, Cinq Cents' jokers and
    second bower included).

    Raises:
        ValueError: before trump is known (bidding, begging).
    """
    return game_definition(view.game).is_trump(view, card)


def strength(view: SeatView, card: Card, trick: Trick | None = None) -> int:
    """How strongly ``card`` contends for ``trick`` (default: the view's current trick); 0 when it cannot win.

    On an empty trick the card is measured as the lead. Cards already in the
    trick are measured the same way, so ``max`` over them gives the winner
    so far.

    Raises:
        ValueError: before trump is known (bidding, begging).
    """
    return game_definition(view.game).strength(view, card, trick if trick is not None else view.current_trick)


def winning(view: SeatView) -> tuple[Seat, Card] | None:
    """The seat winning the current trick so far and its card; None before the lead."""
    trick = view.current_trick
    if trick is None or not trick.cards:
        return None
    seats = trick.seats(view.players)
    best = max(range(len(trick.cards)), key=lambda i: strength(view, trick.cards[i], trick))
    return seats[best], trick.cards[best]


def would_win(view: SeatView, card: Card) -> bool:
    """Whether ``card`` played now would be winning the current trick as it stands (the lead always is)."""
    trick = view.current_trick
    if trick is None or not trick.cards:
        return True
    return strength(view, card, trick) > max(strength(view, c, trick) for c in trick.cards)
