"""A rule-of-thumb player for Cinq Cents québécois (rules.md section 3), from the seat's view only.

- **Bid from a hand evaluation**: for each denomination, count likely
  tricks (jokers and bowers nearly sure, the ace of trumps good, each trump
  beyond four worth more, side aces; at no-trump jokers, aces and guarded
  kings), add what partner and the kitty bring on average, and bid the
  highest-valued contract the count supports. A partner's standing bid is
  left alone unless our own hand is much stronger; a partner overcalled by
  the opponents is supported in their denomination.
- **Discard**: keep trumps, aces and guarded kings; throw the low cards of
  the short suits first, to make voids.
- **Play to the contract**: the declaring side draws trumps with its boss
  trumps, then cashes boss cards; the defence leads boss cards and its
  partner's suit, never trumps. Partner winning: play low; opponent
  winning: win as cheaply as possible; otherwise throw the cheapest card.
"""

from __future__ import annotations

from bots.heuristic import _common as common
from rules.actions import Action, Bid, Denomination, Discard, Pass
from rules.cards import ACE, KING, QUEEN, SUITS, Card, Suit
from rules.cinq_cents_play import led_suit, plain_order, strength, suit_of, trump_order
from rules.game import SeatView, Trick

#: Tricks a partner and the kitty add to a bidder's own count, on average.
PARTNER_AND_KITTY = 2.0
#: Extra margin a bid at no-trump needs (it has no trumps to fall back on).
NO_TRUMP_MARGIN = 0.5


def choose_action(view: SeatView) -> Action:
    """The heuristic's action for ``view`` (which must have legal actions)."""
    legal = view.legal_actions
    if any(isinstance(a, Pass) for a in legal):
        return _bid(view)
    if any(isinstance(a, Discard) for a in legal):
        return _discard(view)
    return common.play_of(view, _play(view))


# --- bidding -------------------------------------------------------------

def estimate(hand: tuple[Card, ...] | list[Card], denomination: Denomination) -> float:
    """Tricks this hand should take alone with ``denomination`` as the contract's trump."""
    trump = denomination.suit
    if trump is None:
        return _estimate_no_trump(hand)
    order = trump_order(trump)
    held = [c for c in order if c in hand]
    weights = {0: 1.0, 1: 1.0, 2: 0.9, 3: 0.8, 4: 0.7, 5: 0.5}
    tricks = sum(weights.get(order.index(c), 0.3) for c in held)
    tricks += 0.6 * max(0, len(held) - 4)
    for suit in SUITS:
        if suit is trump:
            continue
        mine = [c for c in hand if not c.is_joker and suit_of(c, trump) is suit]
        ranks = {c.rank for c in mine}
        if ACE in ranks:
            tricks += 0.9
        if KING in ranks and (ACE in ranks or len(mine) >= 3):
            tricks += 0.4
        if len(mine) <= 1 and len(held) >= 4:
            tricks += 0.3
    return tricks


def _estimate_no_trump(hand: tuple[Card, ...] | list[Card]) -> float:
    tricks = float(sum(1 for c in hand if c.is_joker))
    for suit in SUITS:
        mine = [c for c in hand if c.suit is suit]
        ranks = {c.rank for c in mine}
        if ACE in ranks:
            tricks += 1.0 + 0.5 * max(0, len(mine) - 4)
        if KING in ranks and len(mine) >= 2:
            tricks += 0.6
        if QUEEN in ranks and len(mine) >= 3:
            tricks += 0.3
    return tricks


def _bid(view: SeatView) -> Action:
    bids = [a for a in view.legal_actions if isinstance(a, Bid)]
    mine = common.my_side(view)
    standing = [(s, b) for s, b in view.bids if b is not None]
    best_value, best_bid = 0.0, None
    for bid in bids:
        can = estimate(view.hand, bid.denomination) + PARTNER_AND_KITTY
        if bid.denomination is Denomination.NO_TRUMP:
            can -= NO_TRUMP_MARGIN
        for seat, (tricks, denomination) in standing:
            if view.side_of(seat) == mine and denomination is bid.denomination:
                can += max(0.0, tricks - 6.5)  # partner's bid shows tricks beyond the average
        if bid.tricks <= can and _value(bid) > best_value:
            best_value, best_bid = _value(bid), bid
    if best_bid is None:
        return Pass()
    if standing and view.side_of(standing[-1][0]) == mine and best_bid.tricks < standing[-1][1][0] + 2:
        return Pass()  # partner holds the contract: leave it unless we are much stronger
    return best_bid


def _value(bid: Bid) -> float:
    return bid.tricks * 100 + bid.denomination.order * 20


# --- discarding ----------------------------------------------------------

def keep_value(card: Card, hand: list[Card], trump: Suit | None) -> int:
    """How much a card is worth keeping: trumps and jokers most, then aces, guarded kings, long suits."""
    if trump is not None:
        order = trump_order(trump)
        if card in order:
            return 1000 - order.index(card)
    elif card.is_joker:
        return 1000
    suit = suit_of(card, trump)
    length = sum(1 for c in hand if not c.is_joker and suit_of(c, trump) is suit)
    if card.rank == ACE:
        return 500
    if card.rank == KING and length >= 2:
        return 300
    return card.rank + 3 * length


def _discard(view: SeatView) -> Action:
    assert view.contract is not None
    hand = list(view.hand)
    trump = view.contract.denomination.suit
    ordered = sorted(hand, key=lambda c: (keep_value(c, hand, trump), c.index))
    action = Discard(cards=tuple(sorted(ordered[:6], key=lambda c: c.index)))
    return action if action in view.legal_actions else view.legal_actions[0]


# --- play ----------------------------------------------------------------

def _strength(trump: Suit | None) -> common.Strength:
    def trick_strength(card: Card, trick: Trick) -> int:
        return strength(card, trump, led_suit(trick, trump))
    return trick_strength


def _order(suit: Suit | None, trump: Suit | None) -> list[Card]:
    """Cards of a following class, high to low (the trumps, or a plain suit)."""
    if suit is None:
        return []
    if trump is not None and suit is trump:
        return list(trump_order(trump))
    return list(plain_order(suit, trump))


def _known(view: SeatView) -> set[Card]:
    return common.played_cards(view) | set(view.hand) | set(view.discards)


def _boss(view: SeatView, card: Card) -> bool:
    trump = view.trump
    if card.is_joker and trump is None:
        return card.code == "JKB" or "JKB" in {c.code for c in _known(view)}
    return not common.unseen_above(_order(suit_of(card, trump), trump), card, _known(view))


def _is_trump(card: Card, trump: Suit | None) -> bool:
    return trump is not None and suit_of(card, trump) is trump


def _power(card: Card, trump: Suit | None) -> int:
    if _is_trump(card, trump) and trump is not None:
        return 100 + len(trump_order(trump)) - trump_order(trump).index(card)
    return 200 if card.is_joker else card.rank


def _throw(cards: list[Card], trump: Suit | None) -> Card:
    plain = [c for c in cards if not _is_trump(c, trump) and not c.is_joker]
    return common.lowest(plain or cards, key=lambda c: _power(c, trump))


def _play(view: SeatView) -> Card:
    cards = [p.card for p in common.plays(view)]
    if len(cards) == 1:
        return cards[0]
    trump = view.trump
    trick = view.current_trick
    if trick is None or not trick.cards:
        return _lead(view, cards, trump)
    trick_strength = _strength(trump)
    winning = common.current_winner(view, trick_strength)
    assert winning is not None
    winners = [c for c in cards if common.beats(view, trick_strength, c)]
    partner_ahead = view.side_of(winning[0]) == common.my_side(view)
    if not winners or (partner_ahead and (common.last_to_play(view) or _boss(view, winning[1]))):
        return _throw(cards, trump)
    if common.last_to_play(view):
        return common.lowest(winners, key=lambda c: _power(c, trump))
    bosses = [c for c in winners if _boss(view, c)]
    if bosses:
        return common.lowest(bosses, key=lambda c: _power(c, trump))
    if partner_ahead:
        return _throw(cards, trump)
    return common.lowest(winners, key=lambda c: _power(c, trump))


def _lead(view: SeatView, cards: list[Card], trump: Suit | None) -> Card:
    assert view.contract is not None
    declaring = view.side_of(view.contract.seat) == common.my_side(view)
    trumps = sorted((c for c in cards if _is_trump(c, trump)), key=lambda c: -_power(c, trump))
    if declaring and trumps and trump is not None:
        out = [c for c in trump_order(trump) if c not in _known(view)]
        if out:
            if _boss(view, trumps[0]):
                return trumps[0]
            if len(trumps) >= 3 and view.seat == view.contract.seat:
                return trumps[-1]
    plain = [c for c in cards if not _is_trump(c, trump) and not c.is_joker]
    bosses = [c for c in plain if _boss(view, c)]
    if bosses:
        return common.highest(bosses, key=lambda c: _power(c, trump))
    if plain:
        lengths = {s: sum(1 for c in plain if c.suit is s) for s in SUITS}
        suit = max(SUITS, key=lambda s: lengths[s])
        in_suit = [c for c in plain if c.suit is suit] or plain
        return common.lowest(in_suit, key=lambda c: _power(c, trump))
    return common.lowest(cards, key=lambda c: _power(c, trump))


class CinqCentsHeuristic:
    """The heuristic as a bot object (``choose_action(view) -> action``)."""

    name = "heuristic"

    def choose_action(self, view: SeatView) -> Action:
        """See :func:`choose_action`."""
        return choose_action(view)


__all__ = ["CinqCentsHeuristic", "choose_action", "estimate", "keep_value"]
