"""Cinq Cents ranking and play: bowers, jokers as trumps, following, no-trump jokers (docs/games.md 3.4, 3.5).

Every deal here has dealer 0 and declarer 1 (eldest hand), who discards the
kitty back, so the hands given are the hands that play; play goes 1, 2, 3, 0.
"""

from __future__ import annotations

import pytest

from tests.rules.test_cinq_cents_helpers import contracted
from tricktable.rules.actions import Action, Play
from tricktable.rules.cards import Suit, card, cards, cinq_cents_deck
from tricktable.rules.cinq_cents import CinqCentsDeal
from tricktable.rules.cinq_cents_play import plain_order, strength, suit_of, suits_led, trump_order
from tricktable.rules.errors import ErrorCode, RuleError


def play(code: str, suit: str | None = None) -> Play:
    return Play(card=card(code), suit=None if suit is None else Suit(suit))


def plays(text: str) -> list[Action]:
    """Plays of these cards in legal_actions() order (by card index: clubs, diamonds, hearts, spades, jokers)."""
    return [Play(card=c) for c in sorted(cards(text))]


def refused(state: CinqCentsDeal, action: Action, code: ErrorCode) -> RuleError:
    """Assert ``action`` is refused with ``code`` and the state is unchanged; return the error."""
    before = state
    with pytest.raises(RuleError) as info:
        state.apply(action)
    assert info.value.code is code, info.value.message
    assert state == before
    assert action not in state.legal_actions()
    return info.value


def run(state: CinqCentsDeal, text: str) -> CinqCentsDeal:
    for code in text.split():
        state = state.apply(play(code))
    return state


# --- ranking (3.4) -------------------------------------------------------

TRUMP_ORDERS = {
    "H": "JKB JKF JH JD AH KH QH TH 9H 8H 7H 6H 5H 4H",
    "D": "JKB JKF JD JH AD KD QD TD 9D 8D 7D 6D 5D 4D",
    "S": "JKB JKF JS JC AS KS QS TS 9S 8S 7S 6S 5S 4S",
    "C": "JKB JKF JC JS AC KC QC TC 9C 8C 7C 6C 5C 4C",
}


@pytest.mark.parametrize("trump", ["H", "D", "S", "C"])
def test_bower_ranking_full_trump_order_for_each_trump_suit(trump: str) -> None:
    suit = Suit(trump)
    expected = cards(TRUMP_ORDERS[trump])
    assert trump_order(suit) == expected
    in_trump = [c for c in cinq_cents_deck() if suit_of(c, suit) is suit]
    assert sorted(in_trump, key=lambda c: -strength(c, suit, led=suit)) == list(expected)
    # Whatever suit is led, every trump beats every non-trump.
    for led in Suit:
        lowest_trump = strength(expected[-1], suit, led)
        assert all(strength(c, suit, led) < lowest_trump for c in cinq_cents_deck() if c not in expected)


@pytest.mark.parametrize("trump", ["H", "D", "S", "C"])
def test_plain_suits_rank_ace_to_four_and_lose_the_second_bower(trump: str) -> None:
    suit = Suit(trump)
    for other in Suit:
        if other is suit:
            continue
        order = [c.code for c in plain_order(other, suit)]
        full = [f"{r}{other.value}" for r in "AKQJT987654"]
        if other is suit.partner:
            assert order == [c for c in full if c != f"J{other.value}"]
        else:
            assert order == full
        assert sorted(order, key=lambda c: -strength(card(c), suit, led=other)) == order


@pytest.mark.parametrize("trump", ["H", "D", "S", "C"])
def test_bower_ranking_in_play_first_bower_beats_second_bower_and_ace(trump: str) -> None:
    t, p = trump, Suit(trump).partner.value
    state = contracted({1: f"4{t}", 2: f"J{p}", 3: f"J{t}", 0: f"A{t}"}, "", f"6 {t}")
    state = run(state, f"4{t} J{p} J{t} A{t}")
    assert state.tricks[0].winner == 3
    assert state.to_act == 3  # the winner leads the next trick


@pytest.mark.parametrize("trump", ["H", "D", "S", "C"])
def test_second_bower_beats_the_ace_of_trumps(trump: str) -> None:
    t, p = trump, Suit(trump).partner.value
    state = contracted({1: f"J{p}", 2: f"A{t}", 3: f"K{t}", 0: f"Q{t}"}, "", f"6 {t}")
    state = run(state, f"J{p} A{t} K{t} Q{t}")
    assert state.tricks[0].winner == 1


def test_jokers_are_the_top_trumps_la_blanche_over_le_fou_over_first_bower() -> None:
    state = contracted(
        {1: "JS AC KC QC TC 9C 8C 7C 6C 5C", 2: "JKF AH KH QH JH TH 9H 8H 7H 6H",
         3: "JC AD KD QD JD TD 9D 8D 7D 6D", 0: "JKB 4C 5H 4H 5D 4D AS KS QS 4S"},
        "TS 9S 8S 7S 6S 5S", "6 S")
    # A spade lead is a trump lead: each seat's only trump (a joker, the second bower) is forced out.
    state = state.apply(play("JS"))
    assert state.legal_actions() == [play("JKF")]
    refused(state, play("AH"), ErrorCode.MUST_FOLLOW_SUIT)
    state = state.apply(play("JKF"))
    assert state.legal_actions() == [play("JC")]
    state = state.apply(play("JC"))
    assert state.legal_actions() == plays("JKB AS KS QS 4S")
    state = state.apply(play("JKB"))
    assert state.tricks[0].winner == 0


def test_joker_led_with_a_trump_suit_is_a_trump_lead_and_names_no_suit() -> None:
    state = contracted(
        {1: "JKB AC KC QC JC TC 9C 8C 7C 6C", 2: "4H AS KS QS JS TS 9S 8S 7S 6S"},
        "5C 4C 5S 4S 5D 4D", "7 H")
    err = refused(state, play("JKB", "H"), ErrorCode.BAD_NAMED_SUIT)
    assert err.message == "only a joker led at no-trump names a suit; JKB may not name H"
    state = state.apply(play("JKB"))
    assert state.current is not None and state.current.named_suit is None
    assert state.legal_actions() == [play("4H")]
    refused(state, play("AS"), ErrorCode.MUST_FOLLOW_SUIT)


# --- following with a trump suit (3.5) -----------------------------------

# Hearts trump: seat 2 holds the second bower JD and no other diamond or heart.
HEARTS_DEAL = {
    1: "AD 4H AC KC QC JC TC 9C 8C 7C",
    2: "JD AS KS QS JS TS 9S 8S 7S 6S",
    3: "KD QD TD 9D 8D 7D 6D 5D 4D 5S",
    0: "6C 5C 4C 4S 5H 6H 7H 8H 9H TH",
}
HEARTS_KITTY = "AH KH QH JH JKB JKF"


def test_second_bower_is_not_its_own_suit_so_its_holder_may_play_anything_on_that_suit() -> None:
    state = contracted(HEARTS_DEAL, HEARTS_KITTY, "6 H").apply(play("AD"))
    assert state.legal_actions() == plays(HEARTS_DEAL[2])
    state = run(state, "JD KD 4S")
    assert state.tricks[0].cards == cards("AD JD KD 4S")
    assert state.tricks[0].winner == 2  # the second bower trumped the ace of diamonds


def test_second_bower_follows_a_trump_lead_as_a_trump() -> None:
    state = contracted(HEARTS_DEAL, HEARTS_KITTY, "6 H").apply(play("4H"))
    assert state.legal_actions() == [play("JD")]
    err = refused(state, play("AS"), ErrorCode.MUST_FOLLOW_SUIT)
    assert err.message == "AS does not follow trumps: seat 2 holds trumps and must follow"


def test_second_bower_may_not_be_played_as_a_follow_of_its_own_suit() -> None:
    deal = {**HEARTS_DEAL, 2: "JD KD AS KS QS JS TS 9S 8S 7S", 3: "QD TD 9D 8D 7D 6D 5D 4D 5S 6S"}
    state = contracted(deal, HEARTS_KITTY, "6 H").apply(play("AD"))
    assert state.legal_actions() == [play("KD")]
    err = refused(state, play("JD"), ErrorCode.MUST_FOLLOW_SUIT)
    assert err.message == "JD does not follow diamonds: seat 2 holds diamonds and must follow"


def test_player_who_cannot_follow_need_not_trump_and_highest_of_suit_led_wins() -> None:
    state = contracted(HEARTS_DEAL, HEARTS_KITTY, "6 H").apply(play("AC"))
    # Seat 2 has no club: a spade discard is as legal as the second bower.
    assert play("AS") in state.legal_actions() and play("JD") in state.legal_actions()
    state = run(state, "AS 5S 4C")
    assert state.tricks[0].winner == 1


def test_play_out_of_turn_or_of_a_card_not_held_is_refused() -> None:
    state = contracted(HEARTS_DEAL, HEARTS_KITTY, "6 H")
    with pytest.raises(RuleError) as info:
        state.apply(play("AD"), seat=2)
    assert info.value.code is ErrorCode.NOT_YOUR_TURN
    err = refused(state, play("AS"), ErrorCode.CARD_NOT_IN_HAND)
    assert err.message == "AS is not in seat 1's hand"
    refused(state, Play(card="AD"), ErrorCode.MALFORMED_ACTION)  # type: ignore[arg-type]


# --- jokers at no-trump (3.4, 3.5) ---------------------------------------

NT_DEAL = {
    1: "AC KC JKB AH KH QH JH TH 9H 8H",
    2: "4C 6C JKF AS KS QS JS TS 9S 8S",
    3: "7S 6S 5S 4S AD KD QD JD TD 9D",
    0: "5C 7C 8C 9C TC JC QC 7H 6H 5H",
}
NT_KITTY = "8D 7D 6D 5D 4D 4H"


def nt_deal() -> CinqCentsDeal:
    return contracted(NT_DEAL, NT_KITTY, "7 NT")


def test_no_trump_joker_never_leads_the_first_trick() -> None:
    state = nt_deal()
    assert state.trump is None
    assert state.legal_actions() == plays("AC KC 8H 9H TH JH QH KH AH")
    for action in (play("JKB"), play("JKB", "C"), play("JKB", "H")):
        err = refused(state, action, ErrorCode.JOKER_NOT_ALLOWED)
        assert err.message == "at no-trump a joker may not lead the first trick"


def test_no_trump_joker_may_not_be_played_while_able_to_follow() -> None:
    state = nt_deal().apply(play("AC"))
    assert state.legal_actions() == plays("4C 6C")
    err = refused(state, play("JKF"), ErrorCode.JOKER_NOT_ALLOWED)
    assert err.message == ("at no-trump a joker may be played only when unable to follow the suit led; "
                           "seat 2 holds clubs")
    refused(state, play("AS"), ErrorCode.MUST_FOLLOW_SUIT)


def test_no_trump_joker_may_be_played_when_void_in_the_suit_led_and_wins() -> None:
    state = run(nt_deal(), "AC 4C 4S 5C")
    state = run(state.apply(play("JKB", "C")), "6C 5S 7C")
    state = state.apply(play("KC"))
    # Seat 2 has no club left, so Le Fou is playable, as is any other card.
    assert state.legal_actions() == plays("JKF 8S 9S TS JS QS KS AS")
    state = run(state, "JKF 6S 8C")
    assert state.tricks[2].cards == cards("KC JKF 6S 8C")
    assert state.tricks[2].winner == 2


def test_no_trump_joker_lead_names_a_suit_already_led_and_wins_the_trick() -> None:
    state = run(nt_deal(), "AC 4C 4S 5C")
    assert suits_led(state.tricks) == (Suit.CLUBS,)
    assert state.to_act == 1
    # One legal joker lead per suit it may name: only clubs has been led.
    assert [a for a in state.legal_actions() if isinstance(a, Play) and a.card.is_joker] == [play("JKB", "C")]
    state = state.apply(play("JKB", "C"))
    assert state.current is not None and state.current.named_suit is Suit.CLUBS
    # Others must follow the named suit; Le Fou's holder still holds a club.
    assert state.legal_actions() == [play("6C")]
    refused(state, play("JKF"), ErrorCode.JOKER_NOT_ALLOWED)
    state = state.apply(play("6C"))
    assert len(state.legal_actions()) == 9  # seat 3 has no club: any card
    state = state.apply(play("5S"))
    err = refused(state, play("7H"), ErrorCode.MUST_FOLLOW_SUIT)
    assert err.message == "7H does not follow clubs: seat 0 holds clubs and must follow"
    state = state.apply(play("QC"))
    assert state.tricks[1].winner == 1
    record = state.to_record([0, 0])
    assert {"seat": 1, "type": "play", "card": "JKB", "suit": "C"} in record["actions"]


def test_no_trump_joker_lead_may_not_name_a_suit_not_yet_led_or_no_suit() -> None:
    state = run(nt_deal(), "AC 4C 4S 5C")
    err = refused(state, play("JKB", "H"), ErrorCode.BAD_NAMED_SUIT)
    assert err.message == "a joker led at no-trump may only name a suit already led in this deal (C), not H"
    err = refused(state, play("JKB"), ErrorCode.BAD_NAMED_SUIT)
    assert err.message == "a joker led at no-trump must name a suit already led (C)"


def test_suit_is_named_on_no_other_play() -> None:
    state = nt_deal()
    err = refused(state, play("AC", "C"), ErrorCode.BAD_NAMED_SUIT)
    assert err.message == "only a joker led at no-trump names a suit; AC may not name C"
    state = run(state, "AC")
    refused(state, play("4C", "C"), ErrorCode.BAD_NAMED_SUIT)
    state = run(state, "4C 4S 5C KC 6C 5S 7C AH")
    # Seat 2 is void in hearts: Le Fou may follow, but a joker played to a trick names nothing.
    assert play("JKF") in state.legal_actions()
    refused(state, play("JKF", "H"), ErrorCode.BAD_NAMED_SUIT)


def test_named_suits_grow_with_each_suit_led_by_a_card_of_that_suit() -> None:
    state = run(nt_deal(), "AC 4C 4S 5C")
    state = state.apply(play("JKB", "C"))
    state = run(state, "6C 5S 7C")
    assert suits_led(state.tricks) == (Suit.CLUBS,)  # the joker's trick adds nothing
    state = run(state, "KC JKF 6S 8C")  # seat 2 wins with Le Fou and leads
    state = run(state, "AS 7S 5H 8H")
    assert state.tricks[-1].winner == 2
    assert suits_led(state.tricks) == (Suit.CLUBS, Suit.SPADES)


def test_both_jokers_in_one_trick_la_blanche_wins() -> None:
    state = contracted(
        {1: "AC KC QC JC TC AH KH QH JH TH", 2: "JKF AS KS QS JS TS 9S 8S 7S 6S",
         3: "JKB AD KD QD JD TD 9D 8D 7D 6D", 0: "9C 8C 7C 6C 5C 4C 9H 8H 7H 6H"},
        "5H 4H 5S 4S 5D 4D", "6 NT")
    state = run(state, "AC JKF JKB 9C")
    assert state.tricks[0].winner == 3


def test_both_jokers_in_one_trick_la_blanche_wins_over_a_led_le_fou() -> None:
    state = contracted(
        {1: "AC KC QC JC TC JKF KH QH JH TH", 2: "AS KS QS JS TS 9S 8S 7S 6S 5S",
         3: "JKB AD KD QD JD TD 9D 8D 7D 6D", 0: "9C 8C 7C 6C 5C 4C 9H 8H 7H 6H"},
        "AH 5H 4H 4S 5D 4D", "6 NT")
    state = run(state, "AC 5S 6D 4C")
    assert state.tricks[0].winner == 1
    state = state.apply(play("JKF", "C"))
    state = run(state, "6S JKB 5C")
    assert state.tricks[1].cards == cards("JKF 6S JKB 5C")
    assert state.tricks[1].winner == 3
