"""The default action (rules/defaults.py): what a careful absent player does, per game and phase."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tricktable.rules.actions import Beg, Bid, Denomination, Discard, Gift, Pass, PassJink, PassRob, Play, Rob, Stand
from tricktable.rules.cards import ALL_CARDS, LA_BLANCHE, LE_FOU
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


def test_spoil_five_default_takes_a_rob_burying_the_lowest_card_it_may() -> None:
    """Robbing takes a trump for the weakest card: it never weakens a hand, so the careful player robs."""
    for wanted in (PassRob, Rob):  # the dealer's decision on a turned-up ace; a rob beside the plays
        match = first_state("twenty_five", {}, wanted, seeds=600)
        view = view_to_act(match)
        robs = [a for a in view.legal_actions if isinstance(a, Rob)]
        action = default_action(view)
        assert isinstance(action, Rob) and robs, view.legal_actions
        assert lowness(view, action.card) == min(lowness(view, a.card) for a in robs)
        match.check(action)


def test_cinq_cents_default_at_no_trump_gives_up_le_fou_before_la_blanche() -> None:
    """At no-trump La Blanche beats Le Fou (rules.md 3.4): the lower joker is Le Fou, whatever the card index."""
    match = new_match("cinq_cents", {}, seed="no-trump")
    match = match.apply(Bid(tricks=7, denomination=Denomination("NT")))
    while not any(isinstance(a, Discard) for a in match.legal_actions()):
        match = match.apply(Pass())
    match = match.apply(default_action(view_to_act(match)))
    view = view_to_act(match)
    assert view.trump is None
    assert lowness(view, LE_FOU) < lowness(view, LA_BLANCHE)
    assert max(lowness(view, c) for c in ALL_CARDS if not c.is_joker) < lowness(view, LE_FOU)


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
