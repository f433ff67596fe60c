"""The random reference bot: a uniformly random legal action.

The weakest sensible player and the SDK contract's first example: it reads
only ``view.legal_actions`` and knows nothing of the rules. Seeded, so a
game of random bots over a seeded table replays exactly: each choice is drawn
from the seed and the decision (:mod:`tricktable.bots.seeded`), so a bot
started again mid-game, or asked a decision again after a reconnect, plays
as it would have without the interruption.
"""

from __future__ import annotations

import random

from tricktable.bots.seeded import decision_rng
from tricktable.rules.actions import Action
from tricktable.rules.game import SeatView


class RandomBot:
    """Chooses uniformly among the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | str | None = None) -> None:
        self._seed = seed
        #: Unseeded: one generator, drawn from in turn (nothing to replay).
        self._rng = random.Random() if seed is None else None

    def choose_action(self, view: SeatView) -> Action:
        """A random legal action.

        Raises:
            ValueError: when the view has no legal action (the runner never asks then).
        """
        if not view.legal_actions:
            raise ValueError(f"seat {view.seat} has no legal action to choose from")
        rng = self._rng if self._rng is not None else decision_rng(self._seed, view)
        return rng.choice(view.legal_actions)
