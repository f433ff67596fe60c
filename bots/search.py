"""The search bot: determinized Monte Carlo over the seat's view, for every game.

For each decision the bot

1. samples a *world*, a whole deal consistent with everything the seat has
   seen (:class:`bots.determinize.WorldSampler`: its hand, cards played,
   voids shown, the turn-up, who robbed, the kitty and discards for the
   declarer), rebuilt and replayed by the rules engine;
2. tries every legal action in that world and plays the deal out with a
   fast policy (the heuristic bot by default, or uniformly random plays);
3. scores the outcome for its side: the deal's points for the side minus
   the best other side's, plus a bonus when the deal ends the match with the
   side winning (or losing);
4. repeats with new worlds until the budget is spent and returns the action
   with the best mean. Every action is tried in the same worlds, so the
   comparison is paired and the noise of the deal cancels.

The budget is either time (``budget`` seconds per decision, default 0.1) or,
for reproducible tests and ladders, a number of worlds (``simulations``).
The generator is a private ``random.Random`` seeded from the bot's seed and
the decision's public context, so with ``simulations`` set the same view
always gets the same answer, whatever was asked before.

Decisions the playouts cannot judge well (Cinq Cents bids and discards, the
Forty-Five jink) are left to the heuristic bot.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from bots import heuristic
from bots.determinize import WorldSampler
from rules.actions import Action, Bid, Discard, Jink, Pass, PassJink, Play
from rules.game import DealState, SeatView
from rules.registry import game_rules

#: Playout policies by name: given the state, the seat to act and the scores before the deal, an action.
Policy = Callable[[DealState, int, tuple[int, ...], random.Random], Action]

#: Default time per decision, in seconds.
DEFAULT_BUDGET = 0.1
#: Draws that may fail (a world contradicting the history) before the search gives up on a decision.
MAX_FAILED_DRAWS = 200


def heuristic_policy(state: DealState, seat: int, scores: tuple[int, ...], rng: random.Random) -> Action:
    """The heuristic bot's choice, from the seat's view of the simulated deal."""
    return heuristic.choose_action(state.view(seat, scores))


def random_policy(state: DealState, seat: int, scores: tuple[int, ...], rng: random.Random) -> Action:
    """A uniformly random card; any other decision (rob, jink, bid) by the heuristic."""
    legal = state.legal_actions()
    if all(isinstance(a, Play) for a in legal):
        return rng.choice(legal)
    return heuristic.choose_action(state.view(seat, scores))


POLICIES: dict[str, Policy] = {"heuristic": heuristic_policy, "random": random_policy}


def _delegated(legal: tuple[Action, ...]) -> bool:
    """Decisions left to the heuristic: bids, discards, jinks."""
    return any(isinstance(a, Bid | Pass | Discard | Jink | PassJink) for a in legal)


class SearchBot:
    """Determinized Monte Carlo search (see the module docstring).

    Args:
        seed: seeds the bot's generators (with the decision's public context).
        simulations: worlds per decision; ``None`` to search for ``budget`` seconds instead.
        budget: seconds per decision when ``simulations`` is None.
        playout: ``"heuristic"`` or ``"random"``.
        win_bonus: value of ending the match as a winner, in deal points (a loss counts the negative).
    """

    name = "search"

    def __init__(self, seed: int | str | None = None, *, simulations: int | None = None,
                 budget: float = DEFAULT_BUDGET, playout: str = "heuristic",
                 win_bonus: float | None = None) -> None:
        if playout not in POLICIES:
            raise ValueError(f"unknown playout policy {playout!r} (policies: {', '.join(POLICIES)})")
        if simulations is not None and simulations < 1:
            raise ValueError("simulations must be at least 1")
        self.seed = seed
        self.simulations = simulations
        self.budget = budget
        self.policy = POLICIES[playout]
        self.win_bonus = win_bonus
        #: Worlds searched and draws rejected at the last decision (for tests and tuning).
        self.last_worlds = 0
        self.last_rejected = 0

    def choose_action(self, view: SeatView) -> Action:
        """The action with the best mean outcome over sampled worlds.

        Raises:
            ValueError: the view has no legal action.
        """
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} has nothing to do")
        self.last_worlds = self.last_rejected = 0
        if len(legal) == 1:
            return legal[0]
        if _delegated(legal):
            return heuristic.choose_action(view)
        rng = random.Random(f"{self.seed}|{view.game}|{view.deal_number}|{view.seat}|{view.scores}|"
                            f"{len(view.history)}|{[c.code for c in view.hand]}")
        sampler = WorldSampler(view)
        totals = [0.0] * len(legal)
        deadline = time.monotonic() + self.budget
        worlds = failed = 0
        while failed < MAX_FAILED_DRAWS:
            if self.simulations is not None:
                if worlds >= self.simulations:
                    break
            elif worlds > 0 and time.monotonic() >= deadline:
                break
            world = sampler.sample(rng)
            if world is None:
                failed += 1
                continue
            worlds += 1
            for i, action in enumerate(legal):
                totals[i] += self._playout(world.apply(action, view.seat), sampler, rng)
        self.last_worlds, self.last_rejected = worlds, failed
        if worlds == 0:
            return heuristic.choose_action(view)
        best = max(range(len(legal)), key=lambda i: (totals[i], -i))
        return legal[best]

    def _playout(self, state: DealState, sampler: WorldSampler, rng: random.Random) -> float:
        scores = sampler.scores_before
        while not state.is_over:
            seat = state.to_act
            assert seat is not None
            state = state.apply(self.policy(state, seat, scores, rng), seat)
        return self._value(state, sampler)

    def _value(self, state: DealState, sampler: WorldSampler) -> float:
        view = sampler.view
        mine = view.side_of(view.seat)
        points = state.points
        others = max(p for side, p in enumerate(points) if side != mine)
        value = float(points[mine] - others)
        bonus = self.win_bonus if self.win_bonus is not None else _default_bonus(view.game)
        if bonus:
            after = tuple(a + b for a, b in zip(sampler.scores_before, points, strict=True))
            result = game_rules(view.game).match_result(sampler.config, state, after)
            if result is not None and result.winners:
                value += bonus if mine in result.winners else -bonus
        return value


def _default_bonus(game: str) -> float:
    """A match won is worth about two tricks' worth of a deal's points."""
    return {"twenty_five": 10.0, "forty_five": 10.0, "all_fives": 5.0, "cinq_cents": 100.0}.get(game, 0.0)


__all__ = ["DEFAULT_BUDGET", "POLICIES", "SearchBot", "heuristic_policy", "random_policy"]
