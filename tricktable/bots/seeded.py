"""Seeded choices that depend on the decision, not on what the bot drew before.

Why: a bot's process may be started again in the middle of a game (its
server restarted and it gave up, or it crashed), and a seat that reconnects
is asked again the decision it was thinking about. A generator drawn from in
turn would then answer differently from a run without the interruption; one
made for each decision from the seed and the decision's public context
answers the same decision the same way, however often it is asked.
"""

from __future__ import annotations

import random

from tricktable.rules.game import SeatView


def decision_rng(seed: int | str | None, view: SeatView) -> random.Random:
    """A generator for one decision: the bot's seed and the decision's public context.

    So with a simulation count the same view always gets the same answer,
    whatever the bot decided before.
    """
    return random.Random(f"{seed}|{view.game}|{view.deal_number}|{view.seat}|{view.scores}|"
                         f"{len(view.history)}|{[c.code for c in view.hand]}")
