"""Every game's bot tuning names things the bots have: a heuristic module and a playout policy."""

from __future__ import annotations

import pytest

from tricktable.bots import heuristic
from tricktable.bots.fast_worlds import win_bonus
from tricktable.bots.search import POLICIES, SearchBot
from tricktable.rules.registry import game_definition, games, new_match


@pytest.mark.parametrize("game", games())
def test_every_game_names_a_heuristic_and_a_playout_the_bots_have(game: str) -> None:
    tuning = game_definition(game).bots
    assert callable(heuristic.strategy(game))
    assert tuning.playout in POLICIES
    assert win_bonus(game) == tuning.win_bonus > 0


@pytest.mark.parametrize("game", games())
def test_the_heuristic_of_each_game_plays_its_first_decision(game: str) -> None:
    match = new_match(game, seed=f"tuning-{game}")
    seat = match.to_act
    assert seat is not None
    view = match.view(seat)
    assert heuristic.choose_action(view) in view.legal_actions


def test_a_playout_policy_the_bots_do_not_have_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown playout policy 'deep'"):
        SearchBot(playout="deep")
