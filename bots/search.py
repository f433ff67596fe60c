"""The search bot: determinized Monte Carlo on the fast path, for every game.

For each decision the bot

1. samples *worlds*, whole deals consistent with everything the seat has
   seen (:class:`rules.determinize.DealSampler`: its hand, cards played,
   voids shown, the turn-up, who robbed, the kitty and discards for the
   declarer; in Cinq Cents hands that fit the bids, :mod:`bots.bid_fit`),
   each replayed on the fast path (:mod:`rules.fast`);
2. tries every candidate action in each world and plays the deal out with
   the greedy policy (:mod:`bots.playout`: lead high, win cheaply, play low
   under a partner) instead of the plain PIMC bot's random cards, at
   nearly the same cost;
3. scores the outcome for its side: the deal's points for the side minus
   the best other side's, plus a bonus when the deal ends the match with the
   side winning (or losing);
4. repeats with new worlds until the budget is spent and returns the action
   with the best mean. Every action is tried in the same worlds, so the
   comparison is paired and the noise of the deal cancels.

Every decision the fast path knows goes through the same search: cards,
the burial of a rob (a rob offered is always taken: each refusal cost 7-9
points a pair in issue 15's measurements), the Forty-Five jink, All Fives'
stand, beg, gift and run. On the fast path a decision sees about 3,000
worlds per CPU second (the readable engine with heuristic playouts saw
about 500).

The budget is either time (``budget`` seconds per decision, default 0.1) or,
for reproducible tests and ladders, a number of worlds (``simulations``).
The generator is a private ``random.Random`` seeded from the bot's seed and
the decision's public context, so with ``simulations`` set the same view
always gets the same answer, whatever was asked before.

In Cinq Cents the bids are searched on the readable engine
(:mod:`bots.search_bids`): in each world, passing and each plausible bid
are played out, the rest of the auction by the heuristic bidder and the
play by the heuristic, and the bot bids what gains most over passing by a
margin the noise cannot explain. A bid decision draws ``bid_worlds`` worlds
(default 20), or takes three decision budgets in time mode. The declarer's
discard is searched among a few candidates (the heuristic's, and each one
that voids a plain suit) the same way.
"""

from __future__ import annotations

import time
from dataclasses import replace

from bots import heuristic
from bots.bid_fit import bid_fit
from bots.fast_worlds import (
    DEFAULT_BUDGET,
    FastPlayout,
    WorldSearcher,
    WorldStream,
    action_totals,
    decision_rng,
    random_playout,
    win_bonus,
)
from bots.playout import greedy_playout
from bots.search_bids import Finish, choose_bid, choose_discard
from client_sdk.bot import AnnotatedAction, Choice
from rules.actions import Action, Discard, Pass, Play
from rules.game import DealState, SeatView, Trick

#: Cinq Cents: worlds a bid decision draws with a simulation count (the bid is worth most of a deal's points).
BID_WORLDS = 20
#: Cinq Cents: worlds a bid decision draws at most in time-budget mode.
BID_WORLDS_TIMED = 64
#: Cinq Cents: a bid decision's time is this many decision budgets (it comes once a deal and decides the most).
BID_BUDGET_FACTOR = 3
#: Cinq Cents: fewer worlds than this and the bid is the heuristic's (the best of a few noisy estimates overbids).
MIN_BID_WORLDS = 12
#: Cinq Cents: worlds a discard decision draws in time-budget mode.
DISCARD_WORLDS_TIMED = 8


class Playout:
    """A deal played out from a world, keeping each seat's view up to date cheaply.

    The engine's ``view()`` rebuilds the whole public history at every call;
    a playout needs only hands and tricks, so it reads them once from the
    engine, then follows the plays itself. Any other action (a rob, a run of
    the pack) re-reads them from the engine.
    """

    def __init__(self, state: DealState, scores: tuple[int, ...]) -> None:
        self.state = state
        self.scores = scores
        self._sync()

    def _sync(self) -> None:
        state = self.state
        first = state.view(0, self.scores)
        views = [first, *(state.view(s, self.scores) for s in range(1, first.players))]
        self.base = first
        self.hands = [list(v.hand) for v in views]
        self.discards = [v.discards for v in views]
        self.tricks = list(self.base.tricks)
        current = self.base.current_trick
        self.current = current if current is not None else None

    def copy(self) -> Playout:
        """An independent copy (the state is immutable; hands and tricks are copied)."""
        twin = object.__new__(Playout)
        twin.state, twin.scores, twin.base = self.state, self.scores, self.base
        twin.hands = [list(h) for h in self.hands]
        twin.discards, twin.tricks, twin.current = self.discards, list(self.tricks), self.current
        return twin

    def view(self, seat: int) -> SeatView:
        """What ``seat`` would see now (history left out: no policy here reads it)."""
        b = self.base
        state = self.state
        return SeatView(
            game=b.game, options=b.options, seat=seat, players=b.players, sides=b.sides,
            deal_number=b.deal_number, dealer=b.dealer, hand=tuple(self.hands[seat]), to_act=seat,
            legal_actions=tuple(state.legal_actions()), deal_points=state.points,
            scores=tuple(x + y for x, y in zip(self.scores, state.points, strict=True)),
            trump=b.trump, no_trump=b.no_trump, turn_up=b.turn_up, exposed=b.exposed,
            current_trick=self.current, tricks=tuple(self.tricks), robbed_by=b.robbed_by, contract=b.contract,
            discards=self.discards[seat], hand_sizes=tuple(len(h) for h in self.hands),
        )

    def apply(self, action: Action, seat: int) -> None:
        """Apply ``action`` by ``seat`` and follow what it did to hands and tricks."""
        self.state = self.state.apply(action, seat)
        if not isinstance(action, Play):
            self._sync()
            return
        self.hands[seat].remove(action.card)
        current = self.current
        if current is None or not current.cards or len(current.cards) == self.base.players:
            current = Trick(leader=seat, cards=(), named_suit=action.suit)
        current = replace(current, cards=(*current.cards, action.card))
        if len(current.cards) == self.base.players:
            winner = self.state.to_act
            self.tricks.append(replace(current, winner=winner))
            self.current = None
        else:
            self.current = current


def heuristic_finish(playout: Playout) -> DealState:
    """Play a readable deal out with the heuristic bot at every seat; the final state."""
    while (seat := playout.state.to_act) is not None:  # None once the deal is over
        playout.apply(heuristic.choose_action(playout.view(seat)), seat)
    return playout.state


#: Playouts on the fast path by name.
POLICIES: dict[str, FastPlayout] = {"greedy": greedy_playout, "random": random_playout}


class SearchBot(WorldSearcher):
    """Determinized Monte Carlo search on the fast path (see the module docstring).

    Args:
        seed: seeds the bot's generators (with the decision's public context).
        simulations: worlds per decision; ``None`` to search for ``budget`` seconds instead.
        budget: seconds per decision when ``simulations`` is None.
        playout: ``"greedy"`` (:mod:`bots.playout`) or ``"random"``.
        win_bonus: value of ending the match as a winner, in deal points (a loss counts the negative).
        bid_search: Cinq Cents bids by simulation (:mod:`bots.search_bids`); off: the heuristic's bids.
        bid_worlds: worlds per Cinq Cents bid decision when ``simulations`` is set.
    """

    name = "search"

    def __init__(self, seed: int | str | None = None, *, simulations: int | None = None,
                 budget: float = DEFAULT_BUDGET, playout: str = "greedy",
                 win_bonus: float | None = None, bid_search: bool = True, bid_worlds: int = BID_WORLDS) -> None:
        if playout not in POLICIES:
            raise ValueError(f"unknown playout policy {playout!r} (policies: {', '.join(POLICIES)})")
        if bid_worlds < 2:
            raise ValueError("bid_worlds must be at least 2 (a bid is judged on the spread of its gains)")
        super().__init__(seed, simulations, budget)
        self.policy = POLICIES[playout]
        self.win_bonus = win_bonus
        self.bid_search = bid_search
        self.bid_worlds = bid_worlds

    def choose_action(self, view: SeatView) -> Choice:
        """The action with the best mean outcome over sampled worlds, annotated with what the search saw.

        A searched card or decision (rob, jink, stand, beg, gift, run) comes
        as an :class:`AnnotatedAction`: the worlds searched and the mean value
        of each candidate by action id (the server keeps the note secret until
        the table ends, then writes it into the record). Cinq Cents bids and
        discards, searched by :mod:`bots.search_bids`, come bare.

        Raises:
            ValueError: the view has no legal action.
        """
        legal = self._start(view)
        if len(legal) == 1:
            return legal[0]
        rng = decision_rng(self.seed, view)
        if self.bid_search and any(isinstance(a, Pass) for a in legal):
            timed = self.simulations is None
            bid, self.last_worlds = choose_bid(view, rng, BID_WORLDS_TIMED if timed else self.bid_worlds,
                                               self._finisher(view),
                                               time.monotonic() + BID_BUDGET_FACTOR * self.budget if timed else None,
                                               min_worlds=MIN_BID_WORLDS if timed else 1)
            self.total_worlds += self.last_worlds
            return bid if bid is not None else heuristic.choose_action(view)
        if any(isinstance(a, Discard) for a in legal):
            discard, self.last_worlds = choose_discard(view, rng, self.simulations or DISCARD_WORLDS_TIMED,
                                                       self._finisher(view))
            self.total_worlds += self.last_worlds
            return discard if discard is not None else heuristic.choose_action(view)
        if any(isinstance(a, Pass) for a in legal):
            return heuristic.choose_action(view)
        bonus = self.win_bonus if self.win_bonus is not None else win_bonus(view.game)
        return self._noted(self._decide(view, rng, self.policy, bonus, fit=bid_fit(view)), "search")

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
        worlds = WorldStream(view, decision_rng(self.seed, view), self.simulations, self.budget, fit=bid_fit(view))
        bonus = self.win_bonus if self.win_bonus is not None else win_bonus(view.game)
        totals = action_totals(view, legal, worlds, self.policy, bonus)
        self.last_worlds, self.last_rejected = worlds.drawn, worlds.failed
        self.total_worlds += worlds.drawn
        if not worlds.drawn:
            return None
        return {action: total / worlds.drawn for action, total in zip(legal, totals, strict=True)}

    def _finisher(self, view: SeatView) -> Finish:
        """Plays a simulated deal of ``view``'s deal out with the heuristic (for Cinq Cents bids and discards)."""
        scores = tuple(a - b for a, b in zip(view.scores, view.deal_points, strict=True))
        return lambda state: heuristic_finish(Playout(state, scores))


__all__ = ["DEFAULT_BUDGET", "POLICIES", "Playout", "SearchBot", "heuristic_finish"]
