"""Bots only ever choose legal actions, in every game (property test over random games)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.bots.support import GAMES
from tricktable.bots import BOTS, make_bot
from tricktable.bots.heuristic import HeuristicBot
from tricktable.bots.ladder import Chooser
from tricktable.bots.pimc import PimcBot
from tricktable.bots.random_bot import RandomBot
from tricktable.bots.search import SearchBot
from tricktable.client_sdk.bot import action_of
from tricktable.rules.registry import new_match


@settings(max_examples=12)
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 10**6))
def test_heuristic_pimc_and_search_choose_only_legal_actions(game: str, seed: int) -> None:
    rng = random.Random(seed)
    match = new_match(game, {}, seed=f"legal-{seed}")
    choices: list[Chooser] = [HeuristicBot(), RandomBot(seed), SearchBot(seed, simulations=2),
                              PimcBot(seed, simulations=2)]
    bots = [rng.choice(choices)
            for _ in range(match.config.players)]
    bots[rng.randrange(len(bots))] = SearchBot(seed + 1, simulations=2, playout="random")
    for _ in range(60 if game != "cinq_cents" else 50):
        if match.is_over:
            break
        seat = match.to_act
        assert seat is not None
        view = match.view(seat)
        action = action_of(bots[seat].choose_action(view))
        assert action in view.legal_actions, (game, seat, action)
        match = match.apply(action, seat)


@pytest.mark.parametrize("game", GAMES)
def test_heuristic_plays_whole_matches_legally(game: str) -> None:
    bot = HeuristicBot()
    for i in range(2 if game != "all_fives" else 1):
        match = new_match(game, {}, seed=f"whole-{game}-{i}")
        while not match.is_over:
            seat = match.to_act
            assert seat is not None
            view = match.view(seat)
            action = bot.choose_action(view)
            assert action in view.legal_actions
            match = match.apply(action, seat)
        assert match.result is not None and match.result.status == "finished"


def test_bots_are_registered_for_the_sdk() -> None:
    assert {"heuristic", "search"} <= set(BOTS)
    assert isinstance(make_bot("heuristic"), HeuristicBot)
    assert isinstance(make_bot("search", 3), SearchBot)
