"""The ranking helper: how strongly a card contends for a trick, in whichever game the view is of.

Each game ranks cards its own way (docs/games.md 1.3, 2.1, 3.4): the Spoil Five
family's 5 and J of trumps and A of hearts, red and black suits ranking
differently, All Fives' plain A-high order, Cinq Cents' jokers and bowers.
A bot author should not need three modules of the rules engine to ask "does
this card win the trick?", so this module answers it from the
:class:`tricktable.rules.game.SeatView` alone, through the engine's own ranking tables
(never a second copy of the rules).

``strength(view, card)`` is 0 when the card cannot win the trick (a plain
card off the suit led); higher numbers win. Numbers only compare within one
trick of one deal.
"""

from __future__ import annotations

from tricktable.rules.all_fives import trick_strength
from tricktable.rules.cards import Card, Suit
from tricktable.rules.cinq_cents_play import led_suit
from tricktable.rules.cinq_cents_play import strength as cinq_cents_strength
from tricktable.rules.cinq_cents_play import suit_of as cinq_cents_suit_of
from tricktable.rules.game import Seat, SeatView, Trick
from tricktable.rules.spoil_five_ranking import RANKINGS, Ranking

#: Games whose trumps and ranks come from the Spoil Five family's tables.
_SPOIL_FIVE = ("twenty_five", "forty_five")


def _trump(view: SeatView) -> Suit | None:
    """The deal's trump (None at no-trump); raises before trump is known."""
    if view.trump is None and not view.no_trump:
        raise ValueError(f"{view.game}: no trump yet in deal {view.deal_number}, so cards have no trick strength")
    return view.trump


def _ranking(view: SeatView) -> Ranking:
    """The Spoil Five family's ranking for the deal's trump (there is always one: the turn-up's suit)."""
    trump = _trump(view)
    if trump is None:
        raise ValueError(f"{view.game}: a Spoil Five deal is never at no-trump")
    return RANKINGS[trump]


def is_trump(view: SeatView, card: Card) -> bool:
    """Whether ``card`` is a trump in this deal (the A of hearts in the Spoil Five family, Cinq Cents' jokers and
    second bower included).

    Raises:
        ValueError: before trump is known (bidding, begging).
    """
    if view.game in _SPOIL_FIVE:
        return _ranking(view).is_trump(card)
    trump = _trump(view)
    if view.game == "cinq_cents":
        return trump is not None and cinq_cents_suit_of(card, trump) is trump
    return card.suit is trump


def strength(view: SeatView, card: Card, trick: Trick | None = None) -> int:
    """How strongly ``card`` contends for ``trick`` (default: the view's current trick); 0 when it cannot win.

    On an empty trick the card is measured as the lead. Cards already in the
    trick are measured the same way, so ``max`` over them gives the winner
    so far.

    Raises:
        ValueError: before trump is known (bidding, begging).
    """
    trick = trick if trick is not None else view.current_trick
    led = trick.cards[0] if trick is not None and trick.cards else card
    if view.game in _SPOIL_FIVE:
        return _ranking(view).strength(card, led)
    trump = _trump(view)
    if view.game == "cinq_cents":
        if card.is_joker and trump is None:  # a joker at no-trump outranks every suit (docs/games.md 3.4)
            return cinq_cents_strength(card, None, Suit.SPADES)
        following = trick if trick is not None and trick.cards else Trick(leader=view.seat, cards=(card,))
        return cinq_cents_strength(card, trump, led_suit(following, trump))
    if trump is None:  # no-trump exists only in Cinq Cents
        raise ValueError(f"{view.game}: a deal at no-trump has no All Fives ranking")
    # All Fives (docs/games.md 2.3): the engine's own trick strength; a card of neither trump nor the
    # suit led cannot win.
    return trick_strength(card, trump, led.suit) if card.suit in (trump, led.suit) else 0


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
