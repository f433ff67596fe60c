"""What every heuristic bot reads off a :class:`rules.game.SeatView`: tricks per side, the trick so far, cards seen.

Nothing here knows a game's ranking: the caller passes a ``strength``
function ``(card, trick) -> int`` (0 = cannot win the trick), so the three
game modules share the bookkeeping and keep only their strategy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from tricktable.rules.actions import Action, Play
from tricktable.rules.cards import Card
from tricktable.rules.game import Seat, SeatView, Trick

#: How strongly a card contends for a trick (0: it cannot win it).
Strength = Callable[[Card, Trick], int]


def plays(view: SeatView) -> list[Play]:
    """The legal ``Play`` actions of the view."""
    return [a for a in view.legal_actions if isinstance(a, Play)]


def my_side(view: SeatView) -> int:
    """The side of the seat that owns the view."""
    return view.side_of(view.seat)


def partners(view: SeatView) -> tuple[Seat, ...]:
    """The other seats of this seat's side."""
    return tuple(s for s in view.sides[my_side(view)] if s != view.seat)


def tricks_per_side(view: SeatView) -> list[int]:
    """Completed tricks won by each side so far in this deal."""
    won = [0] * len(view.sides)
    for trick in view.tricks:
        if trick.winner is not None:
            won[view.side_of(trick.winner)] += 1
    return won


def played_cards(view: SeatView) -> set[Card]:
    """Every card played to a trick in this deal, the current trick included."""
    seen: set[Card] = set()
    for trick in all_tricks(view):
        seen.update(trick.cards)
    return seen


def all_tricks(view: SeatView) -> list[Trick]:
    """Completed tricks then the current one (if it has cards)."""
    out = list(view.tricks)
    if view.current_trick is not None and view.current_trick.cards:
        out.append(view.current_trick)
    return out


def plays_by(view: SeatView, seat: Seat) -> list[tuple[Trick, int, Card]]:
    """``(trick, position in trick, card)`` for every card ``seat`` played this deal."""
    out = []
    for trick in all_tricks(view):
        for position, (who, c) in enumerate(zip(trick.seats(view.players), trick.cards, strict=True)):
            if who == seat:
                out.append((trick, position, c))
    return out


def current_winner(view: SeatView, strength: Strength) -> tuple[Seat, Card] | None:
    """The seat winning the current trick so far and its card (None before the lead)."""
    trick = view.current_trick
    if trick is None or not trick.cards:
        return None
    seats = trick.seats(view.players)
    best = max(range(len(trick.cards)), key=lambda i: strength(trick.cards[i], trick))
    return seats[best], trick.cards[best]


def beats(view: SeatView, strength: Strength, card: Card) -> bool:
    """True when ``card`` played now would win the current trick as it stands."""
    trick = view.current_trick
    if trick is None or not trick.cards:
        return True
    best = max(strength(c, trick) for c in trick.cards)
    return strength(card, trick) > best


def last_to_play(view: SeatView) -> bool:
    """True when this seat plays the last card of the current trick."""
    trick = view.current_trick
    return trick is not None and len(trick.cards) == view.players - 1


def lowest(cards: Iterable[Card], key: Callable[[Card], int]) -> Card:
    """The card with the smallest ``key`` (ties: lowest card index, so choices are deterministic)."""
    return min(cards, key=lambda c: (key(c), c.index))


def highest(cards: Iterable[Card], key: Callable[[Card], int]) -> Card:
    """The card with the largest ``key`` (ties: lowest card index)."""
    return max(cards, key=lambda c: (key(c), -c.index))


def play_of(view: SeatView, card: Card) -> Action:
    """The legal action that plays ``card`` (the first, if several name a suit)."""
    for action in view.legal_actions:
        if isinstance(action, Play) and action.card is card:
            return action
    raise ValueError(f"{card} is not a legal play")


def unseen_above(order: Sequence[Card], card: Card, known: set[Card]) -> list[Card]:
    """Cards ranked above ``card`` in ``order`` (high to low) that are not in ``known``."""
    out = []
    for c in order:
        if c is card:
            break
        if c not in known:
            out.append(c)
    return out
