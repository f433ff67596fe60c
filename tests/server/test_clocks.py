"""Clocks: the per-decision limit, the bank, timeouts, and the documented default action."""

from __future__ import annotations

import pytest

from tricktable.server.clocks import SeatClock, TimeControl
from tricktable.server.errors import InvalidRequestError


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


@pytest.mark.parametrize("field", ["decision_seconds", "join_seconds"])
def test_a_limit_out_of_range_is_refused(field: str) -> None:
    with pytest.raises(InvalidRequestError, match=field):
        TimeControl(**{field: 0.0}).validate()
    with pytest.raises(InvalidRequestError, match="bank_seconds"):
        TimeControl(bank_seconds=-1.0).validate()
