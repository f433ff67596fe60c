"""docs/games.md 1.3: trump and plain ranking, and who wins a trick."""

from __future__ import annotations

import itertools

import pytest

from tests.rules.spoil_five_helpers import play_cards, start
from tricktable.rules.cards import SUITS, Suit, cards
from tricktable.rules.spoil_five_ranking import RANKINGS, plain_order, trump_order

TRUMP_ORDERS = {
    Suit.CLUBS: "5C JC AH AC KC QC 2C 3C 4C 6C 7C 8C 9C TC",
    Suit.SPADES: "5S JS AH AS KS QS 2S 3S 4S 6S 7S 8S 9S TS",
    Suit.DIAMONDS: "5D JD AH AD KD QD TD 9D 8D 7D 6D 4D 3D 2D",
    Suit.HEARTS: "5H JH AH KH QH TH 9H 8H 7H 6H 4H 3H 2H",
}

PLAIN_ORDERS = {
    Suit.CLUBS: "KC QC JC AC 2C 3C 4C 5C 6C 7C 8C 9C TC",
    Suit.SPADES: "KS QS JS AS 2S 3S 4S 5S 6S 7S 8S 9S TS",
    Suit.DIAMONDS: "KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D AD",
    Suit.HEARTS: "KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H",
}


def _filler(avoid: set[Suit], count: int, exclude: set[str]) -> list[str]:
    suit = next(s for s in (Suit.CLUBS, Suit.SPADES, Suit.DIAMONDS) if s not in avoid)
    codes = [f"{r}{suit.value}" for r in "6789TJQK" if f"{r}{suit.value}" not in exclude]
    return codes[:count]


def _two_card_trick(trump: Suit, lead: str, follow: str) -> int:
    """Winner of a two-player Forty-Five trick: eldest (seat 1) leads ``lead``, the dealer follows."""
    turn_up = next(f"{r}{trump.value}" for r in "789" if f"{r}{trump.value}" not in (lead, follow))
    avoid = {trump, cards(lead)[0].suit, cards(follow)[0].suit} - {None}
    fill = _filler(avoid, 8, {lead, follow})  # type: ignore[arg-type]
    deal = start("forty_five", {1: " ".join([lead, *fill[:4]]), 0: " ".join([follow, *fill[4:]])}, turn_up,
                 dealer=0, players=2, robbing=False)
    deal = play_cards(deal, f"{lead} {follow}")
    winner = deal.tricks[0].winner
    assert winner is not None
    return winner


@pytest.mark.parametrize("trump", SUITS)
def test_trump_ranking_full_order_for_each_trump_suit(trump: Suit) -> None:
    order = TRUMP_ORDERS[trump].split()
    assert [c.code for c in trump_order(trump)] == order
    ranking = RANKINGS[trump]
    assert sorted((c.code for c in cards(order)), key=lambda code: -ranking.trump_rank[cards(code)[0].index]) == order
    # Played against each other in a trick, each trump beats the next one down, led or following.
    for higher, lower in itertools.pairwise(order):
        assert _two_card_trick(trump, lower, higher) == 0
        assert _two_card_trick(trump, higher, lower) == 1


@pytest.mark.parametrize("trump", SUITS)
def test_plain_ranking_full_order_red_ace_lowest_black_ace_after_jack(trump: Suit) -> None:
    for suit in SUITS:
        if suit is trump:
            continue
        order = PLAIN_ORDERS[suit].split()
        assert [c.code for c in plain_order(suit)] == order
        for higher, lower in itertools.pairwise(order):
            assert _two_card_trick(trump, lower, higher) == 0
            assert _two_card_trick(trump, higher, lower) == 1


def test_ace_of_hearts_is_a_trump_whatever_the_trump_suit_fourteen_trumps() -> None:
    for trump in (Suit.CLUBS, Suit.DIAMONDS, Suit.SPADES):
        ranking = RANKINGS[trump]
        assert ranking.is_trump(cards("AH")[0])
        assert sum(1 for c in cards(" ".join(TRUMP_ORDERS[trump].split())) if ranking.is_trump(c)) == 14
        assert sum(ranking.trump_rank[i] > 0 for i in range(52)) == 14
        assert ranking.ace_of_trumps.code == f"A{trump.value}"


def test_hearts_trump_has_thirteen_trumps_and_the_ace_of_hearts_is_the_ace_of_trumps() -> None:
    ranking = RANKINGS[Suit.HEARTS]
    assert sum(ranking.trump_rank[i] > 0 for i in range(52)) == 13
    assert ranking.ace_of_trumps.code == "AH"
    assert _two_card_trick(Suit.HEARTS, "AH", "KH") == 1
    assert _two_card_trick(Suit.HEARTS, "AH", "JH") == 0


def test_top_trumps_are_five_jack_of_trumps_and_ace_of_hearts() -> None:
    for trump in SUITS:
        ranking = RANKINGS[trump]
        tops = sorted(c.code for c in trump_order(trump) if ranking.top[c.index])
        assert tops == sorted([f"5{trump.value}", f"J{trump.value}", "AH"])


def test_ace_of_diamonds_is_the_lowest_plain_diamond() -> None:
    assert _two_card_trick(Suit.CLUBS, "AD", "2D") == 0
    assert _two_card_trick(Suit.SPADES, "2D", "AD") == 1


def test_black_plain_ace_ranks_below_jack_above_two_and_ten_is_lowest() -> None:
    assert _two_card_trick(Suit.HEARTS, "AC", "JC") == 0
    assert _two_card_trick(Suit.HEARTS, "AC", "2C") == 1
    assert _two_card_trick(Suit.DIAMONDS, "TS", "2S") == 0


def test_ace_of_hearts_is_never_a_plain_heart() -> None:
    for trump in (Suit.CLUBS, Suit.DIAMONDS, Suit.SPADES):
        assert "AH" not in [c.code for c in plain_order(Suit.HEARTS)]
        assert RANKINGS[trump].plain_rank[cards("AH")[0].index] == 0
    # A plain heart led, the A of hearts follows as a trump and wins.
    assert _two_card_trick(Suit.SPADES, "KH", "AH") == 0


def test_trick_won_by_highest_trump_in_it() -> None:
    deal = start("twenty_five", {1: "KD 2C 3C 4C 6C", 2: "2S 7H 8H 9H TH", 3: "QD 2H 3H 4H 6H", 0: "AH TC 7C 8C 9C"},
                 "8S")
    deal = play_cards(deal, "KD 2S QD AH")
    assert deal.tricks[0].winner == 0


def test_trick_without_trump_won_by_highest_card_of_the_suit_led() -> None:
    deal = start("twenty_five", {1: "3D 2C 3C 4C 6C", 2: "KC 7H 8H 9H TH", 3: "4D 2H 3H 4H 6H", 0: "2D JD 7C 8C 9C"},
                 "8S")
    deal = play_cards(deal, "3D KC 4D 2D")
    assert deal.tricks[0].winner == 3
    assert deal.trick.leader == 3


def test_ace_of_hearts_led_is_a_trump_lead() -> None:
    # Spades trump: the A of hearts led is won by a higher trump, not by hearts, and it calls for trumps.
    deal = start("twenty_five", {1: "AH 2C 3C 4C 6C", 2: "KH 7S 8H 9H TH", 3: "QH 2H 3H 4H 6H", 0: "JS JD 7C 8C 9C"},
                 "8S")
    deal = play_cards(deal, "AH")
    assert {a.card.code for a in deal.legal_actions()} == {"7S"}  # type: ignore[union-attr]
    deal = play_cards(deal, "7S QH JS")
    assert deal.tricks[0].winner == 0
