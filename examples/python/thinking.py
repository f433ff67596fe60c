"""An asynchronous bot that reads its clock: it "thinks" for a tenth of the time it has, then plays at random.

    tricktable bot examples/python/thinking.py:Thinking --seek forty_five --players 2

``choose_action`` may be ``async def``: the runner awaits it with the
decision's deadline plus the time bank (less a margin) as the limit, and
plays the first legal action for a bot that overruns. ``current_decision()``
tells the bot how long it has. The class takes a ``seed``, so
``tricktable bot ... --seed S`` makes its choices repeatable.
"""

from __future__ import annotations

import asyncio
import random

from tricktable.client_sdk.bot import current_decision
from tricktable.rules.actions import Action
from tricktable.rules.game import SeatView


class Thinking:
    """Waits a tenth of its time (at most 50 ms), then picks a random legal action."""

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    async def choose_action(self, view: SeatView) -> Action:
        decision = current_decision()
        left = decision.seconds_left() if decision is not None else None
        await asyncio.sleep(min(0.05, left / 10) if left is not None else 0.0)
        return self.rng.choice(view.legal_actions)
