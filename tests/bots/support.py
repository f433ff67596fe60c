"""Shared helpers of the bot tests: play a match part way, find decision points, swap hidden cards."""

from __future__ import annotations

from collections.abc import Callable

from tricktable.bots.heuristic import HeuristicBot
from tricktable.rules.actions import Action
from tricktable.rules.cards import Card
from tricktable.rules.game import SeatView
from tricktable.rules.match import Match
from tricktable.rules.registry import new_match
from tricktable.rules.shuffle import RecordedDecks

GAMES = ("twenty_five", "forty_five", "all_fives", "cinq_cents")


def advance(game: str, seed: str, steps: int,
            choose: Callable[[SeatView], Action] | None = None) -> tuple[Match, list[tuple[int, Action]]]:
    """Play ``steps`` actions of the first deal with the heuristic (or ``choose``); stop early at its end."""
    match = new_match(game, {}, seed=seed)
    pick = choose or HeuristicBot().choose_action
    done: list[tuple[int, Action]] = []
    for _ in range(steps):
        if match.is_over or match.finished:
            break
        seat = match.to_act
        assert seat is not None
        action = pick(match.view(seat))
        match = match.apply(action, seat)
        done.append((seat, action))
    return match, done


def first_deck(match: Match) -> list[Card]:
    """The first deal's deck (tests may read hidden state; bots never do)."""
    return [Card.parse(c) for c in match.to_record()["deals"][0]["deck"]]


def replay(game: str, seed: str, deck: list[Card], actions: list[tuple[int, Action]]) -> Match:
    """The same actions over another first deck."""
    match = new_match(game, {}, seed=seed, decks=RecordedDecks([deck]))
    for seat, action in actions:
        match = match.apply(action, seat)
    return match
