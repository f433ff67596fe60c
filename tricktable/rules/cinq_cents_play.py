"""Cinq Cents card play: ranking with bowers and jokers, following, no-trump jokers (docs/games.md 3.4, 3.5).

Pure functions of (hand, trick, trump) so the deal state stays small. ``trump``
is the trump :class:`Suit` of the contract, or ``None`` at no-trump.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from tricktable.rules.actions import Play
from tricktable.rules.cards import JACK, LA_BLANCHE, LE_FOU, SUITS, Card, Suit, of
from tricktable.rules.errors import ErrorCode, RuleError
from tricktable.rules.game import Seat, Trick

#: Ranks of a suit high to low outside trumps and at no-trump (docs/games.md 3.4).
PLAIN_RANKS: tuple[int, ...] = (14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4)
#: Ranks of the trump suit below the bowers (docs/games.md 3.4): A K Q 10 9 8 7 6 5 4.
TRUMP_RANKS: tuple[int, ...] = (14, 13, 12, 10, 9, 8, 7, 6, 5, 4)

SUIT_NAMES = {Suit.CLUBS: "clubs", Suit.DIAMONDS: "diamonds", Suit.HEARTS: "hearts", Suit.SPADES: "spades"}


def second_bower(trump: Suit) -> Card:
    """The jack of the other suit of trump's colour."""
    return of(JACK, trump.partner)


def trump_order(trump: Suit) -> tuple[Card, ...]:
    """Every trump, high to low: La Blanche, Le Fou, first bower, second bower, A K Q 10 ... 4 (docs/games.md 3.4)."""
    return (LA_BLANCHE, LE_FOU, of(JACK, trump), second_bower(trump), *(of(r, trump) for r in TRUMP_RANKS))


def plain_order(suit: Suit, trump: Suit | None) -> tuple[Card, ...]:
    """A non-trump suit high to low; the second bower is missing from its own suit (docs/games.md 3.4)."""
    ranked = tuple(of(r, suit) for r in PLAIN_RANKS)
    if trump is not None and suit is trump.partner:
        return tuple(c for c in ranked if c is not second_bower(trump))
    return ranked


def suit_of(card: Card, trump: Suit | None) -> Suit | None:
    """The suit a card belongs to for following and leading.

    With a trump suit the jokers and the second bower are trumps "in every
    respect" (docs/games.md 3.4); at no-trump a joker belongs to no suit (3.5), so
    the answer is ``None``.
    """
    if card.is_joker:
        return trump
    if trump is not None and card.rank == JACK and card.suit is trump.partner:
        return trump
    return card.suit


def led_suit(trick: Trick, trump: Suit | None) -> Suit:
    """The suit the others must follow: the lead card's suit, or the suit a joker lead named at no-trump."""
    if trick.named_suit is not None:
        return trick.named_suit
    suit = suit_of(trick.cards[0], trump)
    if suit is None:
        raise ValueError("a joker led at no-trump names the suit to follow: this trick names none")
    return suit


def strength(card: Card, trump: Suit | None, led: Suit) -> int:
    """How strongly ``card`` contends for a trick led in ``led``; 0 when it cannot win.

    Highest trump wins, otherwise the highest card of the suit led or named;
    at no-trump a trick holding a joker is won by the highest joker (3.5).
    """
    if card.is_joker and trump is None:
        return 200 if card is LA_BLANCHE else 199
    if trump is not None and suit_of(card, trump) is trump:
        order = trump_order(trump)
        return 100 + len(order) - order.index(card)
    if card.suit is led:
        return card.rank
    return 0


def suits_led(tricks: Sequence[Trick]) -> tuple[Suit, ...]:
    """Suits that a trick of this deal was led with by a card of that suit (not by a named joker), notation order."""
    led = {t.cards[0].suit for t in tricks if t.cards and not t.cards[0].is_joker}
    return tuple(s for s in SUITS if s in led)


def play_error(play: Play, hand: Sequence[Card], trick: Trick, trump: Suit | None,
               earlier: Sequence[Trick], seat: Seat) -> RuleError | None:
    """Why ``seat`` may not make ``play`` to ``trick`` (empty when leading), or ``None`` when it may.

    ``earlier`` are the deal's completed tricks. Codes: CARD_NOT_IN_HAND,
    BAD_NAMED_SUIT, JOKER_NOT_ALLOWED, MUST_FOLLOW_SUIT.
    """
    card = play.card
    if card not in hand:
        return RuleError(ErrorCode.CARD_NOT_IN_HAND, f"{card} is not in seat {seat}'s hand")
    leading = not trick.cards
    joker_lead_at_nt = leading and trump is None and card.is_joker
    if play.suit is not None and not joker_lead_at_nt:
        return RuleError(ErrorCode.BAD_NAMED_SUIT,
                         f"only a joker led at no-trump names a suit; {card} may not name {play.suit.value}")
    if joker_lead_at_nt:
        return _joker_lead_error(play, earlier)
    if leading:
        return None
    led = led_suit(trick, trump)
    able = can_follow(hand, led, trump)
    if not able or suit_of(card, trump) is led:
        return None
    if card.is_joker:
        return RuleError(ErrorCode.JOKER_NOT_ALLOWED,
                         f"at no-trump a joker may be played only when unable to follow the suit led; "
                         f"seat {seat} holds {SUIT_NAMES[led]}")
    what = "trumps" if led is trump else SUIT_NAMES[led]
    return RuleError(ErrorCode.MUST_FOLLOW_SUIT,
                     f"{card} does not follow {what}: seat {seat} holds {what} and must follow")


def _joker_lead_error(play: Play, earlier: Sequence[Trick]) -> RuleError | None:
    if not earlier:
        return RuleError(ErrorCode.JOKER_NOT_ALLOWED, "at no-trump a joker may not lead the first trick")
    allowed = suits_led(earlier)
    if play.suit is None:
        return RuleError(ErrorCode.BAD_NAMED_SUIT,
                         f"a joker led at no-trump must name a suit already led ({', '.join(allowed)})")
    if play.suit not in allowed:
        return RuleError(ErrorCode.BAD_NAMED_SUIT,
                         f"a joker led at no-trump may only name a suit already led in this deal "
                         f"({', '.join(allowed)}), not {play.suit.value}")
    return None


def can_follow(hand: Collection[Card], led: Suit, trump: Suit | None) -> bool:
    """True when the hand holds a card of the suit led (trumps counting the jokers and second bower)."""
    return any(suit_of(c, trump) is led for c in hand)


def legal_plays(hand: Sequence[Card], trick: Trick, trump: Suit | None, earlier: Sequence[Trick],
                seat: Seat) -> list[Play]:
    """Every legal play, sorted by card; a joker lead at no-trump gives one play per suit it may name."""
    candidates: list[Play] = []
    for card in sorted(hand):
        if not trick.cards and trump is None and card.is_joker:
            candidates.extend(Play(card=card, suit=s) for s in SUITS)
        else:
            candidates.append(Play(card=card))
    return [p for p in candidates if play_error(p, hand, trick, trump, earlier, seat) is None]
