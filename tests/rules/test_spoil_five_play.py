"""docs/games.md 1.2 (deal and trump) and 1.5 (following suit and the renege privilege)."""

from __future__ import annotations

import pytest

from tests.rules.spoil_five_helpers import config, legal, play_cards, plays, start
from tricktable.rules.actions import Action, Play, Stand
from tricktable.rules.cards import cards, codes, standard_deck
from tricktable.rules.errors import ErrorCode, RuleError
from tricktable.rules.spoil_five import RULES, Phase

# --- 1.2 deal and trump --------------------------------------------------------------------------


def _deal_standard(pattern: str, dealer: int = 0) -> tuple[list[list[str]], str]:
    cfg = config("twenty_five", deal_pattern=pattern)
    deal = RULES["twenty_five"].start_deal(cfg, number=1, dealer=dealer, deck=standard_deck(), scores=(0, 0),
                                           redeal=False)
    return [codes(h) for h in deal.dealt], deal.turn_up.code  # type: ignore[attr-defined]


def test_deal_three_each_then_two_each_eldest_first_dealer_last() -> None:
    hands, turn_up = _deal_standard("3-2")
    assert hands[1] == ["2C", "3C", "4C", "AC", "2D"]
    assert hands[2] == ["5C", "6C", "7C", "3D", "4D"]
    assert hands[3] == ["8C", "9C", "TC", "5D", "6D"]
    assert hands[0] == ["JC", "QC", "KC", "7D", "8D"]
    assert turn_up == "9D"


def test_deal_pattern_two_then_three() -> None:
    hands, turn_up = _deal_standard("2-3")
    assert hands[1] == ["2C", "3C", "TC", "JC", "QC"]
    assert hands[2] == ["4C", "5C", "KC", "AC", "2D"]
    assert hands[3] == ["6C", "7C", "3D", "4D", "5D"]
    assert hands[0] == ["8C", "9C", "6D", "7D", "8D"]
    assert turn_up == "9D"


def test_deal_starts_at_the_dealers_left() -> None:
    hands, _ = _deal_standard("3-2", dealer=2)
    assert hands[3][:3] == ["2C", "3C", "4C"]
    assert hands[2][:3] == ["JC", "QC", "KC"]


def test_turn_up_suit_is_trump_and_eldest_hand_leads_the_first_trick() -> None:
    deal = RULES["forty_five"].start_deal(config("forty_five", players=6), number=1, dealer=4,
                                          deck=standard_deck(), scores=(0, 0), redeal=False)
    assert deal.turn_up.code == "6H"  # type: ignore[attr-defined]
    assert deal.trump.value == "H"  # type: ignore[attr-defined]
    assert deal.to_act == 5
    assert all(len(h) == 5 for h in deal.hands)  # type: ignore[attr-defined]


def test_rest_of_the_deck_is_not_used() -> None:
    deal = start("twenty_five", {}, "9D", rest="AS KS")
    assert "AS" not in [c for hand in deal.dealt for c in codes(hand)]
    assert legal(deal) == [f"play {c}" for c in sorted(codes(deal.hands[1]), key=lambda c: cards(c)[0].index)]


def test_a_deck_that_is_not_the_52_cards_is_refused() -> None:
    deck = list(standard_deck())
    deck[5] = deck[6]
    with pytest.raises(ValueError, match="52 cards once each"):
        RULES["twenty_five"].start_deal(config("twenty_five"), number=1, dealer=0, deck=deck, scores=(0, 0),
                                        redeal=False)


# --- 1.5 a plain card led ------------------------------------------------------------------------

HANDS_PLAIN = {1: "KD 2C 3C 4C 6C", 2: "2D 9S AH 3H 4H", 3: "7H 8H 9H TH JH", 0: "7C 8C 9C TC JC"}


def test_plain_lead_must_follow_suit_when_holding_it() -> None:
    deal = play_cards(start("twenty_five", HANDS_PLAIN, "8S"), "KD")
    assert plays(deal) == {"2D"}
    with pytest.raises(RuleError) as caught:
        deal.apply(Play(card=cards("9S")[0]))
    assert caught.value.code is ErrorCode.MUST_FOLLOW_SUIT
    assert caught.value.message == "must follow suit: a diamond is held"


def test_plain_lead_void_may_play_any_card() -> None:
    deal = play_cards(start("twenty_five", HANDS_PLAIN, "8S"), "KD 2D")
    assert plays(deal) == {"7H", "8H", "9H", "TH", "JH"}


def test_trump_at_will_follow_suit_or_trump_nothing_else() -> None:
    deal = play_cards(start("forty_five", HANDS_PLAIN, "8S"), "KD")
    assert plays(deal) == {"2D", "9S", "AH"}
    with pytest.raises(RuleError) as caught:
        deal.apply(Play(card=cards("3H")[0]))
    assert caught.value.code is ErrorCode.MUST_FOLLOW_OR_TRUMP
    assert caught.value.message == "must follow suit or trump: a diamond is held"


def test_trump_at_will_option_on_in_twenty_five_and_off_in_forty_five() -> None:
    assert plays(play_cards(start("twenty_five", HANDS_PLAIN, "8S", trump_at_will=True), "KD")) == {"2D", "9S", "AH"}
    assert plays(play_cards(start("forty_five", HANDS_PLAIN, "8S", trump_at_will=False), "KD")) == {"2D"}


def test_without_trump_at_will_a_trump_may_not_be_played_while_holding_the_suit_led() -> None:
    deal = play_cards(start("twenty_five", HANDS_PLAIN, "8S"), "KD")
    with pytest.raises(RuleError) as caught:
        deal.apply(Play(card=cards("AH")[0]))
    assert caught.value.code is ErrorCode.MUST_FOLLOW_SUIT


def test_ace_of_hearts_does_not_count_as_a_heart_when_hearts_are_led() -> None:
    # Spades trump, KH led: the only "heart" held is the A of hearts, a trump: void in plain hearts.
    hands = {1: "KH 2C 3C 4C 6C", 2: "AH 2D 3D 4D 6D", 3: "7H 8H 9H TH JH", 0: "7C 8C 9C TC JC"}
    deal = play_cards(start("twenty_five", hands, "8S"), "KH")
    assert plays(deal) == {"AH", "2D", "3D", "4D", "6D"}


def test_ace_of_hearts_held_with_a_plain_heart_the_plain_heart_must_follow() -> None:
    hands = {1: "KH 2C 3C 4C 6C", 2: "AH 2H 3D 4D 6D", 3: "7H 8H 9H TH JH", 0: "7C 8C 9C TC JC"}
    assert plays(play_cards(start("twenty_five", hands, "8S"), "KH")) == {"2H"}
    assert plays(play_cards(start("forty_five", hands, "8S"), "KH")) == {"2H", "AH"}


# --- 1.5 a trump led: the renege privilege -------------------------------------------------------


def _after_lead(lead: str, hand: str, game: str = "twenty_five") -> set[str]:
    """Spades trump (turn-up 8S, robbing off): eldest (seat 1) leads ``lead``; the legal plays of seat 2."""
    spare = [c.code for c in cards("2C 3C 4C 6C 7C 8C 9C TC JC QC KC 2D 3D 4D") if c.code not in hand.split()]
    hands = {1: " ".join([lead, *spare[:4]]), 2: hand}
    deal = play_cards(start(game, hands, "8S", rest="", robbing=False), lead)
    return plays(deal)


def test_renege_top_trump_exempt_when_lower_trump_led() -> None:
    assert _after_lead("2S", "5S 3H 4H 6H 7H") == {"5S", "3H", "4H", "6H", "7H"}
    assert _after_lead("KS", "JS 3H 4H 6H 7H") == {"JS", "3H", "4H", "6H", "7H"}
    assert _after_lead("AS", "AH 3H 4H 6H 7H") == {"AH", "3H", "4H", "6H", "7H"}


def test_renege_top_trump_forced_out_by_a_higher_top_trump_led() -> None:
    assert _after_lead("JS", "AH 3H 4H 6H 7H") == {"AH"}
    assert _after_lead("5S", "JS 3H 4H 6H 7H") == {"JS"}


def test_renege_five_of_trumps_is_never_forced() -> None:
    for lead in ("JS", "AH", "AS", "KS", "2S", "TS"):
        assert _after_lead(lead, "5S 3H 4H 6H 7H") == {"5S", "3H", "4H", "6H", "7H"}


def test_renege_ace_of_trumps_is_not_a_top_trump_and_is_forced() -> None:
    assert _after_lead("3S", "AS 3H 4H 6H 7H") == {"AS"}


def test_renege_holding_a_non_exempt_trump_must_play_a_trump_exempt_ones_included() -> None:
    assert _after_lead("3S", "5S 7S 3H 4H 6H") == {"5S", "7S"}
    assert _after_lead("3S", "JS AH 2S 4H 6H") == {"JS", "AH", "2S"}


def test_renege_all_trumps_exempt_may_play_any_card() -> None:
    assert _after_lead("3S", "5S JS 3H 4H 6H") == {"5S", "JS", "3H", "4H", "6H"}


def test_renege_holding_no_trump_may_play_any_card() -> None:
    assert _after_lead("3S", "2H 3H 4H 6H 7H") == {"2H", "3H", "4H", "6H", "7H"}


def test_renege_ace_of_hearts_lead_forces_lower_trumps_not_higher_top_trumps() -> None:
    # The A of hearts led is a trump lead (1.3): hearts need not follow, the J of trumps is exempt.
    assert _after_lead("AH", "JS 3H 4H 6H 7H") == {"JS", "3H", "4H", "6H", "7H"}
    assert _after_lead("AH", "AS 3H 4H 6H 7H") == {"AS"}
    assert _after_lead("AH", "2H 3H 4H 6H 7H") == {"2H", "3H", "4H", "6H", "7H"}


def test_renege_exemption_is_against_the_card_led_not_the_best_trump_so_far() -> None:
    hands = {1: "2S 2C 3C 4C 6C", 2: "5S 2D 3D 4D 6D", 3: "JS 7H 8H 9H TH", 0: "7C 8C 9C TC JC"}
    deal = play_cards(start("twenty_five", hands, "8S"), "2S 5S")
    assert plays(deal) == {"JS", "7H", "8H", "9H", "TH"}


def test_renege_is_the_same_with_trump_at_will() -> None:
    assert _after_lead("2S", "5S 3H 4H 6H 7H", game="forty_five") == {"5S", "3H", "4H", "6H", "7H"}
    assert _after_lead("3S", "5S 7S 3H 4H 6H", game="forty_five") == {"5S", "7S"}


def test_must_play_trump_refusal_has_its_code_and_message() -> None:
    deal = play_cards(start("twenty_five", {1: "3S 2C 3C 4C 6C", 2: "7S 3H 4H 6H 7H"}, "8S"), "3S")
    with pytest.raises(RuleError) as caught:
        deal.apply(Play(card=cards("3H")[0]))
    assert caught.value.code is ErrorCode.MUST_PLAY_TRUMP
    assert caught.value.message == "must play a trump: a non-exempt trump is held"


# --- refusals leave the state unchanged -----------------------------------------------------------


def test_illegal_actions_raise_with_their_code_and_leave_the_state_unchanged() -> None:
    deal = start("twenty_five", HANDS_PLAIN, "8S")
    before = deal.legal_actions()
    cases: list[tuple[Action, int | None, ErrorCode, str]] = [
        (Play(card=cards("2D")[0]), 2, ErrorCode.NOT_YOUR_TURN, "not your turn: seat 1 is to act"),
        (Play(card=cards("2D")[0]), None, ErrorCode.CARD_NOT_IN_HAND, "2D is not in your hand"),
        (Stand(), None, ErrorCode.WRONG_PHASE, "stand is not an action of twenty_five"),
        (Play(card=cards("KD")[0], suit=cards("KD")[0].suit), None, ErrorCode.MALFORMED_ACTION,
         "a play names no suit in this game"),
    ]
    for act, seat, code, message in cases:
        with pytest.raises(RuleError) as caught:
            deal.apply(act, seat)
        assert (caught.value.code, caught.value.message) == (code, message)
        with pytest.raises(RuleError):
            deal.check(act, seat)
        assert deal.legal_actions() == before
        assert deal.to_act == 1 and deal.actions == () and deal.phase is Phase.PLAY


def test_every_legal_action_passes_check_and_every_other_card_fails() -> None:
    deal = play_cards(start("forty_five", HANDS_PLAIN, "8S"), "KD")
    legal_cards = plays(deal)
    for c in deal.hands[2]:
        if c.code in legal_cards:
            deal.check(Play(card=c))
        else:
            with pytest.raises(RuleError):
                deal.check(Play(card=c))


def test_ten_players_deal_fifty_cards_and_turn_up_the_fifty_first() -> None:
    deal = RULES["forty_five"].start_deal(config("forty_five", players=10), number=1, dealer=9,
                                          deck=standard_deck(), scores=(0,) * 10, redeal=False)
    assert all(len(h) == 5 for h in deal.hands)  # type: ignore[attr-defined]
    assert deal.turn_up is standard_deck()[50]  # type: ignore[attr-defined]
    assert deal.to_act == 0


def test_is_legal_answers_what_check_decides() -> None:
    deal = play_cards(start("twenty_five", HANDS_PLAIN, "8S"), "KD")
    assert deal.is_legal(Play(card=cards("2D")[0]))
    assert not deal.is_legal(Play(card=cards("9S")[0]))
    assert not deal.is_legal(Play(card=cards("2D")[0]), seat=3)
