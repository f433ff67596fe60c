"""All Fives, docs/games.md 2.3 and 2.4: play, scoring and the end of the game."""

from __future__ import annotations

import itertools

import pytest

from tests.rules.test_all_fives_decks import build_deck, start
from tricktable.rules.actions import Action, Beg, Gift, Play, Run, Stand
from tricktable.rules.all_fives import RULES, AllFivesDeal, counting_points
from tricktable.rules.cards import Suit, card, cards
from tricktable.rules.errors import ErrorCode, RuleError
from tricktable.rules.events import PackRun
from tricktable.rules.registry import new_match
from tricktable.rules.shuffle import RecordedDecks


def plays(text: str) -> list[Play]:
    """The Play actions of ``text`` in legal_actions() order (card index)."""
    return [Play(card=c) for c in sorted(cards(text))]


def play(deal: AllFivesDeal, text: str) -> AllFivesDeal:
    """Play the cards of ``text`` in turn."""
    for code in text.split():
        deal = deal.apply(Play(card=card(code)))
    return deal


# Eldest (seat 1) holds the top hearts; the dealer (seat 0) the other counting hearts.
TOP_HEARTS = {1: "AH KH QH 2S 3S 4S", 0: "JH TH 5H AS KS QS"}


# --- 2.3 play ---------------------------------------------------------------


def test_eldest_hand_leads_the_first_trick() -> None:
    deal = start(build_deck(dealer=1, hands={0: "AH KH QH 2S 3S 4S"}, turn_up="9H"), dealer=1).apply(Stand())
    assert deal.to_act == 0
    assert deal.legal_actions() == plays("AH KH QH 2S 3S 4S")


def test_strict_follow_a_player_holding_the_suit_led_must_follow() -> None:
    deal = start(build_deck(hands={1: "2S 3S 4S 5S 6S 7S", 0: "AS 8C 9C TC JC 2H"}, turn_up="9H"))
    deal = play(deal.apply(Stand()), "2S")
    assert deal.legal_actions() == plays("AS")
    with pytest.raises(RuleError) as info:
        deal.check(Play(card=card("2H")))  # a trump is no excuse while holding spades
    assert info.value.code is ErrorCode.MUST_FOLLOW_SUIT
    assert str(info.value) == "seat 0 must follow suit S (holds AS), not play 2H"
    with pytest.raises(RuleError) as info:
        deal.check(Play(card=card("8C")))
    assert info.value.code is ErrorCode.MUST_FOLLOW_SUIT


def test_strict_follow_a_void_player_may_trump_or_not() -> None:
    deal = start(build_deck(hands={1: "2S 3S 4S 5S 6S 7S", 0: "8C 9C TC JC 2H 3H"}, turn_up="9H"))
    deal = play(deal.apply(Stand()), "2S")
    assert deal.legal_actions() == plays("8C 9C TC JC 2H 3H")
    assert play(deal, "8C").tricks[0].winner == 1  # discarding loses the trick
    assert play(deal, "2H").tricks[0].winner == 0  # trumping wins it


def test_a_player_holding_the_suit_led_cannot_trump_and_its_highest_card_wins() -> None:
    deal = start(build_deck(players=3, dealer=2, hands={0: "4D 2C 3C 4C 5C 6C", 1: "KD 7C 8C 9C TC JC",
                                                        2: "2S AD QC KC AC 3S"}, turn_up="9S"),
                 players=3, dealer=2).apply(Stand())
    # Seat 2 holds AD, so must follow: the ace of diamonds wins.
    assert play(deal, "4D KD AD").tricks[0].winner == 2
    with pytest.raises(RuleError):
        play(deal, "4D KD 2S")


def test_trump_beats_the_suit_led_and_a_higher_trump_beats_a_lower() -> None:
    deal = start(build_deck(players=3, dealer=2, hands={0: "4D 2C 3C 4C 5C 6C", 1: "2S 7C 8C 9C TC JC",
                                                        2: "3S KH QH JH TH 9H"}, turn_up="9S"),
                 players=3, dealer=2).apply(Stand())
    after = play(deal, "4D 2S 3S")
    assert after.tricks[0].winner == 2
    assert after.tricks[0].cards == cards("4D 2S 3S") and after.tricks[0].leader == 0
    assert after.to_act == 2  # the winner leads the next trick


def test_without_trump_the_highest_card_of_the_suit_led_wins() -> None:
    deal = start(build_deck(players=3, dealer=2, hands={0: "4D 2C 3C 4C 5C 6C", 1: "KD 7C 8C 9C TC JC",
                                                        2: "AH KH QH JH TH 9H"}, turn_up="9S"),
                 players=3, dealer=2).apply(Stand())
    # The ace of hearts is off-suit and not trump: it cannot win.
    assert play(deal, "4D KD AH").tricks[0].winner == 1


def test_ranks_ace_high_to_two_in_every_suit_trump_included() -> None:
    ranks = "AKQJT98765432"
    for suit in "CDHS":
        trump = "H" if suit != "H" else "C"
        for high, low in itertools.pairwise(ranks):
            for led_first in (low, high):
                other = high if led_first == low else low
                deal = start(build_deck(hands={1: led_first + suit, 0: other + suit}, turn_up="9" + trump))
                after = play(deal.apply(Stand()), f"{led_first}{suit} {other}{suit}")
                assert after.tricks[0].winner == (1 if led_first == high else 0), (suit, high, low)
    # Trump ranks the same way: a trump ten beats a trump nine, the ace beats the king.
    deal = start(build_deck(hands={1: "9H AH", 0: "TH KH"}, turn_up="2H")).apply(Stand())
    assert play(deal, "9H TH").tricks[0].winner == 0


def test_all_cards_are_played_out_hands_of_9_after_a_run() -> None:
    deal = start(build_deck(turn_up="9D", runs=["AS"])).apply(Beg()).apply(Run())
    count = 0
    while not deal.is_over:
        deal = deal.apply(deal.legal_actions()[0])
        count += 1
    assert count == 18 and len(deal.tricks) == 9
    assert all(len(t.cards) == 2 for t in deal.tricks) and deal.hands == ((), ())


# --- 2.4 scoring --------------------------------------------------------------


def test_counting_cards_a4_k3_q2_j1_t10_55_of_trumps_only() -> None:
    assert counting_points(cards("AH KH QH JH TH 5H"), Suit.HEARTS) == 25
    assert counting_points(cards("AH"), Suit.HEARTS) == 4
    assert counting_points(cards("KH QH JH"), Suit.HEARTS) == 6
    assert counting_points(cards("TH 5H 9H 4H 2H"), Suit.HEARTS) == 15
    assert counting_points(cards("AS KS QS JS TS 5S"), Suit.HEARTS) == 0


def test_each_player_scores_the_trumps_in_the_tricks_they_won_25_when_all_dealt() -> None:
    deal = start(build_deck(hands=TOP_HEARTS, turn_up="2H")).apply(Stand())
    # Seat 1 takes AH+JH (5), KH+TH (13), QH+5H (7); seat 0 then wins the spades, which count nothing.
    deal = play(deal, "AH JH KH TH QH 5H 2S AS KS 3S QS 4S")
    assert deal.is_over and [t.winner for t in deal.tricks] == [1, 1, 1, 0, 0, 0]
    assert deal.points == (0, 25)


def test_trumps_played_into_a_trick_lost_score_for_its_winner() -> None:
    hands = {1: "2S 5H 3S 4S 6S 7S", 0: "TH AS KS QS JS 9C"}
    deal = start(build_deck(hands=hands, turn_up="2H")).apply(Stand())
    # 2S led, seat 0 must follow: AS wins. Then seat 0 leads TH; seat 1 follows 5H and loses both.
    deal = play(deal, "2S AS TH 5H")
    assert [t.winner for t in deal.tricks] == [0, 0]
    while not deal.is_over:
        deal = deal.apply(deal.legal_actions()[0])
    assert deal.points == (15, 0)


def test_total_is_25_less_the_trumps_not_dealt() -> None:
    # The 5 of trumps is the turn-up; the A, K, Q, J, 10 of trumps are dealt: 20 in all.
    deal = start(build_deck(hands={1: "AH KH QH JH TH 2C", 0: "3C 4C 6C 7C 8C 9C"}, turn_up="5H")).apply(Stand())
    while not deal.is_over:
        deal = deal.apply(deal.legal_actions()[0])
    assert sum(deal.points) == 20


def test_points_show_the_trumps_only_when_the_deal_is_played_out() -> None:
    deal = start(build_deck(hands=TOP_HEARTS, turn_up="2H")).apply(Stand())
    deal = play(deal, "AH JH")
    assert deal.points == (0, 0) and deal.to_record([0, 0])["points"] == [0, 0]


def test_gift_and_trumps_add_up_in_the_deal() -> None:
    deal = start(build_deck(hands=TOP_HEARTS, turn_up="2H")).apply(Beg()).apply(Gift())
    deal = play(deal, "AH JH KH TH QH 5H 2S AS KS 3S QS 4S")
    assert deal.points == (0, 26)


# --- 2.4 end of the game -------------------------------------------------------


def _finish(deal: AllFivesDeal) -> AllFivesDeal:
    while not deal.is_over:
        deal = deal.apply(deal.legal_actions()[0])
    return deal


def test_target_61_reached_ends_the_game_highest_total_wins() -> None:
    config = RULES.config({})
    deal = _finish(start(build_deck(turn_up="9D")).apply(Stand()))
    assert RULES.match_result(config, deal, [60, 12]) is None
    result = RULES.match_result(config, deal, [61, 12])
    assert result is not None and result.winners == (0,) and result.status == "finished"
    # Both past the target: the higher total wins, even the player who got there second.
    result = RULES.match_result(config, deal, [62, 70])
    assert result is not None and result.winners == (1,) and result.scores == (62, 70)


def test_tie_on_the_highest_total_shares_the_win() -> None:
    config = RULES.config({"players": 3})
    deal = _finish(start(build_deck(players=3, turn_up="9D"), players=3).apply(Stand()))
    result = RULES.match_result(config, deal, [63, 63, 40])
    assert result is not None and result.winners == (0, 1)
    result = RULES.match_result(config, deal, [61, 61, 61])
    assert result is not None and result.winners == (0, 1, 2)


def test_tie_reached_in_a_whole_match_is_shared() -> None:
    # Target 5. Seat 1 wins 5H (5); seat 0, void in clubs, trumps with AH (4) and wins JH (1).
    hands = {1: "5H 2C 3C 4C 6C 7C", 0: "AH JH 2H 2S 3S 4S"}
    match = new_match("all_fives", {"target": 5, "first_dealer": 0},
                      decks=RecordedDecks([build_deck(hands=hands, turn_up="9H")]))
    match = match.apply(Stand())
    for c in cards("5H 2H 2C AH JH 3C 2S 4C 3S 6C 4S 7C"):
        assert not match.is_over
        match = match.apply(Play(card=c))
    assert match.result is not None
    assert match.result.winners == (0, 1) and match.result.scores == (5, 5)
    record = match.to_record()
    assert record["result"] == {"status": "finished", "winners": [0, 1], "scores": [5, 5],
                                "reason": "target reached"}


def test_game_goes_on_below_the_target_with_the_deal_passing_left() -> None:
    hands = {1: "5H 2C 3C 4C 6C 7C", 0: "AH JH 2H 2S 3S 4S"}
    match = new_match("all_fives", {"target": 6, "first_dealer": 0},
                      decks=RecordedDecks([build_deck(hands=hands, turn_up="9H"), build_deck(dealer=1, turn_up="9C")]))
    match = match.apply(Stand())
    for c in cards("5H 2H 2C AH JH 3C 2S 4C 3S 6C 4S 7C"):
        match = match.apply(Play(card=c))
    assert not match.is_over and match.scores == (5, 5)
    assert match.deal.dealer == 1 and match.deal.number == 2 and match.to_act == 0


# --- a three-player game -------------------------------------------------------


def test_three_player_deal_runs_and_plays_out() -> None:
    deck = build_deck(players=3, dealer=1, turn_up="9D", runs=["TD", "2S"], filler="AS KS QS JS TS 5S")
    deal = start(deck, players=3, dealer=1)
    assert deal.to_act == 2
    deal = deal.apply(Beg())
    assert deal.to_act == 1
    deal = deal.apply(Run())
    assert deal.trump is Suit.SPADES and [len(h) for h in deal.hands] == [12, 12, 12]
    assert deal.to_act == 2
    deal = _finish(deal)
    assert len(deal.tricks) == 12 and deal.tricks[0].leader == 2
    # All spade counting cards but the exposed 2S were dealt: 25 points shared.
    assert sum(deal.points) == 25


def test_three_player_match_ends_with_the_highest_total() -> None:
    import random

    rng = random.Random(7)
    match = new_match("all_fives", {"players": 3, "first_dealer": 2}, seed="three")
    while not match.is_over:
        match = match.apply(rng.choice(match.legal_actions()))
    assert match.result is not None
    scores = match.result.scores
    assert max(scores) >= 61 and match.result.winners == tuple(s for s in range(3) if scores[s] == max(scores))
    before = match.finished[-1][1]
    assert max(before) < 61  # the game did not go on past the deal that reached the target


# --- illegal actions ------------------------------------------------------------


def test_illegal_actions_raise_with_their_code_and_change_nothing() -> None:
    deal = start(build_deck(hands={1: "2S 3S 4S 5S 6S 7S", 0: "AS 8C 9C TC JC 2H"}, turn_up="9H"),
                 scores=[0, 60])
    snapshot = deal
    cases: list[tuple[AllFivesDeal, Action, int | None, ErrorCode]] = [
        (deal, Play(card=card("2S")), None, ErrorCode.WRONG_PHASE),
        (deal, Gift(), None, ErrorCode.WRONG_PHASE),
        (deal, Stand(), 0, ErrorCode.NOT_YOUR_TURN),
        (deal.apply(Beg()), Stand(), None, ErrorCode.WRONG_PHASE),
        (deal.apply(Beg()), Run(), 1, ErrorCode.NOT_YOUR_TURN),
        (deal.apply(Beg()), Gift(), None, ErrorCode.GIFT_NOT_ALLOWED),
        (deal.apply(Stand()), Play(card=card("AS")), None, ErrorCode.CARD_NOT_IN_HAND),
        (deal.apply(Stand()), Play(card=card("2S"), suit=Suit.SPADES), None, ErrorCode.BAD_NAMED_SUIT),
        (deal.apply(Stand()), Beg(), None, ErrorCode.WRONG_PHASE),
        (play(deal.apply(Stand()), "2S"), Play(card=card("8C")), None, ErrorCode.MUST_FOLLOW_SUIT),
        (play(deal.apply(Stand()), "2S"), Play(card=card("3S")), None, ErrorCode.CARD_NOT_IN_HAND),
    ]
    for state, action, seat, code in cases:
        before = state
        with pytest.raises(RuleError) as info:
            state.apply(action, seat)
        assert info.value.code is code, (action, info.value)
        assert state == before
    assert deal == snapshot


def test_no_action_once_the_deal_is_over() -> None:
    deal = _finish(start(build_deck(turn_up="9D")).apply(Stand()))
    assert deal.legal_actions() == [] and deal.to_act is None
    with pytest.raises(RuleError) as info:
        deal.check(Play(card=card("2C")))
    assert info.value.code is ErrorCode.WRONG_PHASE


def test_match_refuses_illegal_actions_and_stays_the_same() -> None:
    match = new_match("all_fives", {"first_dealer": 0}, decks=RecordedDecks([build_deck(turn_up="9D")]))
    before = match
    with pytest.raises(RuleError) as info:
        match.apply(Gift())
    assert info.value.code is ErrorCode.WRONG_PHASE and match == before and match.to_act == 1


# --- views ----------------------------------------------------------------------


def test_view_shows_own_hand_and_public_state_never_other_hands_or_stock() -> None:
    deck = build_deck(hands=TOP_HEARTS, turn_up="9D", runs=["AC"])
    deal = start(deck).apply(Beg()).apply(Run())
    deal = play(deal, "AH")
    view = deal.view(0, [3, 4])
    assert view.hand == tuple(sorted(deal.hands[0])) and view.seat == 0
    assert view.turn_up == card("9D") and view.exposed == cards("9D AC") and view.trump is Suit.CLUBS
    assert view.to_act == 0 and view.legal_actions == tuple(deal.legal_actions())
    assert view.current_trick is not None and view.current_trick.cards == cards("AH")
    assert view.hand_sizes == (9, 8) and view.scores == (3, 4) and view.dealer == 0
    assert view.history[1] == PackRun(seat=0, exposed=cards("AC"))
    hidden = (set(deal.hands[1]) | set(deck[deal.used:]))
    shown = repr(view)
    assert not any(f"Card({c.code})" in shown for c in hidden)
    other = deal.view(1, [3, 4])
    assert other.legal_actions == () and other.hand == tuple(sorted(deal.hands[1]))
    assert not any(f"Card({c.code})" in repr(other) for c in deal.hands[0])


def test_view_before_trump_is_set_shows_no_trump() -> None:
    deal = start(build_deck(turn_up="9D")).apply(Beg())
    view = deal.view(1, [0, 0])
    assert view.trump is None and view.turn_up == card("9D") and view.legal_actions == ()
    assert deal.view(0, [0, 0]).legal_actions == (Gift(), Run())
