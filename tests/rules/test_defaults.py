"""The default action (rules/defaults.py): what a careful absent player does, per game and phase."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tricktable.rules.actions import Beg, Bid, Discard, Gift, Pass, PassJink, PassRob, Play, Stand
from tricktable.rules.defaults import default_action, lowness
from tricktable.rules.game import SeatView
from tricktable.rules.match import Match
from tricktable.rules.registry import new_match


def view_to_act(match: Match) -> SeatView:
    seat = match.to_act
    assert seat is not None
    return match.view(seat)


def first_state(game: str, options: dict[str, Any], wanted: type, seeds: int = 300, steps: int = 80) -> Match:
    """A state of ``game`` whose legal actions include a ``wanted`` action, reached by first legal actions."""
    for s in range(seeds):
        match = new_match(game, dict(options), seed=f"defaults-{s}")
        for _ in range(steps):
            legal = match.legal_actions()
            if any(isinstance(a, wanted) for a in legal):
                return match
            if not legal:
                break
            match = match.apply(legal[0])
    raise AssertionError(f"no {wanted.__name__} decision found")


def test_cinq_cents_default_passes_in_the_auction_instead_of_bidding() -> None:
    match = new_match("cinq_cents", {}, seed="auction")
    assert isinstance(match.legal_actions()[0], Bid)  # the old default: the lowest legal action, a bid
    assert default_action(view_to_act(match)) == Pass()


def test_cinq_cents_default_discard_keeps_trumps_and_drops_the_six_lowest_cards() -> None:
    match = new_match("cinq_cents", {}, seed="discard")
    match = match.apply(match.legal_actions()[0])  # the lowest bid, then everyone passes
    while not any(isinstance(a, Discard) for a in match.legal_actions()):
        match = match.apply(Pass())
    view = view_to_act(match)
    action = default_action(view)
    assert isinstance(action, Discard) and len(action.cards) == 6
    match.check(action)  # legal
    kept = [c for c in view.hand if c not in action.cards]
    assert max(lowness(view, c) for c in action.cards) < min(lowness(view, c) for c in kept)
    assert all(lowness(view, c)[0] == 0 for c in action.cards) or all(lowness(view, c)[0] == 1 for c in kept)


def test_spoil_five_dealer_declines_to_rob_by_default() -> None:
    match = first_state("twenty_five", {}, PassRob)
    assert default_action(view_to_act(match)) == PassRob()


def test_forty_five_default_declines_a_jink() -> None:
    match = first_state("forty_five", {"jink": True}, PassJink, steps=200)
    assert default_action(view_to_act(match)) == PassJink()


def test_all_fives_eldest_stands_and_the_dealer_gives_the_gift() -> None:
    match = first_state("all_fives", {}, Stand)
    assert default_action(view_to_act(match)) == Stand()
    begged = match.apply(Beg())
    if any(isinstance(a, Gift) for a in begged.legal_actions()):
        assert default_action(view_to_act(begged)) == Gift()


@pytest.mark.parametrize("game", ["twenty_five", "forty_five", "all_fives", "cinq_cents"])
def test_default_play_is_the_lowest_legal_card_and_always_legal(game: str) -> None:
    rng = random.Random(game)
    checked = 0
    for s in range(6):
        match = new_match(game, {}, seed=f"plays-{s}")
        for _ in range(120):
            legal = match.legal_actions()
            if not legal:
                break
            view = view_to_act(match)
            action = default_action(view)
            match.check(action)  # every default is legal
            plays = [a for a in legal if isinstance(a, Play)]
            if plays and isinstance(action, Play):
                assert lowness(view, action.card) == min(lowness(view, a.card) for a in plays)
                if any(lowness(view, a.card)[0] == 0 for a in plays):
                    assert lowness(view, action.card)[0] == 0  # a trump is kept while a plain card may go
                checked += 1
            match = match.apply(rng.choice(legal))
    assert checked > 20
