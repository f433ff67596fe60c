"""The first-legal reference bot: always the first of the sorted legal actions.

Deterministic and instant; the same choice the server makes for a seat whose
clock runs out (the lowest legal action), so it doubles as a model of a
silent player.
"""

from __future__ import annotations

from tricktable.rules.actions import Action
from tricktable.rules.game import SeatView


class FirstLegalBot:
    """Plays ``view.legal_actions[0]``."""

    name = "first-legal"

    def choose_action(self, view: SeatView) -> Action:
        """The first legal action.

        Raises:
            ValueError: when the view has no legal action (the runner never asks then).
        """
        if not view.legal_actions:
            raise ValueError(f"seat {view.seat} has no legal action to choose from")
        return view.legal_actions[0]
