"""docs/games.md 1.4: robbing the pack."""

from __future__ import annotations

import pytest

from tests.rules.spoil_five_helpers import action, do, legal, play_cards, plays, start
from tricktable.rules.actions import PassRob, Play, Rob
from tricktable.rules.cards import cards, codes
from tricktable.rules.errors import ErrorCode, RuleError
from tricktable.rules.spoil_five import Phase, SpoilFiveDeal

# Diamonds trump; the dealer is seat 0, eldest hand seat 1.
HANDS = {1: "KD 2C 3C 4C 6C", 2: "2D 9S 2H 3H 4H", 3: "7H 8H 9H TH JH", 0: "7C 8C 9C TC JC"}


def _refused(deal: SpoilFiveDeal, text: str, code: ErrorCode, message: str) -> None:
    with pytest.raises(RuleError) as caught:
        deal.apply(action(text))
    assert (caught.value.code, caught.value.message) == (code, message)


# --- the dealer, with the ace of trumps turned up --------------------------------------------------


def test_dealer_must_decide_rob_or_pass_first_when_the_ace_of_trumps_is_turned_up() -> None:
    deal = start("twenty_five", HANDS, "AD")
    assert deal.phase is Phase.ROB and deal.to_act == 0
    assert legal(deal) == ["rob 7C", "rob 8C", "rob 9C", "rob TC", "rob JC", "pass_rob"]
    with pytest.raises(RuleError) as caught:
        deal.check(Play(card=cards("KD")[0]), 1)
    assert caught.value.code is ErrorCode.NOT_YOUR_TURN
    _refused(deal, "play 7C", ErrorCode.WRONG_PHASE, "the dealer must first rob or pass_rob (AD is turned up)")


def test_dealer_rob_takes_the_turn_up_and_buries_a_card_of_the_hand_as_dealt() -> None:
    deal = do(start("twenty_five", HANDS, "AD"), "rob 9C")
    assert deal.phase is Phase.PLAY and deal.to_act == 1
    assert sorted(codes(deal.hands[0])) == sorted(["7C", "8C", "TC", "JC", "AD"])
    assert (deal.robbed_by, deal.buried) == (0, cards("9C")[0])
    assert deal.recorded_action(0) == {"seat": 0, "type": "rob", "card": "9C"}


def test_dealer_pass_rob_keeps_the_hand_and_play_begins() -> None:
    deal = do(start("twenty_five", HANDS, "AD"), "pass_rob")
    assert deal.phase is Phase.PLAY and deal.to_act == 1 and deal.robbed_by is None
    assert sorted(codes(deal.hands[0])) == sorted(["7C", "8C", "9C", "TC", "JC"])
    assert deal.recorded_action(0) == {"seat": 0, "type": "pass_rob"}


def test_dealer_cannot_bury_the_turn_up() -> None:
    deal = start("twenty_five", HANDS, "AD")
    _refused(deal, "rob AD", ErrorCode.CARD_NOT_IN_HAND,
             "the turn-up AD cannot be buried: name a card of your hand as dealt")
    _refused(deal, "rob KD", ErrorCode.CARD_NOT_IN_HAND, "KD is not in your hand")


def test_dealer_may_rob_with_the_ace_of_hearts_turned_when_hearts_are_trumps() -> None:
    hands = {1: "KD 2C 3C 4C 6C", 2: "2D 9S 2S 3S 4S", 3: "7D 8D 9D TD JD", 0: "7C 8C 9C TC JC"}
    deal = start("forty_five", hands, "AH")
    assert legal(deal)[-1] == "pass_rob" and deal.to_act == 0


def test_ace_of_diamonds_turned_under_hearts_is_not_the_ace_of_trumps() -> None:
    # Only the A of T, or the A of hearts with hearts trumps, gives the dealer a decision.
    deal = start("twenty_five", {1: "AH 2C 3C 4C 6C", 2: "2D 9S 2S 3S 4S"}, "AS")
    assert deal.phase is Phase.ROB
    deal = start("twenty_five", {1: "KD 2C 3C 4C 6C", 2: "2D 9S 2S 3S 4S"}, "AC", robbing=False)
    assert deal.phase is Phase.PLAY and deal.to_act == 1


# --- the holder of the ace of trumps, at their first turn ------------------------------------------

HOLDER = {1: "KD 2C 3C 4C 6C", 2: "AD 9S 2H 3H 4H", 3: "7H 8H 9H TH JH", 0: "7C 8C 9C TC JC"}


def test_holder_may_rob_at_first_turn_then_must_play_in_the_same_turn() -> None:
    deal = play_cards(start("twenty_five", HOLDER, "5D"), "KD")
    assert legal(deal) == ["play AD", "rob AD", "rob 2H", "rob 3H", "rob 4H", "rob 9S"]
    deal = do(deal, "rob 9S")
    assert deal.to_act == 2 and deal.must_play
    assert legal(deal) == ["play 5D", "play AD"]
    _refused(deal, "rob 2H", ErrorCode.MUST_PLAY_AFTER_ROB, "you have robbed: now play a card")
    deal = do(deal, "play 5D")
    assert deal.to_act == 3 and not deal.must_play
    assert [deal.recorded_action(i) for i in range(3)] == [
        {"seat": 1, "type": "play", "card": "KD"},
        {"seat": 2, "type": "rob", "card": "9S"},
        {"seat": 2, "type": "play", "card": "5D"},
    ]


def test_holder_declining_to_rob_leaves_no_trace() -> None:
    deal = do(play_cards(start("twenty_five", HOLDER, "5D"), "KD"), "play AD")
    assert deal.robbed_by is None and deal.to_act == 3
    assert [deal.recorded_action(i)["type"] for i in range(len(deal.actions))] == ["play", "play"]
    assert deal.to_record((0, 0))["actions"] == [{"seat": 1, "type": "play", "card": "KD"},
                                                 {"seat": 2, "type": "play", "card": "AD"}]


def test_holder_may_bury_the_ace_itself() -> None:
    deal = do(play_cards(start("twenty_five", HOLDER, "5D"), "KD"), "rob AD")
    assert sorted(codes(deal.hands[2])) == sorted(["5D", "9S", "2H", "3H", "4H"])
    # KD led is a trump lead; the 5 of trumps is exempt, so any card may follow.
    assert plays(deal) == {"5D", "9S", "2H", "3H", "4H"}
    assert deal.buried == cards("AD")[0]


def test_holder_rob_comes_only_at_the_first_turn_of_the_first_trick() -> None:
    hands = {1: "AD 2C 3C 4C 6C", 2: "KD 9S 2H 3H 4H", 3: "7H 8H 9H TH JH", 0: "7C 8C 9C TC JC"}
    deal = start("twenty_five", hands, "5D")
    deal = play_cards(deal, "2C 9S 7H JC")  # seat 1 declines and leads; JC outranks 2C
    assert deal.tricks[0].winner == 0
    deal = play_cards(deal, "8C")
    assert deal.to_act == 1
    assert not any(a.type == "rob" for a in deal.legal_actions())
    _refused(deal, "rob 3C", ErrorCode.ROB_NOT_ALLOWED, "a rob comes only at your first turn of the first trick")


def test_eldest_holder_robs_before_leading() -> None:
    hands = {1: "AD 2C 3C 4C 6C", 2: "KD 9S 2H 3H 4H"}
    deal = start("twenty_five", hands, "5D")
    assert "rob 2C" in legal(deal)
    deal = do(deal, "rob 2C", "play 5D")
    assert deal.trick.cards == cards("5D")


def test_dealer_holding_the_ace_robs_at_their_first_turn_playing_last() -> None:
    hands = {1: "KD 2C 3C 4C 6C", 2: "2D 9S 2H 3H 4H", 3: "7H 8H 9H TH JH", 0: "AD 8C 9C TC JC"}
    deal = play_cards(start("twenty_five", hands, "5D"), "KD 2D 7H")
    assert deal.to_act == 0
    assert "rob JC" in legal(deal)
    deal = do(deal, "rob JC", "play 5D")
    assert deal.tricks[0].winner == 0 and deal.robbed_by == 0


def test_ace_of_hearts_gives_the_right_to_rob_only_when_hearts_are_trumps() -> None:
    hands = {1: "KD 2C 3C 4C 6C", 2: "AH 9S 2D 3S 4S", 3: "7D 8D 9D TD JD", 0: "7C 8C 9C TC JC"}
    deal = play_cards(start("twenty_five", hands, "5S"), "KD")
    assert not any(a.type == "rob" for a in deal.legal_actions())
    _refused(deal, "rob 9S", ErrorCode.ROB_NOT_ALLOWED, "only the player dealt the ace of trumps (AS) may rob")
    hearts = {1: "KD 2C 3C 4C 6C", 2: "AH 9S 2D 3S 4S", 3: "7D 8D 9D TD JD", 0: "7C 8C 9C TC JC"}
    deal = play_cards(start("twenty_five", hearts, "5H"), "KD")
    assert "rob 9S" in legal(deal)


def test_robbing_false_turns_robbing_off() -> None:
    deal = start("twenty_five", HANDS, "AD", robbing=False)
    assert deal.phase is Phase.PLAY and deal.to_act == 1
    _refused(deal, "pass_rob", ErrorCode.WRONG_PHASE,
             "pass_rob is only for the dealer, before play, with the ace of trumps turned up")
    deal = play_cards(start("twenty_five", HOLDER, "5D", robbing=False), "KD")
    assert legal(deal) == ["play AD"]
    _refused(deal, "rob 9S", ErrorCode.ROB_NOT_ALLOWED, "robbing is off at this table")


def test_at_most_one_rob_a_deal() -> None:
    deal = do(start("twenty_five", HANDS, "AD"), "rob 9C")
    _refused(deal, "rob KD", ErrorCode.ROB_NOT_ALLOWED, "the pack has already been robbed this deal")
    deal = do(start("twenty_five", HANDS, "AD"), "pass_rob")
    _refused(deal, "rob KD", ErrorCode.ROB_NOT_ALLOWED, "only the dealer may rob this deal (AD is turned up)")
    _refused(deal, "pass_rob", ErrorCode.WRONG_PHASE,
             "pass_rob is only for the dealer, before play, with the ace of trumps turned up")


def test_non_holder_may_not_rob() -> None:
    deal = start("twenty_five", HOLDER, "5D")
    assert not any(a.type == "rob" for a in deal.legal_actions())
    _refused(deal, "rob KD", ErrorCode.ROB_NOT_ALLOWED, "only the player dealt the ace of trumps (AD) may rob")


def test_robber_may_play_the_turn_up_it_took() -> None:
    deal = do(start("twenty_five", HANDS, "AD"), "rob 9C")
    deal = play_cards(deal, "KD 2D 7H")
    assert "AD" in plays(deal)


def test_rob_decision_is_a_dealer_only_rob_and_pass_rob_refused_with_other_actions() -> None:
    deal = start("twenty_five", HANDS, "AD")
    with pytest.raises(RuleError) as caught:
        deal.apply(PassRob(), 1)
    assert caught.value.code is ErrorCode.NOT_YOUR_TURN
    with pytest.raises(RuleError):
        deal.apply(Rob(card=cards("KD")[0]), 1)
    assert deal.actions == ()


def test_holder_cannot_bury_the_turn_up_or_a_card_not_dealt_to_them() -> None:
    deal = play_cards(start("twenty_five", HOLDER, "5D"), "KD")
    _refused(deal, "rob 5D", ErrorCode.CARD_NOT_IN_HAND,
             "the turn-up 5D cannot be buried: name a card of your hand as dealt")
    _refused(deal, "rob KD", ErrorCode.CARD_NOT_IN_HAND, "KD is not in your hand")
    assert deal.robbed_by is None and len(deal.actions) == 1
