"""Cinq Cents scoring and the end of the game (docs/games.md 3.6), driven deal by deal and as whole matches."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from tests.rules.test_cinq_cents_helpers import bid, contracted, deck_for
from tricktable.rules.actions import Action, Discard, Pass
from tricktable.rules.cards import Card
from tricktable.rules.cinq_cents import CinqCentsConfig, CinqCentsDeal
from tricktable.rules.cinq_cents_bids import STANDARD_TABLE
from tricktable.rules.errors import ErrorCode, RuleError
from tricktable.rules.match import Match
from tricktable.rules.registry import new_match
from tricktable.rules.shuffle import RecordedDecks

Policy = Callable[[list[Action]], Action]


def first(actions: list[Action]) -> Action:
    return actions[0]


def last(actions: list[Action]) -> Action:
    return actions[-1]


def play_out(state: CinqCentsDeal, policy: Policy = first) -> CinqCentsDeal:
    while not state.is_over:
        state = state.apply(policy(state.legal_actions()))
    return state


# Hearts: seat 1 holds the seven top trumps and three low clubs; its partner seat 3 holds low spades
# and diamonds under seat 0's. Whatever anyone plays, the declarer's side takes exactly 7 tricks:
# each top trump wins its trick, each low club loses to seat 2 (a higher club or a trump), and seat 3
# can never hold the best card of a trick.
SEVEN = {
    1: "JKB JKF JH JD AH KH QH 4C 5C 6C",
    3: "4S 5S 6S 7S 4D 5D 6D 7D 8D 9D",
    0: "AS KS QS JS TS 9S 8S AD KD QD",
    2: "TH 9H 8H 7H 6H 5H 4H AC KC QC",
}
SEVEN_KITTY = "JC TC 9C 8C 7C TD"
# Seat `s` holds every top trump of spades: ten tricks whatever anyone plays.
TEN_SPADES = "JKB JKF JS JC AS KS QS TS 9S 8S"


@pytest.mark.parametrize("policy", [first, last])
def test_contract_made_scores_the_bid_value_and_opponents_10_a_trick(policy: Policy) -> None:
    state = play_out(contracted(SEVEN, SEVEN_KITTY, "7 H"), policy)
    assert state.tricks_won() == (3, 7)
    assert state.points == (30, 200)
    assert state.to_record([0, 0])["points"] == [30, 200]


@pytest.mark.parametrize(("contract", "points"), [("8 H", (30, -300)), ("10 H", (30, -500))])
@pytest.mark.parametrize("policy", [first, last])
def test_contract_failed_loses_the_bid_value_and_opponents_still_score_10_a_trick(
        contract: str, points: tuple[int, int], policy: Policy) -> None:
    state = play_out(contracted(SEVEN, SEVEN_KITTY, contract), policy)
    assert state.tricks_won() == (3, 7)
    assert state.points == points


def test_all_ten_tricks_score_the_bid_value_only_no_bonus() -> None:
    state = play_out(contracted({1: TEN_SPADES}, "", "6 S"))
    assert state.tricks_won() == (0, 10)
    assert state.points == (0, 40)


def test_points_are_scored_at_the_end_of_the_deal_only() -> None:
    state = contracted(SEVEN, SEVEN_KITTY, "7 H")
    while len(state.tricks) < 9:
        state = state.apply(state.legal_actions()[0])
        assert state.points == (0, 0)
    assert play_out(state).points == (30, 200)


def test_bid_values_option_replaces_contract_values() -> None:
    values: dict[str, Any] = STANDARD_TABLE.to_json()
    values["7"]["H"] = 777
    values["8"]["H"] = 888
    config = CinqCentsConfig.from_options({"bid_values": values})
    assert play_out(contracted(SEVEN, SEVEN_KITTY, "7 H", config=config)).points == (30, 777)
    assert play_out(contracted(SEVEN, SEVEN_KITTY, "8 H", config=config)).points == (30, -888)


def test_bid_values_option_does_not_change_which_bid_is_higher() -> None:
    # A table where spades are worth the most and no-trump the least, and 6 tricks more than 10.
    values = {str(t): {d: 1000 - 100 * (t - 6) - 10 * i for i, d in enumerate(["S", "C", "D", "H", "NT"])}
              for t in range(6, 11)}
    config = CinqCentsConfig.from_options({"bid_values": values})
    state = CinqCentsDeal.start(config, number=1, dealer=0, deck=deck_for()).apply(bid("7 S"))
    assert state.legal_actions()[0] == bid("7 C")
    for lower in ("6 NT", "6 S", "7 S"):
        with pytest.raises(RuleError) as info:
            state.apply(bid(lower))
        assert info.value.code is ErrorCode.BID_TOO_LOW
    assert state.apply(bid("7 NT")).highest_bid == bid("7 NT")


# --- whole matches -------------------------------------------------------


def drive(match: Match, bids: Mapping[int, str], deals: int = 1) -> Match:
    """Play ``deals`` deals: seats in ``bids`` bid, others pass, the kitty goes back, all play first legal."""
    start = len(match.finished)
    while not match.is_over and len(match.finished) < start + deals:
        deal = match.deal
        assert isinstance(deal, CinqCentsDeal)
        seat = match.to_act
        assert seat is not None
        action: Action
        if deal.phase.value == "bidding":
            action = bid(bids[seat]) if seat in bids else Pass()
        elif deal.phase.value == "discard":
            action = Discard(cards=deal.kitty)
        else:
            action = match.legal_actions()[0]
        match = match.apply(action)
    return match


def start(decks: Sequence[Sequence[Card]], **options: Any) -> Match:
    return new_match("cinq_cents", {"first_dealer": 0, **options}, decks=RecordedDecks(decks))


def test_negative_scores_are_kept_with_no_floor() -> None:
    decks = [deck_for(SEVEN, SEVEN_KITTY, dealer=0), deck_for(SEVEN, SEVEN_KITTY, dealer=1), deck_for()]
    match = drive(start(decks), {1: "10 H"}, deals=2)
    assert match.scores == (60, -1000)
    assert not match.is_over
    record = match.to_record()
    assert [d["scores"] for d in record["deals"][:2]] == [[30, -500], [60, -1000]]


def test_all_pass_redeals_with_the_same_dealer_and_marks_the_redeal() -> None:
    match = start([deck_for(dealer=2), deck_for(SEVEN, SEVEN_KITTY, dealer=2), deck_for()], first_dealer=2)
    match = drive(match, {}, deals=1)
    assert match.deal.dealer == 2 and match.deal.number == 2
    assert match.scores == (0, 0)
    match = drive(match, {1: "7 H"}, deals=1)
    record = match.to_record()
    first_deal, second = record["deals"][:2]
    assert first_deal["trump"] is None and first_deal["contract"] is None and first_deal["tricks"] == []
    assert first_deal["points"] == [0, 0] and "redeal" not in first_deal
    assert second["dealer"] == 2 and second["redeal"] is True
    assert second["points"] == [30, 200]
    assert record["deals"][2]["dealer"] == 3 and "redeal" not in record["deals"][2]


def test_deal_passes_to_the_left_after_a_played_deal() -> None:
    match = drive(start([deck_for(SEVEN, SEVEN_KITTY, dealer=0), deck_for(dealer=1)]), {1: "7 H"})
    assert match.deal.dealer == 1 and match.deal.to_act == 2


def test_side_reaching_the_target_wins_after_the_deal() -> None:
    match = drive(start([deck_for(SEVEN, SEVEN_KITTY, dealer=0)], target=200), {1: "7 H"})
    assert match.is_over and match.result is not None
    assert match.result.winners == (1,) and match.result.scores == (30, 200)
    assert match.result.reason == "target reached"
    with pytest.raises(RuleError) as info:
        match.apply(Pass())
    assert info.value.code is ErrorCode.GAME_OVER


def test_target_1000_reached_over_several_deals() -> None:
    # Seat 1 takes all ten in spades twice: 10 S is worth 440, three times 1320; the game ends at the third.
    decks = [deck_for({1: TEN_SPADES}, dealer=d) for d in (0, 1, 2, 3)]
    match = drive(start(decks), {1: "10 S"}, deals=3)
    assert match.is_over and match.result is not None
    assert match.result.winners == (1,) and match.result.scores == (0, 1320)
    assert len(match.finished) == 3


def _tie_values(six_spades: int) -> dict[str, Any]:
    values: dict[str, Any] = STANDARD_TABLE.to_json()
    values["6"]["S"] = six_spades
    values["7"]["H"] = 1000
    return values


@pytest.mark.parametrize(("six_spades", "scores"), [(970, (1000, 1000)), (990, (1020, 1000))])
def test_both_sides_reaching_the_target_in_one_deal_the_declarers_side_wins(
        six_spades: int, scores: tuple[int, int]) -> None:
    # Deal 1 (dealer 1): seat 2 takes all ten at 6 S for side 0. Deal 2 (dealer 2): seat 1 makes 7 H
    # worth 1000 while side 0 takes 3 tricks, so both sides reach 1000 (side 0 even ahead): side 1 wins.
    decks = [deck_for({2: TEN_SPADES}, dealer=1), deck_for(SEVEN, SEVEN_KITTY, dealer=2)]
    match = start(decks, first_dealer=1, bid_values=_tie_values(six_spades))
    match = drive(match, {2: "6 S"})
    assert match.scores == (six_spades, 0) and not match.is_over
    match = drive(match, {1: "7 H"})
    assert match.result is not None
    assert match.result.scores == scores
    assert match.result.winners == (1,)


def test_defending_side_reaching_the_target_with_trick_points_wins() -> None:
    match = drive(start([deck_for(SEVEN, SEVEN_KITTY, dealer=0)], target=30), {1: "8 H"})
    assert match.result is not None
    assert match.result.scores == (30, -300) and match.result.winners == (0,)
    view = match.view(2)
    assert view.result == match.result and view.legal_actions == () and view.to_act is None
