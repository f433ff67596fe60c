"""The forfeit rule: each entrant's faults in one match, counted by kind, and when they make it forfeit.

One home for the rule, so that a bot forfeits after the same faults wherever
its match is played: in this process (:class:`tricktable.tournament.runner.LocalRunner`,
the arena) or over the server (:mod:`tricktable.tournament.server_runner`,
where the seat processes report their bots' faults as they happen). Every
fault has the server's default action played for it; at ``forfeit_after``
faults in one match the entrant forfeits it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

#: The kinds of fault a tournament counts, as its reports name them. An exec or webhook bot's own kinds
#: (``garbage``, ``unknown_action``, ``illegal_action``, ``late``, ``not_reading``, ``exited``, ``unreachable``,
#: ``http_error``: docs/bots-any-language.md) are counted as they are; these are the others.
KINDS: dict[str, str] = {
    "garbage": "the bot's answer is no action (a program's line that is not JSON, a return value that is no "
               "action)",
    "illegal_action": "the bot's action is not one of the decision's legal actions",
    "late": "the bot answered after its time",
    "crashed": "the bot raised an exception while choosing",
    "timeout": "the server's clock ran out on the seat (the server played the default action)",
    "restarted": "the bot's process exited (or said it could not play) before its game ended, and was started "
                 "again",
    "could_not_start": "the bot could not be started, or never joined its table: it forfeits at once",
}


class FaultTally:
    """The faults of one match, by entrant and kind, against the match's ``forfeit_after``."""

    def __init__(self, names: Iterable[str], forfeit_after: int) -> None:
        self.forfeit_after = forfeit_after
        self._kinds: dict[str, Counter[str]] = {name: Counter() for name in names}

    def count(self, name: str, kind: str, n: int = 1) -> bool:
        """Count ``n`` faults of ``kind`` against ``name``; returns whether it has reached the forfeit rule."""
        if n > 0:
            self._kinds.setdefault(name, Counter())[kind] += n
        return self.reached(name)

    def reach_limit(self, name: str, kind: str) -> None:
        """Count against ``name`` what it takes to forfeit at once (a bot that could not start)."""
        self.count(name, kind, self.forfeit_after - self.total(name))

    def total(self, name: str) -> int:
        """``name``'s faults so far."""
        return sum(self._kinds.get(name, Counter()).values())

    def reached(self, name: str) -> bool:
        """Whether ``name`` has reached ``forfeit_after`` faults (and so forfeits the match)."""
        return self.total(name) >= self.forfeit_after

    def totals(self) -> dict[str, int]:
        """Every entrant's faults (0 for one without)."""
        return {name: sum(kinds.values()) for name, kinds in self._kinds.items()}

    def kinds(self) -> dict[str, dict[str, int]]:
        """The faults of each entrant that made any, by kind."""
        return {name: dict(kinds.most_common()) for name, kinds in self._kinds.items() if kinds}


def describe(kinds: dict[str, int]) -> str:
    """Faults by kind in words: ``3 garbage, 1 restarted`` (the report's form)."""
    return ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items(), key=lambda item: (-item[1], item[0])))
