"""An exact solution of a deal's remaining card play in one world: alpha-beta on the fast path.

A sampled world is a deal with every hand known, so its remaining tricks
can be solved exactly (the "double dummy" solution of bridge programs; GIB
averaged such solutions over sampled worlds). The search bot
(:mod:`tricktable.bots.search`) values a candidate action in a world by this solution
once few enough cards are left, where a playout only guesses how the
others would play.

The value solved is the one the search compares
(:func:`deal_value`): the searching side's deal points
minus the best other side's, +- the win bonus when the deal ends the match.
The searching side maximises it and every other seat minimises it: for two
sides (every game's default: partnerships and two-player All Fives) that is
the exact zero-sum solution; with more sides it is the *paranoid*
assumption (the others play against the searcher).

The search is a plain minimax with alpha-beta pruning over the fast
state's own ``legal_actions`` / ``apply`` (so the solver plays by the same
tested rules as every playout), with

- a transposition table keyed on :meth:`tricktable.rules.fast.FastState.position_key`
  (the hands, the trick so far, the points taken), holding the bounds each
  search proved, so a position reached by another order of the same cards
  is solved once;
- move ordering: the best move of an earlier search of the position, else
  the greedy playout's card (:func:`tricktable.bots.playout.greedy_card`, usually the
  best or a cutoff); a forced move applied without a node of its own, and
  the last move tried on the position itself instead of a copy.

Twenty-Five and Forty-Five card play, the ladder yardstick's every solve,
goes through :mod:`tricktable.bots.solver_spoil_five`, and Cinq Cents card
play through :mod:`tricktable.bots.solver_cinq_cents`: the same search
position for position (same values, table and cutoffs) on its own copy of
the hands, several times cheaper than copying the state at every node.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from tricktable.bots import solver_cinq_cents as cinq_cents
from tricktable.bots import solver_spoil_five as spoil_five
from tricktable.bots.playout import greedy_card, greedy_playout
from tricktable.rules.fast import FastState

#: What the table keeps of a position: (lowest value proved, highest value proved, best move found).
Bounds = tuple[float, float, int]

_INFINITY = float("inf")


def deal_value(before: Sequence[int], after: FastState, side: int, bonus: float) -> float:
    """A simulated deal's worth to ``side``: its points minus the best other side's, +- ``bonus`` if the match ended.

    The one objective of every search: playouts' outcomes and the solver's minimax values.
    """
    scores = after.scores
    gains = [a - b for a, b in zip(scores, before, strict=True)]
    value = float(gains[side] - max(g for k, g in enumerate(gains) if k != side))
    if after.over and bonus:
        value += bonus if side in after.winners else -bonus
    return value


def solved_value(state: FastState, rng: random.Random, solver: DealSolver, solve_at: int) -> float:
    """``state``'s value (changing it): greedy play down to ``solve_at`` cards in card play, then solved exactly.

    A deal that ends before then (or a match) is valued as it ended.
    """
    start = state.deal_index
    greedy_playout(state, rng, solver.sides, stop_at=solve_at)
    if state.over or state.deal_index != start:
        return deal_value(solver.before, state, solver.side, solver.bonus)
    return solver.value(state)


@dataclass(slots=True)
class DealSolver:
    """Solves one world's card play for ``side`` (seat ``s`` is on side ``sides[s]``).

    Values are :func:`deal_value` against ``before`` (the
    side scores when the decision was taken), so they add up with the
    playouts' values. One solver serves every candidate of one world: the
    positions they share are solved once. ``nodes`` counts the positions
    searched (for measurements).
    """

    sides: Sequence[int]
    side: int
    before: Sequence[int]
    bonus: float
    nodes: int = 0
    table: dict[tuple[int, ...], Bounds] = field(default_factory=dict)
    #: False: every position through :meth:`generic_value` (what the dedicated search is measured and tested against).
    dedicated: bool = True

    def value(self, state: FastState) -> float:
        """The exact value of ``state`` (not changed) with best play by every seat to the end of the deal.

        Twenty-Five and Forty-Five card play is searched by
        :mod:`tricktable.bots.solver_spoil_five`, Cinq Cents card play by
        :mod:`tricktable.bots.solver_cinq_cents` (the same search, several times
        cheaper); everything else by :meth:`generic_value`.
        """
        if not self.dedicated:
            return self.generic_value(state)
        # The generic search's copies dealt a next deal at every deal end: the rest of the decision draws after them.
        if spoil_five.can_solve(state):
            value, nodes, dealt = spoil_five.solve(state, self.sides, self.side, self.before, self.bonus, self.table)
            state.draw_as_dealt(dealt)
        elif cinq_cents.can_solve(state):
            value, nodes, dealt = cinq_cents.solve(state, self.sides, self.side, self.before, self.bonus, self.table)
            state.draw_as_dealt(dealt)
        else:
            return self.generic_value(state)
        self.nodes += nodes
        return value

    def generic_value(self, state: FastState) -> float:
        """:meth:`value` by the state's own API (``legal_actions``, ``apply``, ``clone``): any game, any phase."""
        return self._search(state.clone(), state.deal_index, -_INFINITY, _INFINITY)

    def _search(self, state: FastState, deal: int, alpha: float, beta: float) -> float:
        self.nodes += 1
        acts = state.legal_actions()
        while len(acts) == 1:
            # A forced move is no decision: applied in place (every state searched is the search's own copy).
            state.apply(acts[0])
            if state.over or state.deal_index != deal:
                return deal_value(self.before, state, self.side, self.bonus)
            acts = state.legal_actions()
        key = state.position_key()
        entry = self.table.get(key) if key is not None else None
        low, high, tried = entry if entry is not None else (-_INFINITY, _INFINITY, -1)
        if low >= beta:
            return low
        if high <= alpha:
            return high
        if low == high:
            return low
        alpha, beta = max(alpha, low), min(beta, high)
        floor, ceiling = alpha, beta
        maximise = self.sides[state.to_act] == self.side
        # Move ordering: the best move of an earlier search of this position, else the greedy card.
        first = tried if tried in acts else greedy_card(state, acts, self.sides) if acts[-1] < state.PLAYS_BELOW else -1
        if first >= 0:
            acts.remove(first)
            acts.insert(0, first)
        best = -_INFINITY if maximise else _INFINITY
        best_act = acts[0]
        last = len(acts) - 1
        for i, act in enumerate(acts):
            # The last move may take the state itself: nothing after it needs the position.
            child = state if i == last else state.clone()
            child.apply(act)
            if child.over or child.deal_index != deal:
                v = deal_value(self.before, child, self.side, self.bonus)
            else:
                v = self._search(child, deal, alpha, beta)
            if maximise:
                if v > best:
                    best, best_act = v, act
                    alpha = max(alpha, v)
            elif v < best:
                best, best_act = v, act
                beta = min(beta, v)
            if alpha >= beta:
                break
        if key is not None:
            if best <= floor:
                self.table[key] = (low, best, best_act)
            elif best >= ceiling:
                self.table[key] = (best, high, best_act)
            else:
                self.table[key] = (best, best, best_act)
        return best


__all__ = ["Bounds", "DealSolver", "deal_value", "solved_value"]
