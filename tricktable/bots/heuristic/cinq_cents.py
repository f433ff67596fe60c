"""A rule-of-thumb player for Cinq Cents québécois (docs/games.md section 3), from the seat's view only.

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

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from tricktable.bots.heuristic import _common as common
from tricktable.rules.actions import Action, Bid, Denomination, Discard, Pass
from tricktable.rules.cards import ACE, KING, LA_BLANCHE, LE_FOU, QUEEN, SUITS, Card, Suit, cinq_cents_deck
from tricktable.rules.cinq_cents_play import plain_order, suit_of, trump_order
from tricktable.rules.game import SeatView, Trick

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
    standing = [(view.side_of(s) == mine, b) for s, b in view.bids if b is not None]
    counts = {d: estimate(view.hand, d) for d in {b.denomination for b in bids}}
    bid = bid_from_counts(counts, bids, standing)
    return Pass() if bid is None else bid


def bid_from_counts(counts: Mapping[Denomination, float], bids: Sequence[Bid],
                    standing: Sequence[tuple[bool, tuple[int, Denomination]]]) -> Bid | None:
    """The heuristic's bid among the legal ``bids`` (None: pass), from its own trick ``counts`` per denomination
    and the ``standing`` bids so far, in order, each with whether our side made it.

    Apart from the view so that the search's simulated auctions (:mod:`tricktable.bots.search_bids`) bid exactly as
    this bot does, with each sampled hand's counts worked out once.
    """
    best_value, best_bid = 0.0, None
    for bid in bids:
        can = counts[bid.denomination] + PARTNER_AND_KITTY
        if bid.denomination is Denomination.NO_TRUMP:
            can -= NO_TRUMP_MARGIN
        for ours, (tricks, denomination) in standing:
            if ours and denomination is bid.denomination:
                can += max(0.0, tricks - 6.5)  # partner's bid shows tricks beyond the average
        if bid.tricks <= can and _value(bid) > best_value:
            best_value, best_bid = _value(bid), bid
    if best_bid is None:
        return None
    if standing and standing[-1][0] and best_bid.tricks < standing[-1][1][0] + 2:
        return None  # partner holds the contract: leave it unless we are much stronger
    return best_bid


def _value(bid: Bid) -> float:
    return bid.tricks * 100 + bid.denomination.order * 20


# --- discarding ----------------------------------------------------------

def keep_values(hand: tuple[Card, ...] | list[Card], trump: Suit | None) -> dict[Card, int]:
    """How much each card of ``hand`` is worth keeping: trumps and jokers most, then aces, guarded kings,
    long suits. The suit lengths are counted once (the search discards in every world it samples)."""
    trumps = {c: i for i, c in enumerate(trump_order(trump))} if trump is not None else {}
    suits = {c: suit_of(c, trump) for c in hand if not c.is_joker}
    lengths = Counter(suits.values())
    values: dict[Card, int] = {}
    for card in hand:
        if card in trumps:
            values[card] = 1000 - trumps[card]
        elif card.is_joker:
            values[card] = 1000
        elif card.rank == ACE:
            values[card] = 500
        elif card.rank == KING and lengths[suits[card]] >= 2:
            values[card] = 300
        else:
            values[card] = card.rank + 3 * lengths[suits[card]]
    return values


def keep_order(hand: tuple[Card, ...] | list[Card], trump: Suit | None) -> list[Card]:
    """``hand`` from the card least worth keeping to the most (ties in card order)."""
    values = keep_values(hand, trump)
    return sorted(hand, key=lambda c: (values[c], c.index))


def discard_for(hand: tuple[Card, ...] | list[Card], trump: Suit | None) -> tuple[Card, ...]:
    """The six cards to discard from the declarer's 16 (in card order): the lowest keep values."""
    return tuple(sorted(keep_order(hand, trump)[:6], key=lambda c: c.index))


def _discard(view: SeatView) -> Action:
    if view.contract is None:
        raise ValueError("a Cinq Cents discard comes after the contract: this view has none")
    action = Discard(cards=discard_for(view.hand, view.contract.denomination.suit))
    return action if action in view.legal_actions else view.legal_actions[0]


# --- play ----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Tables:
    """Ranking facts for one contract, computed once: power, following suit, and the order of each suit."""

    trump: Suit | None
    power: dict[Card, int]
    suit: dict[Card, Suit | None]
    orders: dict[Suit, tuple[Card, ...]]

    def strength(self, card: Card, trick: Trick) -> int:
        """docs/games.md 3.4-3.5: a trump by its rank, a joker at no-trump above all, else a card of the suit led."""
        if card.is_joker and self.trump is None:
            return 300 + self.power[card]
        if self.trump is not None and self.suit[card] is self.trump:
            return self.power[card]
        led = trick.named_suit if trick.named_suit is not None else self.suit[trick.cards[0]]
        return self.power[card] if self.suit[card] is led else 0


@lru_cache(maxsize=8)
def _tables(trump: Suit | None) -> _Tables:
    power: dict[Card, int] = {}
    suits: dict[Card, Suit | None] = {}
    orders: dict[Suit, tuple[Card, ...]] = {}
    for suit in SUITS:
        orders[suit] = trump_order(suit) if suit is trump else plain_order(suit, trump)
    for c in cinq_cents_deck():
        suits[c] = suit_of(c, trump)
        power[c] = 200 if c.is_joker else c.rank
    if trump is not None:
        order = orders[trump]
        for i, c in enumerate(order):
            power[c] = 100 + len(order) - i
    else:
        power[LA_BLANCHE], power[LE_FOU] = 201, 200
    return _Tables(trump, power, suits, orders)


def _is_trump(card: Card, tables: _Tables) -> bool:
    return tables.trump is not None and tables.suit[card] is tables.trump


def _boss(card: Card, tables: _Tables, known: set[Card]) -> bool:
    """No card that beats ``card`` in its suit is still out of sight."""
    suit = tables.suit[card]
    if suit is None:  # a joker at no-trump
        return card is LA_BLANCHE or LA_BLANCHE in known
    return not common.unseen_above(tables.orders[suit], card, known)


def _throw(cards: list[Card], tables: _Tables) -> Card:
    plain = [c for c in cards if not _is_trump(c, tables) and not c.is_joker]
    return common.lowest(plain or cards, key=tables.power.__getitem__)


def _play(view: SeatView) -> Card:
    cards = [p.card for p in common.plays(view)]
    if len(cards) == 1:
        return cards[0]
    tables = _tables(view.trump)
    known = common.played_cards(view) | set(view.hand) | set(view.discards)
    trick = view.current_trick
    winning = common.current_winner(view, tables.strength)
    if trick is None or winning is None:  # no card led yet
        return _lead(view, cards, tables, known)
    best = tables.strength(winning[1], trick)
    winners = [c for c in cards if tables.strength(c, trick) > best]
    partner_ahead = view.side_of(winning[0]) == common.my_side(view)
    last = common.last_to_play(view)
    if not winners or (partner_ahead and (last or _boss(winning[1], tables, known))):
        return _throw(cards, tables)
    if last:
        return common.lowest(winners, key=tables.power.__getitem__)
    bosses = [c for c in winners if _boss(c, tables, known)]
    if bosses:
        return common.lowest(bosses, key=tables.power.__getitem__)
    if partner_ahead:
        return _throw(cards, tables)
    return common.lowest(winners, key=tables.power.__getitem__)


def _lead(view: SeatView, cards: list[Card], tables: _Tables, known: set[Card]) -> Card:
    if view.contract is None:
        raise ValueError("Cinq Cents card play comes after the contract: this view has none")
    trump = tables.trump
    declaring = view.side_of(view.contract.seat) == common.my_side(view)
    trumps = sorted((c for c in cards if _is_trump(c, tables)), key=lambda c: -tables.power[c])
    if declaring and trumps and trump is not None and any(c not in known for c in tables.orders[trump]):
        if _boss(trumps[0], tables, known):
            return trumps[0]
        if len(trumps) >= 3 and view.seat == view.contract.seat:
            return trumps[-1]
    plain = [c for c in cards if not _is_trump(c, tables) and not c.is_joker]
    bosses = [c for c in plain if _boss(c, tables, known)]
    if bosses:
        return common.highest(bosses, key=tables.power.__getitem__)
    if plain:
        lengths = {s: sum(1 for c in plain if c.suit is s) for s in SUITS}
        suit = max(SUITS, key=lambda s: lengths[s])
        in_suit = [c for c in plain if c.suit is suit] or plain
        return common.lowest(in_suit, key=tables.power.__getitem__)
    return common.lowest(cards, key=tables.power.__getitem__)


class CinqCentsHeuristic:
    """The heuristic as a bot object (``choose_action(view) -> action``)."""

    name = "heuristic"

    def choose_action(self, view: SeatView) -> Action:
        """See :func:`choose_action`."""
        return choose_action(view)


__all__ = ["CinqCentsHeuristic", "bid_from_counts", "choose_action", "discard_for", "estimate", "keep_order",
           "keep_values"]
