"""Clocks: a per-decision limit plus a time bank, and the default action.

A seat has ``decision_seconds`` for each decision; time beyond it is drawn
from its bank. When both are spent the server plays the default action for
the seat and counts a timeout; the bank is then empty, so later decisions
have only the per-decision limit.

The default action is documented and boring on purpose: the lowest legal
action, i.e. the first of the engine's sorted ``legal_actions()``.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.actions import Action
from rules.match import Match
from server.errors import InvalidRequestError

#: Each time limit's allowed range in seconds, low and high included.
LIMITS: dict[str, tuple[float, float]] = {
    "decision_seconds": (0.01, 3600.0), "bank_seconds": (0.0, 86400.0),
    "grace_seconds": (0.0, 3600.0), "join_seconds": (0.01, 86400.0),
}


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


def default_action(match: Match) -> Action:
    """The action the server plays for a seat that timed out or is away: the lowest legal action."""
    legal = match.legal_actions()
    if not legal:
        raise RuntimeError("the engine offers no legal action to default to")
    return legal[0]


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
