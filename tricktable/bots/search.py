"""The search bot: determinized Monte Carlo on the fast path, for every game.

For each decision the bot

1. samples *worlds*, whole deals consistent with everything the seat has
   seen (:class:`tricktable.rules.determinize.DealSampler`: its hand, cards played,
   voids shown, the turn-up, who robbed, the kitty and discards for the
   declarer; in Cinq Cents hands that fit the bids, :mod:`tricktable.bots.bid_fit`),
   each replayed on the fast path (:mod:`tricktable.rules.fast`);
2. tries every candidate action in each world and plays the deal out with
   the greedy policy (:mod:`tricktable.bots.playout`: lead high, win cheaply, play low
   under a partner) instead of the plain PIMC bot's random cards, at
   nearly the same cost; in Twenty-Five and Forty-Five (their definitions' ``bots.playout``) each candidate's
   value in a world is the mean of a greedy and a uniformly random playout
   of it (an ensemble: the greedy opponents answer every high card as well
   as they can, random ones never do; the mean of the two chose better than
   the greedy playouts alone, which plain PIMC's random ones only equal);
   or, with ``solve_at``, down to that many cards
   left in the hands, the rest of the deal then solved exactly
   (:mod:`tricktable.bots.solver`: alpha-beta with a transposition table, every seat
   playing its best with the world's cards in view; off by default, see
   each game's ``bots.solve_at`` in :mod:`tricktable.rules.registry`);
3. scores the outcome for its side: the deal's points for the side minus
   the best other side's, plus a bonus when the deal ends the match with the
   side winning (or losing);
4. repeats with new worlds until the budget is spent and returns the action
   with the best mean. Every action is tried in the same worlds, so the
   comparison is paired and the noise of the deal cancels.

Every decision the fast path knows goes through the same search: cards,
the burial of a rob (a rob offered is always taken: each refusal cost 7-9
points a duplicate pair, measured: docs/strength.md), the Forty-Five jink, All Fives'
stand, beg, gift and run. On the fast path a decision sees about 3,000
worlds per CPU second (the readable engine with heuristic playouts saw
about 500).

The budget is either time (``budget`` seconds per decision, default 0.1) or,
for reproducible tests and ladders, a number of worlds (``simulations``).
The generator is a private ``random.Random`` seeded from the bot's seed and
the decision's public context, so with ``simulations`` set the same view
always gets the same answer, whatever was asked before.

In Cinq Cents the bids are searched on the fast path too
(:mod:`tricktable.bots.search_bids`): in each world, passing and each plausible bid
are played out, the rest of the auction by the heuristic bidder, the
declarer's discard the heuristic's and the play by the search's playout
policy, and the bot bids what gains most over passing by a margin the noise
cannot explain. A bid decision draws ``bid_worlds`` worlds (default 20) with
a simulation count; in time mode it has one decision's budget like any
other, and falls back to the heuristic's bid with fewer than
``MIN_BID_WORLDS`` worlds. The declarer's discard is searched among a few
candidates (the heuristic's, and each one that voids a plain suit) the same
way, under the same budget.
"""

from __future__ import annotations

from tricktable.bots import heuristic
from tricktable.bots.bid_fit import bid_fit
from tricktable.bots.fast_worlds import (
    DEFAULT_BUDGET,
    FastPlayout,
    WorldSearcher,
    action_totals,
    decision_rng,
    random_playout,
    win_bonus,
)
from tricktable.bots.playout import greedy_playout
from tricktable.bots.search_bids import Searched, choose_bid, choose_discard, discard_actions
from tricktable.client_sdk.bot import AnnotatedAction, Choice
from tricktable.rules.actions import Action, Discard, Pass
from tricktable.rules.fast.codec import encode
from tricktable.rules.game import SeatView
from tricktable.rules.registry import game_definition

#: Cinq Cents: worlds a bid decision draws with a simulation count (the bid is worth most of a deal's points).
BID_WORLDS = 20
#: Cinq Cents: fewer worlds than this and the bid is the heuristic's (the best of a few noisy estimates overbids).
MIN_BID_WORLDS = 12


#: Evaluations of a candidate in a world by name: the playouts on the fast path whose deal values are averaged.
#: The first also plays out Cinq Cents bids and discards.
POLICIES: dict[str, tuple[FastPlayout, ...]] = {
    "greedy": (greedy_playout,),
    "random": (random_playout,),
    "ensemble": (greedy_playout, random_playout),
}


class SearchBot(WorldSearcher):
    """Determinized Monte Carlo search on the fast path (see the module docstring).

    Args:
        seed: seeds the bot's generators (with the decision's public context).
        simulations: worlds per decision; ``None`` to search for ``budget`` seconds instead.
        budget: seconds per decision when ``simulations`` is None.
        playout: ``"greedy"`` (:mod:`tricktable.bots.playout`), ``"random"`` or ``"ensemble"`` (the mean of both):
            how worlds are played out when ``solve_at`` is 0 (with ``solve_at``, the greedy policy plays down to
            it); None for the game's own (its definition's ``bots.playout``).
        win_bonus: value of ending the match as a winner, in deal points (a loss counts the negative).
        bid_search: Cinq Cents bids by simulation (:mod:`tricktable.bots.search_bids`); off: the heuristic's bids.
        bid_worlds: worlds per Cinq Cents bid decision when ``simulations`` is set.
        solve_at: cards left in all hands from which a world is solved exactly (0: never);
            None for the game's own (its definition's ``bots.solve_at``).
        clock: what the budget is measured on: ``"wall"`` or ``"cpu"`` (:data:`fast_worlds.CLOCKS`).
    """

    name = "search"

    def __init__(self, seed: int | str | None = None, *, simulations: int | None = None,
                 budget: float = DEFAULT_BUDGET, playout: str | None = None,
                 win_bonus: float | None = None, bid_search: bool = True, bid_worlds: int = BID_WORLDS,
                 solve_at: int | None = None, clock: str = "wall") -> None:
        if playout is not None and playout not in POLICIES:
            raise ValueError(f"unknown playout policy {playout!r} (policies: {', '.join(POLICIES)})")
        if bid_worlds < 2:
            raise ValueError("bid_worlds must be at least 2 (a bid is judged on the spread of its gains)")
        super().__init__(seed, simulations, budget, clock)
        self.playout = playout
        self.win_bonus = win_bonus
        self.bid_search = bid_search
        self.bid_worlds = bid_worlds
        self.solve_at = solve_at

    def choose_action(self, view: SeatView) -> Choice:
        """The action with the best mean outcome over sampled worlds, annotated with what the search saw.

        A searched card or decision (rob, jink, stand, beg, gift, run) comes
        as an :class:`AnnotatedAction`: the worlds searched and the mean value
        of each candidate by action id (the server keeps the note secret until
        the table ends, then writes it into the record). Cinq Cents bids and
        discards, searched by :mod:`tricktable.bots.search_bids`, come the same
        way ("bid search: N worlds", each candidate's mean worth; a bid or
        discard left to the heuristic says so and why).

        Raises:
            ValueError: the view has no legal action.
        """
        legal = self._start(view)
        if len(legal) == 1:
            return legal[0]
        rng = decision_rng(self.seed, view)
        if self.bid_search and any(isinstance(a, Pass) for a in legal):
            timed = self.simulations is None
            worlds = self._worlds(view, rng, None if timed else self.bid_worlds, fit=bid_fit(view))
            bid = choose_bid(view, worlds, self._playouts(view)[0], min_worlds=MIN_BID_WORLDS if timed else 1)
            self._count(worlds)
            return self._searched(view, bid, "bid search")
        if any(isinstance(a, Discard) for a in legal):
            discards = discard_actions(view)
            worlds = self._worlds(view, rng, self.simulations, fit=bid_fit(view),
                                  must_allow=[encode(view.game, d) for d in discards])
            discard = choose_discard(view, discards, worlds, self._playouts(view)[0], rng)
            self._count(worlds)
            return self._searched(view, discard, "discard search")
        if any(isinstance(a, Pass) for a in legal):
            return heuristic.choose_action(view)
        bonus = self.win_bonus if self.win_bonus is not None else win_bonus(view.game)
        return self._noted(self._decide(view, rng, self._playouts(view), bonus, fit=bid_fit(view),
                                        solve_at=self._solve_at(view)), "search")

    def _searched(self, view: SeatView, searched: Searched | None, what: str) -> Choice:
        """A Cinq Cents bid or discard search's choice with its note, or the heuristic's (noted so) without one.

        The heuristic decides when the search could not: too few worlds drawn in
        the time (a bid needs :data:`MIN_BID_WORLDS`) or none at all.
        """
        if searched is None:
            return AnnotatedAction(heuristic.choose_action(view),
                                   note=f"{what}: {self.last_worlds} worlds, too few: the heuristic's choice")
        self.last_values = searched.values
        return self._noted(searched.action, what)

    def _noted(self, action: Action, what: str) -> Choice:
        """``action`` with the last search's world count and candidate values (rounded) as its note."""
        if not self.last_values:
            return action
        values = {a: round(v, 3) for a, v in self.last_values.items()}
        return AnnotatedAction(action, note=f"{what}: {self.last_worlds} worlds", values=values)

    def action_values(self, view: SeatView) -> dict[Action, float] | None:
        """The mean value of every legal action over the same sampled worlds, as a card decision searches them.

        For analysis tools (``tricktable analyse``): the values are the ones
        :meth:`choose_action` compares (the side's deal points minus the best
        other side's, +- the win bonus), for every legal action, not only the
        candidates it searches; ``last_worlds`` says how many worlds. None for
        the decisions searched otherwise (Cinq Cents bids and discards) or
        when no world could be drawn.

        Raises:
            ValueError: the view has no legal action.
        """
        legal = self._start(view)
        if any(isinstance(a, Pass | Discard) for a in legal):
            return None
        worlds = self._worlds(view, decision_rng(self.seed, view), self.simulations, fit=bid_fit(view))
        bonus = self.win_bonus if self.win_bonus is not None else win_bonus(view.game)
        totals = action_totals(view, legal, worlds, self._playouts(view), bonus, self._solve_at(view))
        self._count(worlds)
        if not worlds.drawn:
            return None
        return {action: total / worlds.drawn for action, total in zip(legal, totals, strict=True)}

    def _playouts(self, view: SeatView) -> tuple[FastPlayout, ...]:
        """The playouts whose mean values a candidate in a world: the bot's ``playout``, else the game's."""
        name = self.playout or game_definition(view.game).bots.playout
        policy = POLICIES.get(name)
        if policy is None:
            raise ValueError(f"{view.game}: unknown playout policy {name!r} (policies: {', '.join(POLICIES)})")
        return policy

    def _solve_at(self, view: SeatView) -> int:
        """Cards left in all hands from which a world is solved exactly (0: played out to the end)."""
        return self.solve_at if self.solve_at is not None else game_definition(view.game).bots.solve_at


__all__ = ["DEFAULT_BUDGET", "POLICIES", "SearchBot"]
