"""Clocks: the per-decision limit, the bank, timeouts, and the documented default action."""

from __future__ import annotations

import pytest

from rules.match import Match
from rules.shuffle import SeededDecks
from server.clocks import SeatClock, TimeControl, default_action
from server.errors import InvalidRequestError
from tests.server.toy_game import RULES


def test_time_within_the_decision_limit_leaves_the_bank_untouched() -> None:
    clock = SeatClock(TimeControl(decision_seconds=2.0, bank_seconds=10.0))
    assert clock.start(100.0) == 112.0
    clock.stop(101.5)
    assert clock.bank == 10.0 and clock.timeouts == 0


def test_time_over_the_limit_is_drawn_from_the_bank() -> None:
    clock = SeatClock(TimeControl(decision_seconds=2.0, bank_seconds=10.0))
    clock.start(0.0)
    clock.stop(5.0)
    assert clock.bank == 7.0
    assert clock.start(10.0) == 19.0  # the next decision may run to limit + what is left


def test_expiry_empties_the_bank_and_counts_a_timeout() -> None:
    clock = SeatClock(TimeControl(decision_seconds=2.0, bank_seconds=10.0))
    clock.start(0.0)
    clock.expire()
    assert clock.bank == 0.0 and clock.timeouts == 1
    assert clock.start(50.0) == 52.0


def test_the_default_action_is_the_first_of_the_sorted_legal_actions() -> None:
    match = Match.start(RULES, {}, SeededDecks("d"), seed="d")
    assert default_action(match) == match.legal_actions()[0]


@pytest.mark.parametrize("field", ["decision_seconds", "join_seconds"])
def test_a_limit_out_of_range_is_refused(field: str) -> None:
    with pytest.raises(InvalidRequestError, match=field):
        TimeControl(**{field: 0.0}).validate()
    with pytest.raises(InvalidRequestError, match="bank_seconds"):
        TimeControl(bank_seconds=-1.0).validate()
