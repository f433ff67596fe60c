"""Cards, suits and the notation of docs/records.md.

A card is written rank then suit (``5H``, ``TS``, ``AD``); the two jokers of
Cinq Cents are ``JKB`` (La Blanche) and ``JKF`` (Le Fou). Every card is an
interned :class:`Card` object, so ``Card.parse("5H") is Card.parse("5H")``
and cards can be compared by identity or equality, hashed and sorted.

Why interned objects rather than bare strings: the rules need the rank and
suit of a card on every legality check, and parsing them once keeps the
engine simple and fast while the notation stays the only way in and out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from tricktable.rules.errors import NotationError


class Suit(StrEnum):
    """The four suits, valued by their notation letter."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def is_red(self) -> bool:
        """Hearts and diamonds are red; the bower and ranking rules need the colour."""
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @property
    def partner(self) -> Suit:
        """The other suit of the same colour (Cinq Cents' second bower)."""
        return _PARTNER[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse ``C``, ``D``, ``H`` or ``S``.

        Raises:
            NotationError: when ``text`` is not one of the four letters.
        """
        try:
            return cls(text)
        except ValueError:
            raise NotationError(f"not a suit: {text!r} (expected one of C, D, H, S)") from None


_PARTNER = {
    Suit.CLUBS: Suit.SPADES,
    Suit.SPADES: Suit.CLUBS,
    Suit.HEARTS: Suit.DIAMONDS,
    Suit.DIAMONDS: Suit.HEARTS,
}

#: Suits in notation order; used wherever a deterministic order is needed.
SUITS: tuple[Suit, ...] = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)

#: Rank letters by rank number; 10 is written ``T``.
RANK_LETTERS = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9",
                10: "T", 11: "J", 12: "Q", 13: "K", 14: "A"}
_RANK_BY_LETTER = {letter: rank for rank, letter in RANK_LETTERS.items()}

JACK, QUEEN, KING, ACE = 11, 12, 13, 14


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One card. Build it with :meth:`parse` or :func:`card`, never directly.

    ``rank`` is 2..14 (ace high) and ``suit`` a :class:`Suit` for the 52 ordinary
    cards; for a joker ``rank`` is 0 and ``suit`` is ``None``. ``index`` is a
    dense number 0..53 (clubs 2..A, diamonds, hearts, spades, then JKB, JKF)
    used for sorting and for compact representations.
    """

    code: str
    rank: int
    suit: Suit | None
    index: int

    _BY_CODE: ClassVar[dict[str, Card]] = {}

    @property
    def is_joker(self) -> bool:
        """True for La Blanche and Le Fou."""
        return self.suit is None

    @property
    def printed_suit(self) -> Suit:
        """The suit of an ordinary card, for the games whose 52-card deck has no jokers.

        Raises:
            ValueError: for a joker, which has no suit.
        """
        if self.suit is None:
            raise ValueError(f"{self.code} is a joker: it has no suit")
        return self.suit

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a card in record notation (``5H``, ``TS``, ``JKB``).

        Raises:
            NotationError: with a message naming the bad text and what was expected.
        """
        found = cls._BY_CODE.get(text) if isinstance(text, str) else None
        if found is None:
            raise NotationError(_explain_bad_card(text))
        return found

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # Keep cards interned through pickling (multiprocessing, Ray).
        return (Card.parse, (self.code,))


def _explain_bad_card(text: object) -> str:
    if not isinstance(text, str):
        return f"not a card: {text!r} (expected a string such as '5H', 'TS' or 'JKB')"
    if len(text) == 2 and text[0] not in _RANK_BY_LETTER:
        return f"not a card: {text!r} (bad rank {text[0]!r}; ranks are 2-9, T, J, Q, K, A)"
    if len(text) == 2 and text[1] not in "CDHS":
        return f"not a card: {text!r} (bad suit {text[1]!r}; suits are C, D, H, S)"
    return f"not a card: {text!r} (expected rank then suit, such as '5H', 'TS', or a joker 'JKB'/'JKF')"


def _build() -> tuple[Card, ...]:
    cards: list[Card] = []
    for suit in SUITS:
        for rank in range(2, 15):
            cards.append(Card(RANK_LETTERS[rank] + suit.value, rank, suit, len(cards)))
    cards.append(Card("JKB", 0, None, len(cards)))
    cards.append(Card("JKF", 0, None, len(cards)))
    for c in cards:
        Card._BY_CODE[c.code] = c
    return tuple(cards)


#: All 54 cards by index.
ALL_CARDS: tuple[Card, ...] = _build()
LA_BLANCHE: Card = ALL_CARDS[52]
LE_FOU: Card = ALL_CARDS[53]
JOKERS: tuple[Card, ...] = (LA_BLANCHE, LE_FOU)


def card(text: str) -> Card:
    """Shorthand for :meth:`Card.parse`."""
    return Card.parse(text)


def cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse several cards: ``cards("5H JS AH")`` or ``cards(["5H", "JS"])``.

    Raises:
        NotationError: on the first bad card.
    """
    parts = text.split() if isinstance(text, str) else list(text)
    return tuple(Card.parse(p) for p in parts)


def of(rank: int, suit: Suit) -> Card:
    """The card of ``rank`` (2..14) in ``suit``."""
    return ALL_CARDS[SUITS.index(suit) * 13 + rank - 2]


def standard_deck() -> tuple[Card, ...]:
    """The 52-card deck in index order (the unshuffled deck of sections 1 and 2)."""
    return ALL_CARDS[:52]


def cinq_cents_deck() -> tuple[Card, ...]:
    """The 46-card Cinq Cents deck: no 2s or 3s, plus both jokers (docs/games.md 3.1)."""
    return tuple(c for c in ALL_CARDS if c.is_joker or c.rank >= 4)


def codes(items: Iterable[Card]) -> list[str]:
    """Cards back to notation, for records and messages."""
    return [c.code for c in items]


def sort_cards(items: Iterable[Card]) -> list[Card]:
    """Cards in index order (clubs, diamonds, hearts, spades by rank, then jokers)."""
    return sorted(items, key=lambda c: c.index)
