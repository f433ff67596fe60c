"""docs/games.md 1.6 (Twenty-Five scoring and end) and 1.7 (Forty-Five scoring, end and jink)."""

from __future__ import annotations

import pytest

from tests.rules.spoil_five_helpers import action, config, deck_for, do, legal, play_cards, start
from tricktable.rules.actions import Jink, PassJink
from tricktable.rules.errors import ErrorCode, RuleError
from tricktable.rules.registry import new_match
from tricktable.rules.shuffle import RecordedDecks
from tricktable.rules.spoil_five import RULES, Phase, counting_order

# Spades trump (turn-up 8S), dealer 0, four players: side 0 = seats 0 and 2, side 1 = seats 1 and 3.
QUICK = {1: "2D 3D 4D 6D 7D", 2: "5S JS AH KS QS", 3: "2H 3H 4H 6H 7H", 0: "2C 3C 4C 6C 7C"}

# Forty-Five: side 0 takes four tricks, side 1 one trick with the J of trumps, the highest trump played.
BONUS = {1: "2D 3D 4D 6D JS", 2: "2S 3S 4S 6S 7S", 3: "2H 3H 4H 6H 7H", 0: "2C 3C 4C 6C 7D"}
BONUS_PLAY = "2D 2S 2H 7D 3S 3H 2C 3D 4S 4H 3C JS 4D 6S 6H 4C 7S 7H 6C 6D"

# Forty-Five: side 0 takes all five tricks (seat 0 plays the J of trumps).
SWEEP = {1: "2D 3D 4D 6D 7D", 2: "2S 3S 4S 6S 7S", 3: "2H 3H 4H 6H 7H", 0: "2C 3C 4C 6C JS"}
SWEEP_PLAY = "2D 2S 2H 2C 3S 3H 3C 3D 4S 4H JS 4D 4C 6D 6S 6H 7S 7H 6C 7D"


# --- 1.6 Twenty-Five --------------------------------------------------------------------------------


def test_twenty_five_each_trick_scores_five_as_it_is_won() -> None:
    deal = start("twenty_five", QUICK, "8S")
    deal = play_cards(deal, "2D 5S 2H")
    assert deal.points == (0, 0)
    deal = play_cards(deal, "2C")
    assert deal.points == (5, 0)
    assert deal.view(1, (0, 0)).scores == (5, 0)
    assert deal.view(1, (10, 15)).scores == (15, 15)


def test_twenty_five_ends_mid_deal_as_soon_as_a_side_reaches_the_target() -> None:
    deal = start("twenty_five", QUICK, "8S", scores=(20, 20))
    deal = play_cards(deal, "2D 5S 2H 2C")
    assert deal.is_over and deal.phase is Phase.OVER
    assert deal.to_act is None and deal.legal_actions() == []
    assert len(deal.tricks) == 1 and deal.points == (5, 0)
    result = RULES["twenty_five"].match_result(deal.config, deal, (25, 20))
    assert result is not None
    assert (result.status, result.winners, result.scores, result.reason) == ("finished", (0,), (25, 20),
                                                                             "target reached")
    with pytest.raises(RuleError) as caught:
        deal.check(action(f"play {deal.hands[2][0].code}"))
    assert caught.value.code is ErrorCode.GAME_OVER


def test_twenty_five_played_out_deal_without_target_continues() -> None:
    deal = start("twenty_five", QUICK, "8S")
    deal = play_cards(deal, "2D 5S 2H 2C JS 3H 3C 3D AH 4H 4C 4D KS 6H 6C 6D QS 7H 7C 7D")
    assert deal.is_over and deal.points == (25, 0)
    assert RULES["twenty_five"].match_result(deal.config, deal, (25, 0)) is not None
    deal = start("twenty_five", QUICK, "8S", target=30)
    deal = play_cards(deal, "2D 5S 2H 2C JS 3H 3C 3D AH 4H 4C 4D KS 6H 6C 6D QS 7H 7C 7D")
    assert deal.is_over and RULES["twenty_five"].match_result(deal.config, deal, (25, 0)) is None


def test_target_option_ends_a_whole_twenty_five_match_mid_deal() -> None:
    deck = deck_for(QUICK, "8S", dealer=0)
    match = new_match("twenty_five", {"target": 10, "first_dealer": 0}, decks=RecordedDecks([deck]))
    for code in ["2D", "5S", "2H", "2C", "JS", "3H", "3C"]:
        assert not match.is_over
        match = match.apply(action(f"play {code}"))
    match = match.apply(action("play 3D"))
    assert match.is_over and match.result is not None
    assert (match.result.winners, match.result.scores, match.result.reason) == ((0,), (10, 0), "target reached")
    record = match.to_record(seed=None)
    assert len(record["deals"]) == 1
    assert [t["winner"] for t in record["deals"][0]["tricks"]] == [2, 2]
    assert record["deals"][0]["points"] == [10, 0] and record["deals"][0]["scores"] == [10, 0]
    assert record["result"] == {"status": "finished", "winners": [0], "scores": [10, 0], "reason": "target reached"}
    assert "bonus" not in record["deals"][0]


# --- 1.7 Forty-Five ---------------------------------------------------------------------------------


def test_forty_five_bonus_to_the_side_of_the_highest_trump_played() -> None:
    deal = play_cards(start("forty_five", BONUS, "8S"), BONUS_PLAY)
    assert [t.winner for t in deal.tricks] == [2, 2, 1, 2, 2]
    assert deal.is_over and deal.points == (20, 10)
    assert deal.to_record((0, 0))["bonus"] == {"seat": 1, "card": "JS"}


def test_forty_five_no_bonus_when_no_trump_was_played() -> None:
    deal = start("forty_five", {1: "2D 3D 4D 6D 7D", 0: "2H 3H 4H 6H 7H"}, "8S", players=2)
    deal = play_cards(deal, "2D 2H 3D 3H 4D 4H 6D 6H 7D 7H")
    assert deal.is_over and deal.points == (0, 25)
    record = deal.to_record((0, 0))
    assert "bonus" in record and record["bonus"] is None


def test_forty_five_points_are_added_at_the_end_of_the_deal() -> None:
    deal = play_cards(start("forty_five", BONUS, "8S", scores=(5, 10)), BONUS_PLAY[:-3])
    assert len(deal.tricks) == 4 and deal.points == (0, 0)
    assert deal.view(0, (5, 10)).scores == (5, 10)
    assert deal.view(0, (5, 10)).deal_points == (0, 0)
    assert deal.to_record((5, 10))["bonus"] is None
    deal = play_cards(deal, "6D")
    assert deal.view(0, (5, 10)).scores == (25, 20)


def test_forty_five_deal_is_always_played_out_even_past_the_target() -> None:
    deal = play_cards(start("forty_five", BONUS, "8S", scores=(40, 40)), BONUS_PLAY[:-3])
    assert not deal.is_over and deal.to_act == 1


def test_counting_order_from_eldest_hands_side_clockwise_dealers_side_last() -> None:
    assert counting_order(config("forty_five"), 0) == [1, 0]
    assert counting_order(config("forty_five"), 1) == [0, 1]
    assert counting_order(config("forty_five", players=6, sides=3), 4) == [2, 0, 1]
    assert counting_order(config("forty_five", players=5), 2) == [3, 4, 0, 1, 2]


def test_counting_order_first_counted_side_past_the_target_wins_alone() -> None:
    # Both sides pass 45; eldest hand (seat 1) is on side 1, counted first, though side 0 has more.
    deal = play_cards(start("forty_five", BONUS, "8S", scores=(40, 40)), BONUS_PLAY)
    result = RULES["forty_five"].match_result(deal.config, deal, (60, 50))
    assert result is not None and result.winners == (1,) and result.reason == "target reached"
    # Only side 0 reached it: side 0 wins.
    result = RULES["forty_five"].match_result(deal.config, deal, (60, 40))
    assert result is not None and result.winners == (0,)
    assert RULES["forty_five"].match_result(deal.config, deal, (44, 40)) is None


def test_counting_order_with_players_alone() -> None:
    deal = play_cards(start("forty_five", BONUS, "8S", players=4, sides=4, dealer=0), BONUS_PLAY)
    # Dealer 0: counting 1, 2, 3, 0. Seats 0 and 3 reached 45: seat 3 comes first.
    result = RULES["forty_five"].match_result(deal.config, deal, (50, 0, 0, 45))
    assert result is not None and result.winners == (3,)


def test_target_option_in_forty_five() -> None:
    deal = play_cards(start("forty_five", BONUS, "8S", target=20), BONUS_PLAY)
    result = RULES["forty_five"].match_result(deal.config, deal, deal.points)
    assert result is not None and result.winners == (0,)


# --- 1.7 jink ----------------------------------------------------------------------------------------


def test_jink_round_from_eldest_clockwise_first_declaration_ends_it() -> None:
    deal = start("forty_five", SWEEP, "8S", jink=True)
    assert deal.phase is Phase.JINK and deal.to_act == 1
    assert legal(deal) == ["jink", "pass_jink"]
    with pytest.raises(RuleError) as caught:
        deal.apply(action("play 2D"))
    assert (caught.value.code, caught.value.message) == (ErrorCode.WRONG_PHASE,
                                                         "the jink round comes first: jink or pass_jink")
    deal = do(deal, "pass_jink")
    assert deal.to_act == 2
    deal = do(deal, "jink")
    assert deal.phase is Phase.PLAY and deal.to_act == 1 and deal.jinked_by == 2
    with pytest.raises(RuleError) as caught:
        deal.apply(PassJink())
    assert (caught.value.code, caught.value.message) == (ErrorCode.WRONG_PHASE, "the jink round is over")


def test_jink_round_all_pass_then_eldest_leads() -> None:
    deal = do(start("forty_five", SWEEP, "8S", jink=True), "pass_jink", "pass_jink", "pass_jink", "pass_jink")
    assert deal.phase is Phase.PLAY and deal.to_act == 1 and deal.jinked_by is None
    assert [deal.recorded_action(i) for i in range(4)] == [
        {"seat": s, "type": "pass_jink"} for s in (1, 2, 3, 0)
    ]


def test_jink_is_not_played_without_the_option() -> None:
    deal = start("forty_five", SWEEP, "8S")
    assert deal.phase is Phase.PLAY
    with pytest.raises(RuleError) as caught:
        deal.apply(Jink())
    assert (caught.value.code, caught.value.message) == (ErrorCode.WRONG_PHASE, "jink is not played at this table")


def test_jink_round_comes_after_the_dealers_rob_decision_and_before_a_holders_rob() -> None:
    deal = start("forty_five", SWEEP, "AS", jink=True)
    assert deal.phase is Phase.ROB and deal.to_act == 0
    deal = do(deal, "rob 2C")
    assert deal.phase is Phase.JINK and deal.to_act == 1
    holder = {1: "AS 3D 4D 6D 7D", 2: "2S 3S 4S 6S 7S"}
    deal = start("forty_five", holder, "8S", jink=True)
    assert deal.phase is Phase.JINK and not any(a.type == "rob" for a in deal.legal_actions())
    deal = do(deal, "pass_jink", "jink")
    assert "rob 3D" in legal(deal)


def test_jink_made_scores_double_sixty() -> None:
    deal = do(start("forty_five", SWEEP, "8S", jink=True), "pass_jink", "jink")
    deal = play_cards(deal, SWEEP_PLAY)
    assert deal.jink_made and deal.points == (60, 0)
    assert deal.to_record((0, 0))["bonus"] == {"seat": 0, "card": "JS"}
    assert RULES["forty_five"].match_result(deal.config, deal, (60, 0)) is not None


def test_jink_made_below_target_plays_on() -> None:
    deal = do(start("forty_five", SWEEP, "8S", jink=True, target=100), "pass_jink", "jink")
    deal = play_cards(deal, SWEEP_PLAY)
    assert RULES["forty_five"].match_result(deal.config, deal, (60, 0)) is None


def test_jink_failed_scores_as_usual_then_the_declaring_side_loses_at_once() -> None:
    deal = do(start("forty_five", BONUS, "8S", jink=True), "pass_jink", "jink")
    deal = play_cards(deal, BONUS_PLAY)
    assert not deal.jink_made and deal.points == (20, 10)
    result = RULES["forty_five"].match_result(deal.config, deal, (20, 10))
    assert result is not None
    assert (result.winners, result.scores, result.reason) == ((1,), (20, 10), "jink failed")


def test_jink_failed_other_sides_with_the_highest_total_share_the_win() -> None:
    hands = {1: "KS QS 2S 3S 4S", 2: "5S 2D 3D 4D 6D", 0: "2H 3H 4H 6H 7H"}
    deal = do(start("forty_five", hands, "8S", players=3, jink=True, scores=(10, 0, 0)), "jink")
    deal = play_cards(deal, "KS 2D 2H QS 3D 3H 2S 4D 4H 3S 5S 6H 6D 7H 4S")
    assert [t.winner for t in deal.tricks] == [1, 1, 1, 2, 1]
    assert deal.points == (0, 20, 10)
    result = RULES["forty_five"].match_result(deal.config, deal, (10, 20, 10))
    assert result is not None
    assert (result.winners, result.reason) == ((0, 2), "jink failed")


def test_jink_made_without_any_trump_played_scores_double_the_tricks() -> None:
    # Ruling: no trump played means no bonus (1.7), so a jink made scores 2 x 25 = 50.
    deal = do(start("forty_five", {1: "2D 3D 4D 6D 7D", 0: "2H 3H 4H 6H 7H"}, "8S", players=2, jink=True), "jink")
    deal = play_cards(deal, "2D 2H 3D 3H 4D 4H 6D 6H 7D 7H")
    assert deal.jink_made and deal.points == (0, 50)
    assert deal.to_record((0, 0))["bonus"] is None


def test_forty_five_view_shows_the_bonus_once_the_deal_is_over() -> None:
    deal = play_cards(start("forty_five", BONUS, "8S"), BONUS_PLAY[:-3])
    assert "bonus" not in deal.view(0, (0, 0)).extras
    deal = play_cards(deal, "6D")
    assert deal.view(0, (0, 0)).extras["bonus"] == {"seat": 1, "card": "JS"}


def test_twenty_five_six_players_three_sides_score_by_seat_mod_three() -> None:
    hands = {1: "2D 3D 4D 6D 7D", 2: "5S JS AH KS QS", 3: "2H 3H 4H 6H 7H", 4: "2C 3C 4C 6C 7C",
             5: "8H 9H TH JH QH", 0: "8C 9C TC JC QC"}
    deal = play_cards(start("twenty_five", hands, "8S", players=6, sides=3), "2D 5S 2H 2C 8H 8C")
    assert deal.tricks[0].winner == 2 and deal.points == (0, 0, 5)
    assert deal.view(5, (0, 0, 0)).sides == ((0, 3), (1, 4), (2, 5))


def test_match_refuses_every_action_once_the_game_is_over() -> None:
    deck = deck_for(QUICK, "8S", dealer=0)
    match = new_match("twenty_five", {"target": 5, "first_dealer": 0}, decks=RecordedDecks([deck]))
    for code in ["2D", "5S", "2H", "2C"]:
        match = match.apply(action(f"play {code}"))
    assert match.is_over and match.legal_actions() == [] and match.to_act is None
    with pytest.raises(RuleError) as caught:
        match.apply(action("play JS"))
    assert (caught.value.code, caught.value.message) == (ErrorCode.GAME_OVER, "the game is over")


def test_jink_failed_ends_the_game_whatever_the_totals_before_counting_order() -> None:
    # Ruling: a failed jink overrides the counting order. Dealer 0 counts sides 1, 2, 0; seat 1 jinked
    # and failed; side 2 (46) would be counted before side 0 (50), yet the highest other total wins.
    hands = {1: "KS QS 2S 3S 4S", 2: "5S 2D 3D 4D 6D", 0: "2H 3H 4H 6H 7H"}
    deal = do(start("forty_five", hands, "8S", players=3, jink=True), "jink")
    deal = play_cards(deal, "KS 2D 2H QS 3D 3H 2S 4D 4H 3S 5S 6H 6D 7H 4S")
    result = RULES["forty_five"].match_result(deal.config, deal, (50, 60, 46))
    assert result is not None and (result.winners, result.reason) == ((0,), "jink failed")
    # Nobody near the target: the game still ends at once.
    result = RULES["forty_five"].match_result(deal.config, deal, (0, 20, 10))
    assert result is not None and result.winners == (2,)


def test_failed_jink_ends_a_whole_forty_five_match_after_the_deal() -> None:
    deck = deck_for(BONUS, "8S", dealer=0)
    match = new_match("forty_five", {"jink": True, "first_dealer": 0}, decks=RecordedDecks([deck]))
    match = match.apply(action("pass_jink")).apply(action("jink"))
    for code in BONUS_PLAY.split():
        match = match.apply(action(f"play {code}"))
    assert match.result is not None
    assert (match.result.winners, match.result.scores, match.result.reason) == ((1,), (20, 10), "jink failed")
    deal = match.to_record(seed=None)["deals"][0]
    assert deal["points"] == [20, 10] and deal["bonus"] == {"seat": 1, "card": "JS"}
    assert deal["actions"][:2] == [{"seat": 1, "type": "pass_jink"}, {"seat": 2, "type": "jink"}]


def test_forty_five_match_deals_again_below_the_target_with_the_next_dealer() -> None:
    decks = [deck_for(BONUS, "8S", dealer=0), deck_for(BONUS, "8S", dealer=1)]
    match = new_match("forty_five", {"first_dealer": 0}, decks=RecordedDecks(decks))
    for code in BONUS_PLAY.split():
        match = match.apply(action(f"play {code}"))
    assert not match.is_over
    assert match.deal.number == 2 and match.deal.dealer == 1 and match.scores == (20, 10)
    assert match.view(0).scores == (20, 10)
