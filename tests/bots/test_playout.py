"""The greedy playout policy: lead high, win cheaply against an opponent, play low under a partner."""

from __future__ import annotations

import random

from tricktable.bots.playout import greedy_card, greedy_playout
from tricktable.rules.cards import card
from tricktable.rules.fast.spoil_five import SpoilFiveFast

SIDES = (0, 1, 0, 1)


def _deck(hands: dict[int, str], turn_up: str) -> list[int]:
    """A 4-player deck, dealer 0, dealing ``hands`` by the 3-2 pattern and turning up ``turn_up``."""
    held = {s: [card(c).index for c in text.split()] for s, text in hands.items()}
    order = [1, 2, 3, 0]
    deck = [c for s in order for c in held[s][:3]] + [c for s in order for c in held[s][3:]]
    deck.append(card(turn_up).index)
    return deck + [c for c in range(52) if c not in deck]


HANDS = {1: "KD 2D 3C 4C 6C", 2: "QD 9D 3H 4H 6H", 3: "JD TD 7C 8C 9C", 0: "8D 7D 2H 8H 9H"}


def _state() -> SpoilFiveFast:
    options = {"players": 4, "sides": 2, "deal_pattern": "3-2", "robbing": False, "trump_at_will": False,
               "target": 25, "first_dealer": 0, "jink": False}
    return SpoilFiveFast.from_options("twenty_five", options, decks=lambda i: _deck(HANDS, "5S"))


def test_greedy_leads_its_strongest_card() -> None:
    state = _state()
    assert greedy_card(state, state.legal_actions(), SIDES) == card("KD").index


def test_greedy_wins_as_cheaply_as_possible_against_an_opponent() -> None:
    state = _state()
    state.apply(card("2D").index)  # seat 1 leads low; seat 2 (the other side) may win with QD or 9D
    assert greedy_card(state, state.legal_actions(), SIDES) == card("9D").index


def test_greedy_plays_low_when_the_partner_is_winning() -> None:
    state = _state()
    state.apply(card("KD").index)  # seat 1 leads the king
    state.apply(card("9D").index)  # seat 2
    assert greedy_card(state, state.legal_actions(), SIDES) == card("TD").index  # seat 3: partner winning


def test_greedy_playout_plays_the_deal_to_its_end() -> None:
    state = _state()
    greedy_playout(state, random.Random(0), SIDES)
    assert state.deal_index == 1 or state.over
    assert sum(state.last_deal[0]) if state.last_deal else True
