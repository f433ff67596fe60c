"""Cinq Cents bidding, the kitty and the discard (docs/games.md 3.3, 3.5 first lead)."""

from __future__ import annotations

import pytest

from tests.rules.test_cinq_cents_helpers import apply_all, bid, new_deal
from tricktable.rules.actions import Bid, Denomination, Discard, Pass, Play, discard_choice, discards_of
from tricktable.rules.cards import cards
from tricktable.rules.cinq_cents import Phase
from tricktable.rules.cinq_cents_bids import LADDER
from tricktable.rules.errors import ErrorCode, RuleError
from tricktable.rules.game import Contract

KITTY = "AC KC QC JC TC 9C"
HAND_1 = "JKB JKF AH KH QH JH TH 9H 8H 7H"


def test_bidding_goes_once_round_from_eldest_hand_to_the_dealer() -> None:
    state = new_deal(dealer=2)
    seen = []
    for _ in range(4):
        assert state.to_act is not None
        seen.append(state.to_act)
        state = state.apply(Pass())
    assert seen == [3, 0, 1, 2]


def test_each_seat_bids_once_so_the_round_ends_after_four_actions() -> None:
    state = apply_all(new_deal(dealer=0), [bid("6 S"), bid("6 C"), bid("6 D"), bid("6 H")])
    assert state.phase is Phase.DISCARD
    assert state.to_act == 0  # the dealer bid last and highest; nobody speaks again
    assert [s for s, _ in state.bids] == [1, 2, 3, 0]


def test_first_bid_may_be_any_bid_from_6_spades_to_10_no_trump() -> None:
    state = new_deal()
    assert state.legal_actions() == [*LADDER, Pass()]
    assert len(LADDER) == 25
    assert LADDER[0] == bid("6 S") and LADDER[-1] == bid("10 NT")


def test_denominations_rank_spades_clubs_diamonds_hearts_no_trump() -> None:
    assert [d.order for d in (Denomination.SPADES, Denomination.CLUBS, Denomination.DIAMONDS,
                              Denomination.HEARTS, Denomination.NO_TRUMP)] == [0, 1, 2, 3, 4]
    state = new_deal().apply(bid("7 D"))
    higher = [a for a in state.legal_actions() if isinstance(a, Bid)]
    assert higher[:3] == [bid("7 H"), bid("7 NT"), bid("8 S")]
    assert len(higher) == 25 - 8  # 7 D is the eighth bid of the ladder


def test_bid_must_be_higher_more_tricks_or_same_tricks_higher_denomination() -> None:
    state = new_deal().apply(bid("7 H"))
    assert state.apply(bid("7 NT")).highest_bid == bid("7 NT")
    assert state.apply(bid("8 S")).highest_bid == bid("8 S")
    with pytest.raises(RuleError) as info:
        state.apply(bid("7 D"))
    assert info.value.code is ErrorCode.BID_TOO_LOW
    assert info.value.message == ("7 D is not higher than the highest bid so far, 7 H: "
                                  "bid more tricks, or as many in a higher denomination")
    with pytest.raises(RuleError) as info:
        state.apply(bid("6 NT"))
    assert info.value.code is ErrorCode.BID_TOO_LOW


def test_equal_bid_is_refused() -> None:
    state = new_deal().apply(bid("8 C"))
    with pytest.raises(RuleError) as info:
        state.apply(bid("8 C"))
    assert info.value.code is ErrorCode.BID_TOO_LOW
    assert bid("8 C") not in state.legal_actions()


def test_passes_do_not_lower_the_bar() -> None:
    state = apply_all(new_deal(), [bid("9 S"), Pass()])
    with pytest.raises(RuleError) as info:
        state.apply(bid("8 NT"))
    assert info.value.code is ErrorCode.BID_TOO_LOW
    assert state.legal_actions()[0] == bid("9 C")


@pytest.mark.parametrize("tricks", [0, 5, 11, -6])
def test_bid_outside_6_to_10_tricks_is_refused(tricks: int) -> None:
    state = new_deal()
    with pytest.raises(RuleError) as info:
        state.apply(Bid(tricks=tricks, denomination=Denomination.HEARTS))
    assert info.value.code is ErrorCode.BID_OUT_OF_RANGE
    assert info.value.message == f"a bid is 6 to 10 tricks, not {tricks}"


def test_bid_with_a_malformed_field_is_refused() -> None:
    state = new_deal()
    with pytest.raises(RuleError) as info:
        state.apply(Bid(tricks=True, denomination=Denomination.HEARTS))
    assert info.value.code is ErrorCode.MALFORMED_ACTION
    with pytest.raises(RuleError) as info:
        state.apply(Bid(tricks=7, denomination="H"))  # type: ignore[arg-type]
    assert info.value.code is ErrorCode.MALFORMED_ACTION


def test_only_bids_and_passes_during_the_bidding() -> None:
    state = new_deal({1: HAND_1})
    for action in (Play(card=cards("AH")[0]), Discard(cards=cards(KITTY))):
        with pytest.raises(RuleError) as info:
            state.apply(action)
        assert info.value.code is ErrorCode.WRONG_PHASE


def test_out_of_turn_bid_is_refused() -> None:
    state = new_deal(dealer=0)
    with pytest.raises(RuleError) as info:
        state.apply(bid("6 S"), seat=2)
    assert info.value.code is ErrorCode.NOT_YOUR_TURN
    assert info.value.message == "it is seat 1's turn, not seat 2's"


def test_all_four_pass_makes_a_void_deal_with_no_trump_no_contract_no_points() -> None:
    state = apply_all(new_deal(dealer=3), [Pass()] * 4)
    assert state.is_over and state.is_void
    assert state.to_act is None and state.legal_actions() == []
    assert state.contract is None and state.points == (0, 0)
    record = state.to_record([120, -40])
    assert record["trump"] is None and record["contract"] is None
    assert record["tricks"] == [] and record["points"] == [0, 0] and record["scores"] == [120, -40]
    assert [a["type"] for a in record["actions"]] == ["pass"] * 4
    with pytest.raises(RuleError) as info:
        state.apply(Pass())
    assert info.value.code is ErrorCode.WRONG_PHASE


def test_highest_bidder_is_declarer_even_when_later_seats_pass() -> None:
    state = apply_all(new_deal(dealer=0), [bid("6 H"), bid("7 S"), Pass(), Pass()])
    assert state.contract == Contract(seat=2, tricks=7, denomination=Denomination.SPADES)
    assert state.to_act == 2


def test_declarer_takes_the_kitty_into_their_hand() -> None:
    state = apply_all(new_deal({1: HAND_1}, KITTY, dealer=0), [bid("7 H"), Pass(), Pass(), Pass()])
    assert state.phase is Phase.DISCARD
    assert sorted(state.hands[1]) == sorted(cards(HAND_1) + cards(KITTY))
    assert [len(h) for h in state.hands] == [10, 16, 10, 10]


def test_declarer_discards_any_six_of_sixteen_then_leads_the_first_trick() -> None:
    state = apply_all(new_deal({1: HAND_1}, KITTY, dealer=0), [bid("7 H"), Pass(), Pass(), Pass()])
    discards = state.legal_actions()
    assert len(discards) == 8008  # C(16, 6)
    assert all(isinstance(d, Discard) and len(d.cards) == 6 for d in discards)
    # Jokers and trumps may go too: docs/games.md sets no limit on what is discarded.
    throw = cards("JKB 9H AC KC QC JC")
    assert Discard(cards=tuple(sorted(throw))) in discards
    state = state.apply(Discard(cards=throw))
    assert state.phase is Phase.PLAY
    assert sorted(state.hands[1]) == sorted(cards("JKF AH KH QH JH TH 8H 7H TC 9C"))
    assert state.discards == throw
    assert state.to_act == 1  # docs/games.md 3.5: the declarer leads
    assert state.current is not None and state.current.leader == 1 and state.current.cards == ()


def test_the_discards_are_every_six_of_the_declarers_sixteen_cards_and_compact_back_to_them() -> None:
    state = apply_all(new_deal({1: HAND_1}, KITTY, dealer=0), [bid("7 H"), Pass(), Pass(), Pass()])
    discards = state.legal_actions()
    hand = tuple(sorted(state.hands[1]))
    assert discards == discards_of(hand, 6)
    assert discard_choice(discards) == (hand, 6)  # what the wire sends instead of 8008 actions
    assert discards[0] == Discard(cards=hand[:6])  # the default action: the first six cards


def test_discard_choice_refuses_anything_but_every_discard_of_k_of_n_cards() -> None:
    hand = tuple(sorted(cards(HAND_1)))
    every = discards_of(hand, 6)
    assert discard_choice(every[:-1]) is None  # one missing: not "any six"
    assert discard_choice([*every, every[0]]) is None
    assert discard_choice([Pass()]) is None and discard_choice([]) is None
    assert discard_choice([Discard(cards=hand[:6]), Discard(cards=hand[:5])]) is None


@pytest.mark.parametrize(
    ("discard", "message"),
    [
        ("AC KC QC JC TC", "the declarer discards exactly six cards, not 5"),
        ("AC KC QC JC TC 9C AH", "the declarer discards exactly six cards, not 7"),
        ("AC KC QC JC TC TC", "the discard names TC more than once"),
        ("AC KC QC JC TC AS", "the discard names AS, not in seat 1's hand"),
    ],
)
def test_bad_discard_is_refused_and_changes_nothing(discard: str, message: str) -> None:
    state = apply_all(new_deal({1: HAND_1, 2: "AS"}, KITTY, dealer=0), [bid("7 H"), Pass(), Pass(), Pass()])
    before = state
    with pytest.raises(RuleError) as info:
        state.apply(Discard(cards=cards(discard)))
    assert info.value.code is ErrorCode.BAD_DISCARD
    assert info.value.message == message
    assert state == before and state.phase is Phase.DISCARD and len(state.hands[1]) == 16


def test_only_the_declarer_discards_and_only_a_discard_is_accepted() -> None:
    state = apply_all(new_deal({1: HAND_1}, KITTY, dealer=0), [bid("7 H"), Pass(), Pass(), Pass()])
    with pytest.raises(RuleError) as info:
        state.apply(Discard(cards=cards(KITTY)), seat=2)
    assert info.value.code is ErrorCode.NOT_YOUR_TURN
    for action in (Play(card=cards("AH")[0]), Pass(), bid("8 NT")):
        with pytest.raises(RuleError) as info:
            state.apply(action)
        assert info.value.code is ErrorCode.WRONG_PHASE
