"""The random reference bot: a uniformly random legal action.

The weakest sensible player and the SDK contract's first example: it reads
only ``view.legal_actions`` and knows nothing of the rules. Seeded, so a
game of random bots over a seeded table replays exactly.
"""

from __future__ import annotations

import random

from tricktable.rules.actions import Action
from tricktable.rules.game import SeatView


class RandomBot:
    """Chooses uniformly among the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | str | None = None) -> None:
        self._rng = random.Random(seed)

    def choose_action(self, view: SeatView) -> Action:
        """A random legal action.

        Raises:
            ValueError: when the view has no legal action (the runner never asks then).
        """
        if not view.legal_actions:
            raise ValueError(f"seat {view.seat} has no legal action to choose from")
        return self._rng.choice(view.legal_actions)
