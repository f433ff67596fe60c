"""Cinq Cents bidding by simulation (bots/search_bids.py): hand-made views, sampled worlds, pinned choices."""

from __future__ import annotations

import random
from typing import Any

from bots.search import SearchBot
from bots.search_bids import WorldBids, candidate_denominations, choose_bid, contract_points
from rules.actions import Action, Bid, Denomination, Pass
from rules.cards import cards
from rules.cinq_cents import CinqCentsDeal
from rules.cinq_cents_bids import STANDARD_TABLE
from rules.game import DealState, SeatView
from rules.registry import new_match

SIDES_4 = ((0, 2), (1, 3))


def _first_bidder(hand: str) -> SeatView:
    """Seat 0 as eldest hand (dealer 3), nobody has spoken: every bid is legal."""
    legal: list[Action] = [Bid(tricks=t, denomination=d) for t in range(6, 11) for d in Denomination]
    base: dict[str, Any] = dict(
        game="cinq_cents", options={}, seat=0, players=4, sides=SIDES_4, deal_number=1, dealer=3,
        hand=cards(hand), to_act=0, legal_actions=(*legal, Pass()), scores=(0, 0), deal_points=(0, 0),
    )
    return SeatView(**base)


def _heuristic_finish(state: DealState) -> DealState:
    from bots.search import Playout, heuristic_finish

    return heuristic_finish(Playout(state, (0, 0)))


def test_a_hand_of_top_trumps_bids_ten_in_its_suit() -> None:
    view = _first_bidder("JKB JKF JH JD AH KH QH TH AS AC")
    assert SearchBot(1, simulations=2, bid_worlds=12).choose_action(view) == Bid(tricks=10,
                                                                                 denomination=Denomination.HEARTS)


def test_a_hand_without_tricks_passes() -> None:
    view = _first_bidder("4S 5C 6D 7H 8S 9C 4D 5H 6S 7C")
    assert SearchBot(1, simulations=2, bid_worlds=12).choose_action(view) == Pass()


def test_only_denominations_near_the_hands_best_count_are_simulated() -> None:
    hearts = candidate_denominations(cards("JKB JKF JH JD AH KH QH TH AS AC"))
    assert Denomination.HEARTS in hearts and Denomination.SPADES not in hearts
    assert len(candidate_denominations(cards("4S 5C 6D 7H 8S 9C 4D 5H 6S 7C"))) >= 2


def test_too_few_worlds_leave_the_bid_to_the_caller() -> None:
    view = _first_bidder("JKB JKF JH JD AH KH QH TH AS AC")
    assert choose_bid(view, random.Random(0), 3, _heuristic_finish, min_worlds=4) == (None, 3)
    choice, worlds = choose_bid(view, random.Random(0), 3, _heuristic_finish, min_worlds=3)
    assert choice is not None and worlds == 3


def test_a_contract_scores_its_value_made_or_failed_and_ten_a_trick_to_the_defence() -> None:
    seven_hearts = (7, Denomination.HEARTS)
    assert contract_points(8, seven_hearts, STANDARD_TABLE) == (200, 20)
    assert contract_points(6, seven_hearts, STANDARD_TABLE) == (-200, 40)


def _played_out(match: Any, first: Action) -> tuple[int, ...]:
    """The deal's points when the seat to act takes ``first`` and the heuristic bot does everything else."""
    from bots.heuristic import HeuristicBot

    played = match.apply(first, match.to_act)
    while played.to_act is not None and not played.finished:
        played = played.apply(HeuristicBot().choose_action(played.view(played.to_act)), played.to_act)
    return played.finished[0][0].points if played.finished else played.deal.points  # type: ignore[no-any-return]


def test_an_action_is_worth_the_deal_the_heuristic_players_then_play() -> None:
    for seed in ("worth-1", "worth-2", "worth-3"):
        match = new_match("cinq_cents", {}, seed=seed)
        seat = match.to_act
        assert seat is not None and isinstance(match.deal, CinqCentsDeal)
        view = match.view(seat)
        world = WorldBids(match.deal, view, _heuristic_finish, STANDARD_TABLE)
        mine = view.side_of(seat)
        for action in (Pass(), Bid(tricks=6, denomination=Denomination.HEARTS),
                       Bid(tricks=8, denomination=Denomination.SPADES)):
            points = _played_out(match, action)
            assert world.worth(action) == points[mine] - points[1 - mine], (seed, action)


def test_search_bids_are_reproducible_in_simulation_mode() -> None:
    match = new_match("cinq_cents", {}, seed="bids-again")
    assert match.to_act is not None
    view = match.view(match.to_act)
    bot = SearchBot(5, simulations=2, bid_worlds=6)
    first = bot.choose_action(view)
    assert first in view.legal_actions
    assert bot.last_worlds == 6, "the bid decision reports the worlds it drew"
    assert SearchBot(5, simulations=2, bid_worlds=6).choose_action(view) == first
