"""A bot for the conformance tests: random legal actions, each sent with an annotation.

Why a bot of its own: the reference bots do not annotate, and the ``annotations``
situation needs a client that does (``tricktable bot tests/conformance/noting_bot.py:Noting``).
"""

from __future__ import annotations

import random

from tricktable.client_sdk.bot import AnnotatedAction
from tricktable.rules.game import SeatView


class Noting:
    """Picks a random legal action and notes how many it chose from, with an even value for a few of them."""

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def choose_action(self, view: SeatView) -> AnnotatedAction:
        legal = view.legal_actions
        pick = self.rng.choice(legal)
        values = {action: 1 / len(legal) for action in legal[:8]}
        return AnnotatedAction(pick, note=f"random of {len(legal)}", values=values)
