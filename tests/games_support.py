"""Shared helpers for the record, verify, property and golden tests: layouts of every game, random matches.

Everything is generic over the registered games (:func:`tricktable.rules.registry.games`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from tricktable.rules.match import Match
from tricktable.rules.registry import new_match

#: (game, options) for every player layout the tests cover; options not named take their defaults.
LAYOUTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("twenty_five", {"players": 4}),
    ("twenty_five", {"players": 6}),
    ("twenty_five", {"players": 6, "sides": 3}),
    ("forty_five", {"players": 2}),
    ("forty_five", {"players": 3}),
    ("forty_five", {"players": 4}),
    ("forty_five", {"players": 4, "jink": True}),
    ("forty_five", {"players": 5}),
    ("forty_five", {"players": 6}),
    ("forty_five", {"players": 6, "sides": 3}),
    ("forty_five", {"players": 10, "sides": 5}),
    ("all_fives", {"players": 2}),
    ("all_fives", {"players": 3}),
    ("cinq_cents", {}),
)

#: Each game once, with a short target where it has one: for tests that play whole matches of every game.
SHORT_GAMES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("twenty_five", {}), ("forty_five", {}), ("all_fives", {"target": 31}), ("cinq_cents", {"target": 100}),
)

#: A small number of deals after which a random match is aborted (random Cinq Cents never ends).
TEST_MAX_DEALS = 6


def layout_id(layout: tuple[str, Mapping[str, Any]]) -> str:
    """A readable test id: ``forty_five-players=4-jink=True``."""
    game, options = layout
    return "-".join([game, *(f"{k}={v}" for k, v in options.items())])


def random_match(game: str, options: Mapping[str, Any], seed: str, *, max_deals: int = TEST_MAX_DEALS,
                 max_actions: int | None = None) -> Match:
    """A match played with uniformly random legal actions; aborted after ``max_deals`` deals or ``max_actions``."""
    match = new_match(game, options, seed=seed)
    rng = random.Random(seed)
    actions = 0
    while not match.is_over:
        if len(match.finished) >= max_deals or (max_actions is not None and actions >= max_actions):
            return match.abort("test limit reached")
        match = match.apply(rng.choice(match.legal_actions()))
        actions += 1
    return match


def random_record(game: str, options: Mapping[str, Any], seed: str, **limits: int) -> dict[str, Any]:
    """The record of :func:`random_match`, with the seed written."""
    return random_match(game, options, seed, **limits).to_record(seed=seed)


__all__ = ["LAYOUTS", "layout_id", "random_match", "random_record"]
