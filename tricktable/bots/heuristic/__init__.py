"""Heuristic bots: the strategy the rule texts teach, one short module per game family.

:class:`HeuristicBot` plays every game by handing the view to the module its
game's definition names (``bots.heuristic``): :mod:`tricktable.bots.heuristic.spoil_five`
(Twenty-Five, Forty-Five), :mod:`tricktable.bots.heuristic.all_fives` and
:mod:`tricktable.bots.heuristic.cinq_cents`. Each
reads only the :class:`tricktable.rules.game.SeatView`, so it plays the same in-process
and as an SDK client.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from tricktable.rules.actions import Action
from tricktable.rules.game import SeatView
from tricktable.rules.registry import game_definition

#: A game's strategy: its heuristic module's ``choose_action``.
Strategy = Callable[[SeatView], Action]


def strategy(game: str) -> Strategy:
    """The heuristic's ``choose_action`` for ``game``: the module its definition names (``bots.heuristic``).

    Raises:
        OptionsError: an unknown game. ValueError: the module named has no ``choose_action``.
    """
    module_name = game_definition(game).bots.heuristic
    known = _LOADED.get(module_name)
    if known is not None:
        return known
    found = getattr(importlib.import_module(module_name), "choose_action", None)
    if not callable(found):
        raise ValueError(f"{game}: the heuristic module {module_name} has no choose_action(view)")
    chosen: Strategy = found
    _LOADED[module_name] = chosen
    return chosen


#: Strategies found so far, by module name.
_LOADED: dict[str, Strategy] = {}


def choose_action(view: SeatView) -> Action:
    """The heuristic's action for ``view`` in any game.

    Raises:
        ValueError: the view has no legal action, or is of an unknown game.
    """
    if not view.legal_actions:
        raise ValueError(f"seat {view.seat} has nothing to do")
    return strategy(view.game)(view)


class HeuristicBot:
    """The heuristic for every game, as a bot (``choose_action(view) -> action``); deterministic."""

    name = "heuristic"

    def choose_action(self, view: SeatView) -> Action:
        """See :func:`choose_action`."""
        return choose_action(view)


__all__ = ["HeuristicBot", "Strategy", "choose_action", "strategy"]
