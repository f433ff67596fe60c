"""Heuristic bots: the strategy the rule texts teach, one short module per game family.

:class:`HeuristicBot` plays every game by handing the view to the module of
its game: :mod:`tricktable.bots.heuristic.spoil_five` (Twenty-Five, Forty-Five),
:mod:`tricktable.bots.heuristic.all_fives` and :mod:`tricktable.bots.heuristic.cinq_cents`. Each
reads only the :class:`tricktable.rules.game.SeatView`, so it plays the same in-process
and as an SDK client.
"""

from __future__ import annotations

from collections.abc import Callable

from tricktable.bots.heuristic import all_fives, cinq_cents, spoil_five
from tricktable.rules.actions import Action
from tricktable.rules.game import SeatView

#: Game name -> the heuristic's ``choose_action`` for it.
STRATEGIES: dict[str, Callable[[SeatView], Action]] = {
    "twenty_five": spoil_five.choose_action,
    "forty_five": spoil_five.choose_action,
    "all_fives": all_fives.choose_action,
    "cinq_cents": cinq_cents.choose_action,
}


def choose_action(view: SeatView) -> Action:
    """The heuristic's action for ``view`` in any game.

    Raises:
        ValueError: the view has no legal action, or is of an unknown game.
    """
    if not view.legal_actions:
        raise ValueError(f"seat {view.seat} has nothing to do")
    strategy = STRATEGIES.get(view.game)
    if strategy is None:
        raise ValueError(f"no heuristic for game {view.game!r}")
    return strategy(view)


class HeuristicBot:
    """The heuristic for every game, as a bot (``choose_action(view) -> action``); deterministic."""

    name = "heuristic"

    def choose_action(self, view: SeatView) -> Action:
        """See :func:`choose_action`."""
        return choose_action(view)


__all__ = ["STRATEGIES", "HeuristicBot", "choose_action"]
