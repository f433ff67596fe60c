"""Shared helpers of the bot tests: play a match part way, find decision points, swap hidden cards."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tricktable.bots.heuristic import HeuristicBot
from tricktable.rules.actions import Action
from tricktable.rules.cards import ALL_CARDS, Card, card
from tricktable.rules.game import SeatView
from tricktable.rules.match import Match
from tricktable.rules.registry import new_match
from tricktable.rules.shuffle import RecordedDecks

GAMES = ("twenty_five", "forty_five", "all_fives", "cinq_cents")

#: A constructed endgame: Twenty-Five, dealer 0, spades trumps (the 2 of spades turned up), robbing off.
ENDGAME_HANDS = {1: "5S 2D KH QH JH", 2: "QD 7S 8H 9H TH", 3: "KD 2C 7C 8C 9C", 0: "6S 3C 4C 6C 5C"}
#: Seat 1 leads and wins three heart tricks (15 points to seats 1 and 3): two tricks left, seat 1 to lead.
ENDGAME_TRICKS = ("KH", "8H", "7C", "3C", "QH", "9H", "8C", "4C", "JH", "TH", "9C", "6C")
ENDGAME_OPTIONS: dict[str, Any] = {"players": 4, "sides": 2, "deal_pattern": "3-2", "robbing": False,
                                   "trump_at_will": False, "target": 25, "first_dealer": 0}


def endgame_deck() -> list[Card]:
    """The deck dealing ``ENDGAME_HANDS`` by the 3-2 pattern from seat 1, then turning up the 2 of spades.

    After ``ENDGAME_TRICKS`` seat 1 holds the 5 of spades (top trump) and the 2 of diamonds, its
    partner the king of diamonds: leading the 5 wins both last tricks, leading the 2 one.
    """
    order = [1, 2, 3, 0]
    split = {s: text.split() for s, text in ENDGAME_HANDS.items()}
    codes = [c for s in order for c in split[s][:3]] + [c for s in order for c in split[s][3:]] + ["2S"]
    deck = [card(c) for c in codes]
    return deck + [c for c in ALL_CARDS if not c.is_joker and c not in deck]


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
