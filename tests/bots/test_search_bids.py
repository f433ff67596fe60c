"""Cinq Cents bidding by simulation (bots/search_bids.py): hand-made views, sampled worlds, pinned choices."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from tricktable.bots.fast_worlds import WorldStream
from tricktable.bots.heuristic import HeuristicBot
from tricktable.bots.heuristic.cinq_cents import discard_for
from tricktable.bots.playout import greedy_playout
from tricktable.bots.search import SearchBot
from tricktable.bots.search_bids import (
    WorldBids,
    candidate_bids,
    candidate_denominations,
    cards_of,
    choose_bid,
    contract_points,
    finish_auction,
)
from tricktable.client_sdk.bot import AnnotatedAction, action_of
from tricktable.protocol.convert import action_id
from tricktable.rules.actions import Action, Bid, Denomination, Discard, Pass
from tricktable.rules.cards import cards
from tricktable.rules.cinq_cents import CinqCentsDeal
from tricktable.rules.cinq_cents_bids import STANDARD_TABLE
from tricktable.rules.fast import FastState
from tricktable.rules.fast.cinq_cents import CinqCentsFast
from tricktable.rules.fast.codec import encode, from_match
from tricktable.rules.game import SeatView
from tricktable.rules.match import Match
from tricktable.rules.registry import new_match

SIDES_4 = ((0, 2), (1, 3))


def _first_bidder(hand: str) -> SeatView:
    """Seat 0 as eldest hand (dealer 3), nobody has spoken: every bid is legal."""
    legal: list[Action] = [Bid(tricks=t, denomination=d) for t in range(6, 11) for d in Denomination]
    base: dict[str, Any] = dict(
        game="cinq_cents", options={}, seat=0, players=4, sides=SIDES_4, deal_number=1, dealer=3,
        hand=cards(hand), to_act=0, legal_actions=(*legal, Pass()), scores=(0, 0), deal_points=(0, 0),
    )
    return SeatView(**base)


def _first_legal_playout(state: FastState, rng: random.Random, sides: Sequence[int]) -> None:
    """A deterministic playout: the first legal card, to the end of the deal (the readable engine can do the same)."""
    start = state.deal_index
    while not state.over and state.deal_index == start:
        state.apply(state.legal_actions()[0])


def test_a_hand_of_top_trumps_bids_ten_in_its_suit() -> None:
    view = _first_bidder("JKB JKF JH JD AH KH QH TH AS AC")
    assert action_of(SearchBot(1, simulations=2, bid_worlds=12).choose_action(view)) == Bid(
        tricks=10, denomination=Denomination.HEARTS)


def test_a_hand_without_tricks_passes() -> None:
    view = _first_bidder("4S 5C 6D 7H 8S 9C 4D 5H 6S 7C")
    assert action_of(SearchBot(1, simulations=2, bid_worlds=12).choose_action(view)) == Pass()


def test_only_denominations_near_the_hands_best_count_are_simulated() -> None:
    hearts = candidate_denominations(cards("JKB JKF JH JD AH KH QH TH AS AC"))
    assert Denomination.HEARTS in hearts and Denomination.SPADES not in hearts
    assert len(candidate_denominations(cards("4S 5C 6D 7H 8S 9C 4D 5H 6S 7C"))) >= 2


def test_too_few_worlds_leave_the_bid_to_the_caller() -> None:
    view = _first_bidder("JKB JKF JH JD AH KH QH TH AS AC")
    worlds = WorldStream(view, random.Random(0), 3)
    assert choose_bid(view, worlds, greedy_playout, min_worlds=4) is None and worlds.drawn == 3
    worlds = WorldStream(view, random.Random(0), 3)
    assert choose_bid(view, worlds, greedy_playout, min_worlds=3) is not None and worlds.drawn == 3


def test_a_searched_bid_is_noted_with_its_worlds_and_every_candidates_mean_worth() -> None:
    view = _first_bidder("JKB JKF JH JD AH KH QH TH AS AC")
    choice = SearchBot(1, simulations=2, bid_worlds=12).choose_action(view)
    assert isinstance(choice, AnnotatedAction)
    assert choice.annotation.note == "bid search: 12 worlds"
    assert set(choice.annotation.values) == {action_id(a) for a in candidate_bids(view)}
    best = max(choice.annotation.values.values())
    assert choice.annotation.values[action_id(choice.action)] == best, "ten in hearts is also the best mean here"


def test_a_bid_left_to_the_heuristic_for_want_of_worlds_says_so() -> None:
    view = _first_bidder("JKB JKF JH JD AH KH QH TH AS AC")
    bot = SearchBot(1, budget=0.0)  # time mode with no time: one world, below MIN_BID_WORLDS
    choice = bot.choose_action(view)
    assert isinstance(choice, AnnotatedAction)
    assert choice.action == HeuristicBot().choose_action(view)
    assert choice.annotation.note == "bid search: 1 worlds, too few: the heuristic's choice"
    assert not choice.annotation.values


def test_a_contract_scores_its_value_made_or_failed_and_ten_a_trick_to_the_defence() -> None:
    seven_hearts = (7, Denomination.HEARTS)
    assert contract_points(8, seven_hearts, STANDARD_TABLE) == (200, 20)
    assert contract_points(6, seven_hearts, STANDARD_TABLE) == (-200, 40)


def _readable_deal(match: Match, first: Action) -> tuple[CinqCentsDeal, tuple[int, ...]]:
    """The readable engine's deal when the seat to act takes ``first``, the heuristic bot bids and discards at
    every seat and each card played is the first legal one: the state after the discard (the declarer's, or
    the auction's end) and the deal's points."""
    from tricktable.bots.heuristic import HeuristicBot

    played = match.apply(first, match.to_act)
    after_discard = None
    while played.to_act is not None and not played.finished:
        deal = played.deal
        assert isinstance(deal, CinqCentsDeal)
        if deal.contract is None or any(isinstance(a, Discard) for a in deal.legal_actions()):
            played = played.apply(HeuristicBot().choose_action(played.view(played.to_act)), played.to_act)
            continue
        after_discard = after_discard or deal
        played = played.apply(deal.legal_actions()[0], played.to_act)
    final = played.finished[0][0] if played.finished else played.deal
    assert isinstance(final, CinqCentsDeal)
    return after_discard or final, final.points


CANDIDATES: tuple[Action, ...] = (Pass(), Bid(tricks=6, denomination=Denomination.HEARTS),
                                  Bid(tricks=7, denomination=Denomination.NO_TRUMP),
                                  Bid(tricks=8, denomination=Denomination.SPADES))


@pytest.mark.parametrize("seed", [f"agree-{i}" for i in range(8)])
def test_the_fast_auction_reaches_the_readable_engines_contract_discard_and_points(seed: str) -> None:
    match = new_match("cinq_cents", {}, seed=seed)
    bids = _world_bids(match)
    seat = bids.view.seat
    mine = bids.view.side_of(seat)
    for action in CANDIDATES:
        readable, points = _readable_deal(match, action)
        fast = bids.world.clone()
        fast.apply(encode("cinq_cents", action))
        finish_auction(fast, bids.counts, list(bids.standing) + _standing(seat, action), bids.sides)
        if readable.contract is None:
            assert fast.contract is None and fast.deal_index == 1, (seed, action)
        else:
            contract = readable.contract
            assert fast.contract == (contract.seat, contract.tricks, contract.denomination.order), (seed, action)
            fast.apply(encode("cinq_cents", Discard(cards=discard_for(cards_of(fast.hands[contract.seat]),
                                                                      contract.denomination.suit))))
            assert [cards_of(h) for h in fast.hands] == [sorted(h) for h in readable.hands], (seed, action)
        assert bids.worth(action) == points[mine] - points[1 - mine], (seed, action)


def _world_bids(match: Match) -> WorldBids:
    """The seat to act's bids priced in the match's own deal (the true world), played out by the first legal card."""
    seat = match.to_act
    assert seat is not None
    world = from_match(match, random.Random(0))
    assert isinstance(world, CinqCentsFast)
    return WorldBids(world, match.view(seat), _first_legal_playout, random.Random(0), STANDARD_TABLE)


def _standing(seat: int, action: Action) -> list[tuple[int, tuple[int, Denomination]]]:
    return [(seat, (action.tricks, action.denomination))] if isinstance(action, Bid) else []


def test_the_dealer_passing_after_three_passes_voids_the_deal_and_is_worth_nothing() -> None:
    match = new_match("cinq_cents", {}, seed="last-word")
    for _ in range(3):
        match = match.apply(Pass(), match.to_act)
    here = _world_bids(match)
    assert here.worth(Pass()) == 0.0
    assert action_of(SearchBot(1, simulations=4).choose_action(here.view)) in here.view.legal_actions


def test_search_bids_are_reproducible_in_simulation_mode() -> None:
    match = new_match("cinq_cents", {}, seed="bids-again")
    assert match.to_act is not None
    view = match.view(match.to_act)
    bot = SearchBot(5, simulations=2, bid_worlds=6)
    first = action_of(bot.choose_action(view))
    assert first in view.legal_actions
    assert bot.last_worlds == 6, "the bid decision reports the worlds it drew"
    assert action_of(SearchBot(5, simulations=2, bid_worlds=6).choose_action(view)) == first
