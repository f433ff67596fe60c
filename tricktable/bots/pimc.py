"""The plain PIMC bot: the ladder's yardstick between the heuristic and the search.

Perfect Information Monte Carlo in its plainest form, as the literature's
baseline is: for each decision, sample worlds consistent with the view
(:class:`tricktable.rules.determinize.DealSampler`), and in each world play every
legal action out to the end of the deal with **uniformly random** plays on
the fast path; make the action of best mean value (the side's deal points
minus the best other side's, plus a bonus for ending the match a winner).
It always robs when it may (only which card to bury is searched). Cinq
Cents bids and discards are the heuristic's: random playouts cannot price a
contract.

Budget: ``budget`` seconds per decision (default 0.1), or a fixed number of
worlds (``simulations``) for reproducible runs.
"""

from __future__ import annotations

from tricktable.bots import heuristic
from tricktable.bots.fast_worlds import DEFAULT_BUDGET, WorldSearcher, decision_rng, random_playout, win_bonus
from tricktable.rules.actions import Action, Bid, Discard, Pass
from tricktable.rules.game import SeatView


class PimcBot(WorldSearcher):
    """Plain PIMC with random playouts (see the module docstring).

    Args:
        seed: seeds the bot's generators (with the decision's public context).
        simulations: worlds per decision; ``None`` to search for ``budget`` seconds instead.
        budget: seconds per decision when ``simulations`` is None.
        clock: what the budget is measured on: ``"wall"`` or ``"cpu"`` (:data:`fast_worlds.CLOCKS`).
    """

    name = "pimc"

    def __init__(self, seed: int | str | None = None, *, simulations: int | None = None,
                 budget: float = DEFAULT_BUDGET, clock: str = "wall") -> None:
        super().__init__(seed, simulations, budget, clock)

    def choose_action(self, view: SeatView) -> Action:
        """The candidate action with the best mean value over random playouts of sampled worlds.

        Raises:
            ValueError: the view has no legal action.
        """
        legal = self._start(view)
        if any(isinstance(a, Bid | Pass | Discard) for a in legal):
            return heuristic.choose_action(view)
        return self._search(view)

    def _search(self, view: SeatView) -> Action:
        """The card-play search itself (a variant of PIMC changes only this)."""
        return self._decide(view, decision_rng(self.seed, view), (random_playout,), win_bonus(view.game))


__all__ = ["PimcBot"]
