"""PIMC with an exact endgame: the ladder's yardstick at the strength and cost of a textbook PIMC.

The plain PIMC bot (:mod:`tricktable.bots.pimc`) plays each world out with
uniformly random cards, which wastes top trumps and prices a card poorly:
a "search beats pimc" row measured against it says less than it could. This
bot is the PIMC other programs are built as, so that beating it means
beating a standard baseline:

- **40 sampled worlds a decision** (:class:`tricktable.rules.determinize.DealSampler`,
  reproducible: the generator is seeded from the bot's seed and the
  decision's public context);
- in each world every candidate action is played, then the **greedy
  playout** (:mod:`tricktable.bots.playout`: lead high, win cheaply, play low
  under a partner) plays on until **three cards per hand** (or fewer) are
  left, and the rest of the deal is **solved exactly**
  (:mod:`tricktable.bots.solver`, alpha-beta with a transposition table);
- the candidate of best mean value is played (the side's deal points minus
  the best other side's, +- the game's win bonus, as every search here
  values a deal).

Like the plain PIMC it always robs when it may (only the card to bury is
searched), and Cinq Cents bids and discards are the heuristic's: the search
bot's simulated auctions (:mod:`tricktable.bots.search_bids`) cost several
times this bot's budget. Cinq Cents worlds are drawn, as the search bot's
are, to fit the bids made (:mod:`tricktable.bots.bid_fit`).

Over whole matches it takes 16-20 ms of CPU a decision in Twenty-Five and
Forty-Five, and about 70 ms in Cinq Cents (docs/strength.md gives the
measured figures and conditions), so it is a yardstick at a fifth of the
search's default 100 ms in the Spoil Five games;
``simulations`` changes the worlds, ``budget`` with ``simulations=None``
gives it a time budget instead.
"""

from __future__ import annotations

from tricktable.bots.bid_fit import bid_fit
from tricktable.bots.fast_worlds import DEFAULT_BUDGET, decision_rng, win_bonus
from tricktable.bots.pimc import PimcBot
from tricktable.bots.playout import greedy_playout
from tricktable.rules.actions import Action
from tricktable.rules.game import SeatView

#: Worlds a decision: the standard PIMC baseline's.
WORLDS = 40
#: Cards left in each hand from which a world's play is solved exactly.
SOLVED_PER_HAND = 3


class PimcExactBot(PimcBot):
    """PIMC of greedy playouts and an exact three-card endgame (see the module docstring).

    Args:
        seed: seeds the bot's generators (with the decision's public context).
        simulations: worlds per decision; ``None`` to search for ``budget`` seconds instead.
        budget: seconds per decision when ``simulations`` is None.
        clock: what the budget is measured on: ``"wall"`` or ``"cpu"`` (:data:`fast_worlds.CLOCKS`).
        solved_per_hand: cards left in each hand from which a world is solved exactly.
    """

    name = "pimc-exact"

    def __init__(self, seed: int | str | None = None, *, simulations: int | None = WORLDS,
                 budget: float = DEFAULT_BUDGET, clock: str = "wall", solved_per_hand: int = SOLVED_PER_HAND) -> None:
        if solved_per_hand < 1:
            raise ValueError("solved_per_hand must be at least 1 card")
        super().__init__(seed, simulations=simulations, budget=budget, clock=clock)
        self.solved_per_hand = solved_per_hand

    def _search(self, view: SeatView) -> Action:
        """The candidate action of best mean value over the sampled worlds, each solved exactly at the end."""
        return self._decide(view, decision_rng(self.seed, view), (greedy_playout,), win_bonus(view.game),
                            fit=bid_fit(view), solve_at=self.solved_per_hand * view.players)


__all__ = ["SOLVED_PER_HAND", "WORLDS", "PimcExactBot"]
