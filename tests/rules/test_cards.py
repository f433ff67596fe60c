"""Card notation (docs/records.md, "Notation")."""

import pytest

from tricktable.rules.cards import ALL_CARDS, Card, Suit, card, cards, cinq_cents_deck, standard_deck
from tricktable.rules.errors import NotationError


def test_every_card_round_trips_through_its_notation() -> None:
    for c in ALL_CARDS:
        assert Card.parse(c.code) is c
        assert str(c) == c.code


def test_ten_is_written_t_and_jokers_are_jkb_jkf() -> None:
    assert card("TS").rank == 10 and card("TS").suit is Suit.SPADES
    assert card("JKB").is_joker and card("JKF").is_joker
    assert card("AH").rank == 14


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("10S", "expected rank then suit"), ("1S", "bad rank '1'"), ("5X", "bad suit 'X'"),
     ("", "expected rank then suit"), ("5h", "bad suit 'h'"), ("JK", "bad suit")],
)
def test_bad_card_notation_is_refused_with_a_clear_message(text: str, fragment: str) -> None:
    with pytest.raises(NotationError, match=fragment):
        Card.parse(text)


def test_non_string_card_is_refused() -> None:
    with pytest.raises(NotationError, match="expected a string"):
        Card.parse(5)  # type: ignore[arg-type]


def test_decks_have_the_sizes_rules_md_gives() -> None:
    assert len(standard_deck()) == 52 and not any(c.is_joker for c in standard_deck())
    deck = cinq_cents_deck()
    assert len(deck) == 46
    assert all(c.is_joker or c.rank >= 4 for c in deck)
    assert set(cards("JKB JKF")) <= set(deck)


def test_second_bower_partner_suit_is_same_colour() -> None:
    assert Suit.HEARTS.partner is Suit.DIAMONDS and Suit.CLUBS.partner is Suit.SPADES
    assert Suit.DIAMONDS.is_red and not Suit.SPADES.is_red
