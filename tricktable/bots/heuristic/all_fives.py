"""A rule-of-thumb player for All Fives (docs/games.md section 2), from the seat's view only.

Points come only from trumps taken in tricks: A 4, K 3, Q 2, J 1, 10 10,
5 5. So the play is a fight for the 10 and the 5 of trumps:

- **Stand or beg** by counting-card strength: stand with three trumps, or
  two holding the A or K, or any trump holding ten-or-more counting points;
  otherwise beg. The dealer **gifts** when the proposed trump suits their own
  hand (the same measure), and **runs** the pack otherwise.
- **Lead the boss trump** (the highest still out) while the opponents may
  hold the 10 or the 5: they must follow suit and may have to give it up.
  Lead the 10 or the 5 itself only when it is the boss.
- **Capture**: as the last to play, win with the card that brings our own
  counting card home, or the cheapest winner; earlier, win a trick holding
  points with a boss card.
- **Never feed points**: a card that cannot win is the lowest non-counting
  card we may play.
"""

from __future__ import annotations

from tricktable.bots.heuristic import _common as common
from tricktable.rules.actions import Action, Beg, Gift, Run, Stand
from tricktable.rules.cards import Card, Suit, of
from tricktable.rules.game import SeatView, Trick

#: Points of a trump taken in a trick (docs/games.md 2.4).
COUNTING = {14: 4, 13: 3, 12: 2, 11: 1, 10: 10, 5: 5}


def choose_action(view: SeatView) -> Action:
    """The heuristic's action for ``view`` (which must have legal actions)."""
    legal = view.legal_actions
    if any(isinstance(a, Stand) for a in legal):
        return Stand() if _strong(view.hand, _proposed(view)) else Beg()
    if any(isinstance(a, Run) for a in legal):
        gift_ok = any(isinstance(a, Gift) for a in legal)
        return Gift() if gift_ok and _strong(view.hand, _proposed(view)) else Run()
    return common.play_of(view, _play(view))


def points(card: Card, trump: Suit | None) -> int:
    """What ``card`` is worth to whoever takes it."""
    return COUNTING.get(card.rank, 0) if card.suit is trump else 0


def _proposed(view: SeatView) -> Suit:
    if view.turn_up is None:
        raise ValueError("an All Fives stand, beg or gift comes after the turn-up: this view has none")
    return view.turn_up.printed_suit


def _strong(hand: tuple[Card, ...], trump: Suit) -> bool:
    """Worth keeping this trump: length, high trumps, or the 10 or 5 to bring home."""
    trumps = [c for c in hand if c.suit is trump]
    high = any(c.rank >= 13 for c in trumps)
    value = sum(points(c, trump) for c in trumps)
    return len(trumps) >= 3 or (len(trumps) >= 2 and high) or value >= 10


def _power(card: Card, trump: Suit | None) -> int:
    return card.rank + (100 if card.suit is trump else 0)


def _strength(trump: Suit | None) -> common.Strength:
    def strength(card: Card, trick: Trick) -> int:
        if card.suit is trump:
            return 100 + card.rank
        return card.rank if card.suit is trick.cards[0].suit else 0
    return strength


def _boss(view: SeatView, card: Card) -> bool:
    """No card of ``card``'s suit above it is still out of sight (played, exposed or ours are seen)."""
    known = common.played_cards(view) | set(view.hand) | set(view.exposed)
    return not common.unseen_above(_suit_cards(card.printed_suit), card, known)


def _suit_cards(suit: Suit) -> list[Card]:
    return [of(rank, suit) for rank in range(14, 1, -1)]


def _throw(cards: list[Card], trump: Suit | None) -> Card:
    """The card that costs least: no points, low rank, plain before trump."""
    return common.lowest(cards, key=lambda c: points(c, trump) * 100 + _power(c, trump))


def _play(view: SeatView) -> Card:
    trump = view.trump
    cards = [p.card for p in common.plays(view)]
    if len(cards) == 1:
        return cards[0]
    trick = view.current_trick
    if trick is None or not trick.cards:
        return _lead(view, cards, trump)
    strength = _strength(trump)
    winners = [c for c in cards if common.beats(view, strength, c)]
    if not winners:
        return _throw(cards, trump)
    at_stake = sum(points(c, trump) for c in trick.cards)
    if common.last_to_play(view):
        # Take the trick with our own counting card if one wins; else the cheapest winner.
        best = max(winners, key=lambda c: (points(c, trump), -_power(c, trump)))
        if points(best, trump) > 0 or at_stake > 0:
            return best
        cheap = common.lowest(winners, key=lambda c: _power(c, trump))
        return cheap if cheap.suit is not trump else _throw(cards, trump)
    bosses = [c for c in winners if _boss(view, c)]
    if bosses and (at_stake > 0 or any(c.suit is not trump for c in bosses)):
        return common.lowest(bosses, key=lambda c: points(c, trump) * 100 + _power(c, trump))
    return _throw(cards, trump)


def _lead(view: SeatView, cards: list[Card], trump: Suit | None) -> Card:
    trumps = sorted((c for c in cards if c.suit is trump), key=lambda c: -c.rank)
    known = common.played_cards(view) | set(view.hand) | set(view.exposed)
    points_out = [c for c in _suit_cards(trump) if points(c, trump) >= 5 and c not in known] if trump else []
    if trumps and _boss(view, trumps[0]) and (points_out or points(trumps[0], trump) > 0):
        return trumps[0]
    plain = [c for c in cards if c.suit is not trump]
    bosses = [c for c in plain if _boss(view, c)]
    if bosses:
        return common.highest(bosses, key=lambda c: c.rank)
    if plain:
        return common.lowest(plain, key=lambda c: c.rank)
    return _throw(cards, trump)


class AllFivesHeuristic:
    """The heuristic as a bot object (``choose_action(view) -> action``)."""

    name = "heuristic"

    def choose_action(self, view: SeatView) -> Action:
        """See :func:`choose_action`."""
        return choose_action(view)
