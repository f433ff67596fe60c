"""A greedy playout policy on the fast path: the search bot's evaluation of a sampled world.

Uniformly random playouts (the plain PIMC bot's) waste top trumps and give
away tricks, so a world's value says little about the action tried in it.
The search plays the rest of the deal instead with the card play every
heuristic shares, read off the fast state's :meth:`play_order`:

- **lead high**: the card that is strongest as a lead;
- **partner winning**: the card weakest as a lead (keep the strength);
- **opponent winning**: the cheapest card that beats the trick, else the
  weakest card.

With probability ``epsilon`` a seat plays a random legal card instead, so
the worlds do not all play the same story. Decisions other than cards (a
holder's rob, a jink, a run of the pack) are random.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tricktable.rules.fast import FastState

#: Share of random plays in a greedy playout.
EPSILON = 0.1


def cards_left(state: FastState) -> int:
    """Cards still in the hands: the plays left in the deal once card play has begun."""
    return sum(hand.bit_count() for hand in state.hands)


def greedy_card(state: FastState, acts: Sequence[int], sides: Sequence[int]) -> int:
    """The greedy policy's card among ``acts`` (all card plays) for the seat to act."""
    order = state.play_order
    if not state.trick_len:
        return max(acts, key=lambda a: (order(a)[1], -a))
    ranked = [(order(a), a) for a in acts]
    if sides[state.best_seat] != sides[state.to_act]:
        best = state.best
        winners = [(o[0], a) for o, a in ranked if o[0] > best]
        if winners:
            return min(winners)[1]
    return min(ranked, key=lambda x: (x[0][1], x[1]))[1]


def greedy_playout(state: FastState, rng: random.Random, sides: Sequence[int], epsilon: float = EPSILON,
                   stop_at: int = 0) -> None:
    """Play the current deal of ``state`` to its end (or the match's) with the greedy policy; ``sides[seat]``.

    ``stop_at``: stop instead at a card play with that many cards (or fewer) left in the hands.
    """
    start = state.deal_index
    rnd = rng.random
    plays_below = state.PLAYS_BELOW
    while not state.over and state.deal_index == start:
        acts = state.legal_actions()
        if stop_at and acts[-1] < plays_below and cards_left(state) <= stop_at:
            return
        if len(acts) == 1:
            action = acts[0]
        elif acts[-1] >= plays_below or rnd() < epsilon:
            action = acts[int(rnd() * len(acts))]
        else:
            action = greedy_card(state, acts, sides)
        state.apply(action)


__all__ = ["EPSILON", "cards_left", "greedy_card", "greedy_playout"]
