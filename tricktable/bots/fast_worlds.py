"""Sampled worlds on the fast path, for the bots that search: drawn, replayed, valued, under a budget.

Both the plain PIMC bot (:mod:`tricktable.bots.pimc`) and the search bot
(:mod:`tricktable.bots.search`) decide the same way at heart: draw deals consistent
with the view (:class:`tricktable.rules.determinize.DealSampler`), replay each on the
fast path (:mod:`tricktable.rules.fast`, about twenty times cheaper than the readable
engine), try every candidate action in each world, and keep the action of
best mean value. This module holds what they share: the per-decision
generator, the stream of worlds under a time or simulation budget, the
candidate actions, the search loop and the value of a simulated deal to the
seat's side; the two bots differ in their playouts and in what they leave
to the heuristic.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from tricktable.bots import heuristic
from tricktable.bots.seeded import decision_rng
from tricktable.bots.solver import DealSolver, deal_value, solved_value
from tricktable.rules.actions import Action, Rob
from tricktable.rules.determinize import DealSampler, Fit
from tricktable.rules.fast import FastState
from tricktable.rules.fast.codec import encode
from tricktable.rules.game import SeatView
from tricktable.rules.registry import game_definition

#: Default time per decision, in seconds.
DEFAULT_BUDGET = 0.1
#: Draws that may fail (a world contradicting the history) before a decision gives up drawing.
MAX_FAILED_DRAWS = 200


@dataclass(slots=True)
class WorldStream:
    """Fast-path worlds of one view, until ``simulations`` worlds (or, if None, ``budget`` seconds) are used.

    Iterating yields fresh fast states at the view's decision point; ``drawn``
    and ``failed`` count the worlds used and the draws that did not fit.
    """

    view: SeatView
    rng: random.Random
    simulations: int | None
    budget: float = DEFAULT_BUDGET
    fit: Fit | None = None
    drawn: int = 0
    failed: int = 0
    #: When the decision's time is up (a ``clock()`` value); None: ``budget`` seconds from the first world.
    deadline: float | None = None
    #: The wall clock the budget is measured on (a fake one in tests).
    clock: Callable[[], float] = time.monotonic
    #: Codes that must be legal in each world; None: the view's legal actions, all and only
    #: (:meth:`tricktable.rules.determinize.DealSampler.fast`).
    must_allow: Sequence[int] | None = None

    def __iter__(self) -> Iterator[FastState]:
        sampler = DealSampler(self.view, fit=self.fit)
        clock = self.clock
        deadline = self.deadline if self.deadline is not None else clock() + self.budget
        while self.failed < MAX_FAILED_DRAWS:
            if self.simulations is not None:
                if self.drawn >= self.simulations:
                    return
            elif self.drawn > 0 and clock() >= deadline:
                return
            world = sampler.draw(self.rng)
            state = None if world is None else sampler.fast(world, self.rng, must_allow=self.must_allow)
            if state is None:
                self.failed += 1
                continue
            self.drawn += 1
            yield state


#: A playout on the fast path: (state, generator, side of each seat) -> None, the deal played out in place.
FastPlayout = Callable[[FastState, random.Random, Sequence[int]], None]


def random_playout(state: FastState, rng: random.Random, sides: Sequence[int]) -> None:
    """Uniformly random legal actions to the end of the deal (the plain PIMC playout)."""
    state.random_playout(rng, one_deal=True)


def candidates(legal: Sequence[Action]) -> list[Action]:
    """The actions worth searching: a rob offered is always taken, so then only which card to bury.

    Measured (docs/strength.md): every refusal of a rob cost 7-9 points a duplicate pair.
    """
    return [a for a in legal if isinstance(a, Rob)] or list(legal)


def action_totals(view: SeatView, actions: Sequence[Action], worlds: WorldStream, playouts: Sequence[FastPlayout],
                  bonus: float, solve_at: int = 0) -> list[float]:
    """Each action's value summed over ``worlds`` (the search's comparison; divide by ``worlds.drawn``).

    An action's value in a world is the mean of its deal values over
    ``playouts``, each playing out its own copy of the world after the action
    (one playout: the plain rollout value; several: an ensemble, each
    evaluator's bias diluted by the others').

    With ``solve_at`` (cards left in all hands), a world's value is exact
    from that point: the greedy policy plays down to it, then
    :class:`tricktable.bots.solver.DealSolver` solves the rest (0: ``playout`` to the end).
    Totals rather than a choice so that a tool can read the estimates
    themselves: ``tricktable analyse`` values the action a seat played
    against the search's own choice (:meth:`tricktable.bots.search.SearchBot.action_values`).
    """
    codes = [encode(view.game, a) for a in actions]
    sides = tuple(view.side_of(s) for s in range(view.players))
    side = sides[view.seat]
    totals = [0.0] * len(codes)
    rng = worlds.rng
    *copied, last = playouts
    for state in worlds:
        before = list(state.scores)
        solver = DealSolver(sides, side, before, bonus) if solve_at else None
        for i, code in enumerate(codes):
            child = state.clone()
            child.apply(code)
            if solver is not None:
                totals[i] += solved_value(child, rng, solver, solve_at)
                continue
            value = 0.0
            for playout in copied:
                copy = child.clone()
                playout(copy, rng, sides)
                value += deal_value(before, copy, side, bonus)
            last(child, rng, sides)
            value += deal_value(before, child, side, bonus)
            totals[i] += value / len(playouts)
    return totals


#: The clocks a time budget can run on. ``wall`` is what a live game's clock runs on; ``cpu`` is the
#: thread's own CPU time, so a budget buys the same worlds on a loaded machine as on an idle core: what a
#: ladder in time mode needs to be comparable across machines and runs (the two agree on an idle core).
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.monotonic, "cpu": time.thread_time}


class WorldSearcher:
    """What the searching bots share: a seed, a budget, world counts, and the search of one decision.

    Args:
        seed: seeds the bot's generators (with the decision's public context).
        simulations: worlds per decision; ``None`` to search for ``budget`` seconds instead.
        budget: seconds per decision when ``simulations`` is None.
        clock: what the budget is measured on, a key of :data:`CLOCKS`.
    """

    def __init__(self, seed: int | str | None, simulations: int | None, budget: float, clock: str = "wall") -> None:
        if simulations is not None and simulations < 1:
            raise ValueError("simulations must be at least 1")
        self.seed = seed
        self.simulations = simulations
        self.budget = budget
        if clock not in CLOCKS:
            raise ValueError(f"unknown clock {clock!r} (clocks: {', '.join(CLOCKS)})")
        #: The clock a time budget runs on (tests put a fake one here).
        self.clock: Callable[[], float] = CLOCKS[clock]
        #: When the current decision's time is up: ``budget`` seconds after it started (see :meth:`_start`).
        self._deadline = 0.0
        #: Worlds searched and draws rejected at the last decision (for tests and tuning).
        self.last_worlds = 0
        self.last_rejected = 0
        #: Worlds searched over the bot's life.
        self.total_worlds = 0
        #: The last searched decision's mean value of each candidate (empty when it searched none): its note.
        self.last_values: dict[Action, float] = {}

    def _start(self, view: SeatView) -> tuple[Action, ...]:
        """The view's legal actions, the last decision's counts reset.

        Raises:
            ValueError: the view has no legal action.
        """
        if not view.legal_actions:
            raise ValueError(f"seat {view.seat} has nothing to do")
        self._deadline = self.clock() + self.budget
        self.last_worlds = self.last_rejected = 0
        self.last_values = {}
        return view.legal_actions

    def _worlds(self, view: SeatView, rng: random.Random, simulations: int | None, *, fit: Fit | None = None,
                must_allow: Sequence[int] | None = None) -> WorldStream:
        """The decision's worlds: ``simulations`` of them, or (None) as many as fit before the decision's deadline.

        The deadline is the decision's, set when it started (:meth:`_start`), so
        the time spent before the first world (the sampler's set-up, the
        candidates) counts against the budget too.
        """
        return WorldStream(view, rng, simulations, self.budget, fit=fit, deadline=self._deadline, clock=self.clock,
                           must_allow=must_allow)

    def _count(self, worlds: WorldStream) -> None:
        """Record the worlds the last decision used (``last_worlds``, ``last_rejected``, ``total_worlds``)."""
        self.last_worlds, self.last_rejected = worlds.drawn, worlds.failed
        self.total_worlds += worlds.drawn

    def _decide(self, view: SeatView, rng: random.Random, playouts: Sequence[FastPlayout], bonus: float,
                fit: Fit | None = None, solve_at: int = 0) -> Action:
        """The best candidate over fast-path worlds of ``view`` (the heuristic's choice if none could be drawn)."""
        actions = candidates(view.legal_actions)
        if len(actions) == 1:
            return actions[0]
        worlds = self._worlds(view, rng, self.simulations, fit=fit)
        totals = action_totals(view, actions, worlds, playouts, bonus, solve_at)
        best = best_index(totals)
        if worlds.drawn:
            self.last_values = {a: total / worlds.drawn for a, total in zip(actions, totals, strict=True)}
        self._count(worlds)
        return actions[best] if worlds.drawn else heuristic.choose_action(view)


def win_bonus(game: str) -> float:
    """What ending the match as a winner is worth, in deal points: the game's own (its definition's ``bots``).

    Raises:
        OptionsError: for an unknown game.
    """
    return game_definition(game).bots.win_bonus


def best_index(totals: Sequence[float]) -> int:
    """The index of the largest total (the first on a tie, so choices are deterministic)."""
    return max(range(len(totals)), key=lambda i: (totals[i], -i))


__all__ = [
    "CLOCKS",
    "DEFAULT_BUDGET",
    "MAX_FAILED_DRAWS",
    "FastPlayout",
    "WorldSearcher",
    "WorldStream",
    "action_totals",
    "best_index",
    "candidates",
    "deal_value",
    "decision_rng",
    "random_playout",
    "win_bonus",
]
