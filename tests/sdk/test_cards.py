"""The ranking helper agrees with the rules engine: the strongest card of every trick is its winner."""

from __future__ import annotations

import random

import pytest

from tricktable.client_sdk.cards import is_trump, strength, winning, would_win
from tricktable.rules.actions import Bid, Play
from tricktable.rules.match import Match
from tricktable.rules.registry import new_match

GAMES = [("twenty_five", {}), ("forty_five", {"players": 5}), ("all_fives", {"players": 3}),
         ("cinq_cents", {"target": 200})]


def _play_some(game: str, options: dict[str, object], seed: str, actions: int = 400) -> list[Match]:
    """States along a random game (Cinq Cents bids kept modest so contracts are played)."""
    rng = random.Random(seed)
    match = new_match(game, options, seed=seed)
    states = []
    for _ in range(actions):
        if match.is_over:
            break
        legal = match.legal_actions()
        bids = [a for a in legal if isinstance(a, Bid)]
        choice = rng.choice(bids[:3] if bids and rng.random() < 0.5 else legal)
        match = match.apply(choice)
        states.append(match)
    return states


@pytest.mark.parametrize(("game", "options"), GAMES)
def test_the_strongest_card_of_every_trick_is_its_winner(game: str, options: dict[str, object]) -> None:
    checked = 0
    for n in range(4):
        for match in _play_some(game, options, f"cards{n}"):
            seat = match.to_act
            if seat is None:
                continue
            view = match.view(seat)
            for trick in view.tricks:
                seats = trick.seats(view.players)
                best = max(range(len(trick.cards)), key=lambda i: strength(view, trick.cards[i], trick))
                assert seats[best] == trick.winner, (game, trick)
                checked += 1
    assert checked > 20


@pytest.mark.parametrize(("game", "options"), GAMES)
def test_would_win_and_winning_agree_with_the_trick_as_played(game: str, options: dict[str, object]) -> None:
    for match in _play_some(game, options, "cards-next"):
        seat = match.to_act
        if seat is None or not match.legal_actions() or not isinstance(match.legal_actions()[0], Play):
            continue
        view = match.view(seat)
        trick = view.current_trick
        if trick is None or not trick.cards:
            assert winning(view) is None and all(would_win(view, a.card) for a in view.legal_actions
                                                 if isinstance(a, Play))
            continue
        leader_seat, leader_card = winning(view) or (None, None)
        assert leader_card in trick.cards and leader_seat in trick.seats(view.players)
        for action in view.legal_actions:
            if not isinstance(action, Play):
                continue  # a rob comes before the play of the same turn
            after = match.apply(action).view(seat)
            if len(trick.cards) == view.players - 1 and after.deal_number == view.deal_number and after.tricks:
                assert (after.tricks[-1].winner == seat) == would_win(view, action.card)


def test_trumps_follow_each_games_rules() -> None:
    from tricktable.rules.cards import card

    match = new_match("twenty_five", {}, seed="t")
    view = match.view(0)
    assert view.trump is not None
    assert is_trump(view, card("AH"))  # the A of hearts is always a trump in the Spoil Five family
    assert is_trump(view, card(f"5{view.trump.value}"))


def test_strength_before_trump_is_known_says_so() -> None:
    match = new_match("cinq_cents", {}, seed="bidding")
    seat = match.to_act
    assert seat is not None
    view = match.view(seat)
    with pytest.raises(ValueError, match="no trump yet"):
        strength(view, view.hand[0])
