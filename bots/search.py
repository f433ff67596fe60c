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

In Cinq Cents the bids are searched too (:mod:`bots.search_bids`): in each
world, passing and each plausible bid are played out, the rest of the
auction by the heuristic bidder, and the bot bids what gains most over
passing by a margin the noise cannot explain. A bid decision draws
``bid_worlds`` worlds (default 20), or takes three decision budgets in time
mode. The declarer's discard is searched among a few candidates (the
heuristic's, and each one that voids a plain suit). The Forty-Five jink is
left to the heuristic bot.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import replace

from bots import heuristic
from bots.determinize import WorldSampler
from bots.search_bids import Finish, choose_bid, choose_discard
from rules.actions import Action, Bid, Discard, Jink, Pass, PassJink, Play
from rules.game import DealState, SeatView, Trick
from rules.registry import game_rules

#: Playout policies by name: given the playout, the seat to act and a generator, an action.
Policy = Callable[["Playout", int, random.Random], Action]

#: Default time per decision, in seconds.
DEFAULT_BUDGET = 0.1
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
#: Draws that may fail (a world contradicting the history) before the search gives up on a decision.
MAX_FAILED_DRAWS = 200


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


def heuristic_policy(playout: Playout, seat: int, rng: random.Random) -> Action:
    """The heuristic bot's choice, from the seat's view of the simulated deal."""
    return heuristic.choose_action(playout.view(seat))


def random_policy(playout: Playout, seat: int, rng: random.Random) -> Action:
    """A uniformly random card; any other decision (rob, jink, bid) by the heuristic."""
    legal = playout.state.legal_actions()
    if all(isinstance(a, Play) for a in legal):
        return rng.choice(legal)
    return heuristic.choose_action(playout.view(seat))


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
        bid_search: Cinq Cents bids by simulation (:mod:`bots.search_bids`); off: the heuristic's bids.
        bid_worlds: worlds per Cinq Cents bid decision when ``simulations`` is set.
    """

    name = "search"

    def __init__(self, seed: int | str | None = None, *, simulations: int | None = None,
                 budget: float = DEFAULT_BUDGET, playout: str = "heuristic",
                 win_bonus: float | None = None, bid_search: bool = True, bid_worlds: int = BID_WORLDS) -> None:
        if playout not in POLICIES:
            raise ValueError(f"unknown playout policy {playout!r} (policies: {', '.join(POLICIES)})")
        if simulations is not None and simulations < 1:
            raise ValueError("simulations must be at least 1")
        if bid_worlds < 2:
            raise ValueError("bid_worlds must be at least 2 (a bid is judged on the spread of its gains)")
        self.seed = seed
        self.simulations = simulations
        self.budget = budget
        self.policy = POLICIES[playout]
        self.win_bonus = win_bonus
        self.bid_search = bid_search
        self.bid_worlds = bid_worlds
        #: Worlds searched and draws rejected at the last decision (for tests and tuning).
        self.last_worlds = 0
        self.last_rejected = 0
        #: Worlds searched over the bot's life.
        self.total_worlds = 0

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
        rng = random.Random(f"{self.seed}|{view.game}|{view.deal_number}|{view.seat}|{view.scores}|"
                            f"{len(view.history)}|{[c.code for c in view.hand]}")
        if self.bid_search and view.game == "cinq_cents" and any(isinstance(a, Pass) for a in legal):
            timed = self.simulations is None
            bid, self.last_worlds = choose_bid(view, rng, BID_WORLDS_TIMED if timed else self.bid_worlds,
                                               self._finisher(view, rng),
                                               time.monotonic() + BID_BUDGET_FACTOR * self.budget if timed else None,
                                               min_worlds=MIN_BID_WORLDS if timed else 1)
            self.total_worlds += self.last_worlds
            return bid if bid is not None else heuristic.choose_action(view)
        if any(isinstance(a, Discard) for a in legal):
            discard, self.last_worlds = choose_discard(view, rng, self.simulations or DISCARD_WORLDS_TIMED,
                                                       self._finisher(view, rng))
            self.total_worlds += self.last_worlds
            return discard if discard is not None else heuristic.choose_action(view)
        if _delegated(legal):
            return heuristic.choose_action(view)
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
            start = Playout(world, sampler.scores_before)
            for i, action in enumerate(legal):
                playout = start.copy()
                playout.apply(action, view.seat)
                totals[i] += self._playout(playout, sampler, rng)
        self.last_worlds, self.last_rejected = worlds, failed
        self.total_worlds += worlds
        if worlds == 0:
            return heuristic.choose_action(view)
        best = max(range(len(legal)), key=lambda i: (totals[i], -i))
        return legal[best]

    def _finisher(self, view: SeatView, rng: random.Random) -> Finish:
        """Plays a simulated deal of ``view``'s deal out with the playout policy (for bids and discards)."""
        scores = tuple(a - b for a, b in zip(view.scores, view.deal_points, strict=True))
        return lambda state: self._run(Playout(state, scores), rng)

    def _run(self, playout: Playout, rng: random.Random) -> DealState:
        """Play the deal out with the playout policy; the final state."""
        while not playout.state.is_over:
            seat = playout.state.to_act
            assert seat is not None
            playout.apply(self.policy(playout, seat, rng), seat)
        return playout.state

    def _playout(self, playout: Playout, sampler: WorldSampler, rng: random.Random) -> float:
        return self._value(self._run(playout, rng), sampler)

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
