"""The one in-process match loop (:func:`tricktable.rules.match.play_out`) and the one deal limit."""

from __future__ import annotations

import random

import pytest

from tricktable.rules.actions import Action, Pass
from tricktable.rules.errors import RuleError
from tricktable.rules.game import Seat
from tricktable.rules.match import Match, play_out
from tricktable.rules.registry import new_match


def test_play_out_asks_the_seat_to_act_and_plays_to_the_end() -> None:
    rng = random.Random("loop")
    asked: list[tuple[Seat | None, Seat]] = []

    def choose(match: Match, seat: Seat) -> Action:
        asked.append((match.to_act, seat))
        return rng.choice(match.legal_actions())

    match = play_out(new_match("all_fives", {"players": 2, "target": 11}, seed="loop"), choose)
    assert match.is_over and match.result is not None and match.result.status == "finished"
    assert asked and all(to_act == seat for to_act, seat in asked)


def test_play_out_stops_unfinished_at_the_deal_limit() -> None:
    match = play_out(new_match("forty_five", {}, seed="limit"), lambda m, _: m.legal_actions()[0], max_deals=1)
    assert not match.is_over and len(match.finished) == 1 and match.deal.number == 2


def test_a_refused_choice_stops_the_loop_with_the_rules_error() -> None:
    with pytest.raises(RuleError):
        play_out(new_match("twenty_five", {}, seed="bad"), lambda m, _: Pass())

