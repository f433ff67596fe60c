"""Card ranking (docs/games.md 1.3) and the follow rules (1.5) of the Spoil Five family.

With trump suit ``T`` the trumps rank, high to low: 5 of T, J of T, A of
hearts, A of T (absent when T is hearts), then the rest of T (red: K Q 10 9
8 7 6 4 3 2; black: K Q 2 3 4 6 7 8 9 10). Plain suits rank red K Q J 10 ...
2 A, black K Q J A 2 3 ... 10; the A of hearts is never a plain heart.

Why tables: every legality check and every trick needs "is this a trump,
and how high", so the four possible answers are computed once at import,
indexed by :attr:`tricktable.rules.cards.Card.index` (a list lookup per card).
"""

from __future__ import annotations

from dataclasses import dataclass

from tricktable.rules.cards import ACE, JACK, KING, QUEEN, SUITS, Card, Suit, of
from tricktable.rules.errors import ErrorCode, RuleError

ACE_OF_HEARTS: Card = of(ACE, Suit.HEARTS)

#: Ranks of the rest of a red trump suit after the top cards, high to low (no 5, J, A).
_RED_TRUMP_TAIL = (KING, QUEEN, 10, 9, 8, 7, 6, 4, 3, 2)
#: Ranks of the rest of a black trump suit after the top cards, high to low.
_BLACK_TRUMP_TAIL = (KING, QUEEN, 2, 3, 4, 6, 7, 8, 9, 10)
#: Plain red suits, high to low: the ace is the lowest.
_RED_PLAIN = (KING, QUEEN, JACK, 10, 9, 8, 7, 6, 5, 4, 3, 2, ACE)
#: Plain black suits, high to low: the ace sits between the jack and the two.
_BLACK_PLAIN = (KING, QUEEN, JACK, ACE, 2, 3, 4, 5, 6, 7, 8, 9, 10)


def trump_order(trump: Suit) -> tuple[Card, ...]:
    """The trumps of ``trump``, high to low (14 cards, 13 when hearts are trumps)."""
    top = [of(5, trump), of(JACK, trump), ACE_OF_HEARTS]
    if trump is not Suit.HEARTS:
        top.append(of(ACE, trump))
    tail = _RED_TRUMP_TAIL if trump.is_red else _BLACK_TRUMP_TAIL
    return (*top, *(of(rank, trump) for rank in tail))


def plain_order(suit: Suit) -> tuple[Card, ...]:
    """The cards of ``suit`` when it is not trump, high to low (the A of hearts excluded)."""
    ranks = _RED_PLAIN if suit.is_red else _BLACK_PLAIN
    return tuple(of(rank, suit) for rank in ranks if of(rank, suit) is not ACE_OF_HEARTS)


@dataclass(frozen=True, slots=True)
class Ranking:
    """How cards rank for one trump suit; every list is indexed by ``Card.index``.

    ``trump_rank[i]`` is 0 for a non-trump and 1..14 for a trump (higher wins);
    ``plain_rank[i]`` is 1..13 for a plain card within its suit, 0 for a trump.
    ``top[i]`` marks the top trumps (5 of T, J of T, A of hearts).
    """

    trump: Suit
    ace_of_trumps: Card
    trumps: tuple[Card, ...]
    trump_rank: tuple[int, ...]
    plain_rank: tuple[int, ...]
    top: tuple[bool, ...]

    def is_trump(self, card: Card) -> bool:
        """True for the cards of the trump suit and the A of hearts."""
        return self.trump_rank[card.index] > 0

    def strength(self, card: Card, led: Card) -> int:
        """How strongly ``card`` bids for a trick led by ``led`` (docs/games.md 1.3, last point).

        Trumps beat everything; otherwise only the suit led counts, and a
        trump lead (the A of hearts included) leaves plain cards at 0.
        """
        rank = self.trump_rank[card.index]
        if rank:
            return 100 + rank
        if self.trump_rank[led.index] == 0 and card.suit is led.suit:
            return self.plain_rank[card.index]
        return 0


def _ranking(trump: Suit) -> Ranking:
    size = 54
    trump_rank = [0] * size
    plain_rank = [0] * size
    top = [False] * size
    trumps = trump_order(trump)
    for position, c in enumerate(trumps):
        trump_rank[c.index] = len(trumps) - position
    for c in trumps[:3]:
        top[c.index] = True
    for suit in SUITS:
        if suit is trump:
            continue
        order = plain_order(suit)
        for position, c in enumerate(order):
            plain_rank[c.index] = len(order) - position
    ace = ACE_OF_HEARTS if trump is Suit.HEARTS else of(ACE, trump)
    return Ranking(trump, ace, trumps, tuple(trump_rank), tuple(plain_rank), tuple(top))


#: The ranking for each trump suit, computed once.
RANKINGS: dict[Suit, Ranking] = {suit: _ranking(suit) for suit in SUITS}


def playable(ranking: Ranking, hand: tuple[Card, ...], lead: Card | None, *, trump_at_will: bool) -> tuple[Card, ...]:
    """The cards of ``hand`` that may be played to a trick led by ``lead`` (docs/games.md 1.5).

    A plain lead: a seat holding the suit led must follow (with
    ``trump_at_will``: follow or trump); void, any card. A trump lead: a top
    trump outranking the lead is exempt; holding any other trump, a trump
    must be played (exempt ones included); otherwise any card.
    """
    if lead is None:
        return hand
    trump_rank = ranking.trump_rank
    lead_rank = trump_rank[lead.index]
    if lead_rank:
        top = ranking.top
        trumps = tuple(c for c in hand if trump_rank[c.index])
        if any(not (top[c.index] and trump_rank[c.index] > lead_rank) for c in trumps):
            return trumps
        return hand
    # The A of hearts is a trump, never a plain heart: it does not count as following hearts.
    follow = tuple(c for c in hand if c.suit is lead.suit and not trump_rank[c.index])
    if not follow:
        return hand
    if trump_at_will:
        return tuple(c for c in hand if c.suit is lead.suit or trump_rank[c.index])
    return follow


_SUIT_NAMES = {Suit.CLUBS: "club", Suit.DIAMONDS: "diamond", Suit.HEARTS: "heart", Suit.SPADES: "spade"}


def follow_error(ranking: Ranking, lead: Card, *, trump_at_will: bool) -> RuleError:
    """The refusal of a card that :func:`playable` leaves out, with its code and exact message."""
    if ranking.is_trump(lead):
        return RuleError(ErrorCode.MUST_PLAY_TRUMP, "must play a trump: a non-exempt trump is held")
    suit = _SUIT_NAMES[lead.printed_suit]
    if trump_at_will:
        return RuleError(ErrorCode.MUST_FOLLOW_OR_TRUMP, f"must follow suit or trump: a {suit} is held")
    return RuleError(ErrorCode.MUST_FOLLOW_SUIT, f"must follow suit: a {suit} is held")
