"""Clocks: a per-decision limit plus a time bank, and the away rule.

A seat has ``decision_seconds`` for each decision; time beyond it is drawn
from its bank. When both are spent the server plays the default action for
the seat (:func:`tricktable.rules.defaults.default_action`: what a careful absent
player would do) and counts a timeout; the bank is then empty, so later
decisions have only the per-decision limit. After
:data:`AWAY_AFTER_TIMEOUTS` timeouts in a row the seat is *away*: its
defaults are played at once (after :data:`AWAY_ANSWER_SECONDS` while it is
connected, so a client that is back can answer), without waiting out the
clock, until it answers again (any decide) or rejoins.
"""

from __future__ import annotations

from dataclasses import dataclass

from tricktable.server.errors import InvalidRequestError

#: Each time limit's allowed range in seconds, low and high included.
LIMITS: dict[str, tuple[float, float]] = {
    "decision_seconds": (0.01, 3600.0), "bank_seconds": (0.0, 86400.0),
    "grace_seconds": (0.0, 3600.0), "join_seconds": (0.01, 86400.0),
}
#: Timeouts in a row after which a seat is away (docs/protocol.md, section 19): a connected client that
#: never answers then costs one clock per decision twice, not at every decision of the game.
AWAY_AFTER_TIMEOUTS = 2
#: Seconds an away seat that is still connected gets to answer before its default: enough for a client that
#: is back to show it, far below a clock (a disconnected away seat gets its default with no wait at all).
AWAY_ANSWER_SECONDS = 0.25


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeControl:
    """A table's time limits, in seconds."""

    #: Time for each decision before the bank is drawn on.
    decision_seconds: float = 10.0
    #: Extra time for the whole game, spent when a decision runs over its limit.
    bank_seconds: float = 60.0
    #: How long a disconnected seat keeps its place before default actions play for it.
    grace_seconds: float = 30.0
    #: How long the seats have to join before the table is cancelled.
    join_seconds: float = 60.0

    def validate(self) -> TimeControl:
        """Return self, or raise :class:`InvalidRequestError` for a limit out of range."""
        for name, (low, high) in LIMITS.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise InvalidRequestError(f"time control: {name} must be between {low:g} and {high:g}, not {value:g}")
        return self


class SeatClock:
    """One seat's clock: the bank left, and the running decision if any (times from a monotonic clock)."""

    __slots__ = ("_started", "bank", "control", "timeouts")

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.bank = control.bank_seconds
        self.timeouts = 0
        self._started: float | None = None

    def start(self, now: float) -> float:
        """Start a decision at ``now``; return when it expires (limit plus bank)."""
        self._started = now
        return now + self.control.decision_seconds + self.bank

    def stop(self, now: float) -> None:
        """The seat answered at ``now``: charge the bank for the time over the per-decision limit."""
        if self._started is None:
            return
        over = max(0.0, now - self._started - self.control.decision_seconds)
        self.bank = max(0.0, self.bank - over)
        self._started = None

    def expire(self) -> None:
        """The decision ran out: the bank is spent and a timeout is counted."""
        self._started = None
        self.bank = 0.0
        self.timeouts += 1
