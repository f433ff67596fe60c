"""The strength ladder: random < heuristic < plain PIMC < search, measured on duplicate deals.

Card luck dominates these games, so two bots are compared on *duplicate*
pairs of matches: both matches of a pair use the same seed, hence the same
first dealer and the same deck for every deal, with the bots' sides swapped
in the second. Whatever the cards favour, each bot gets it once.

For each pair of bots (A vs B) and each duplicate pair ``k`` the ladder
records A's share of the points, ``0.5 + (a - b) / (2 (|a| + |b|))`` where
``a`` and ``b`` are the two bots' final scores summed over both matches (just
``a / (a + b)`` when no score is negative; Cinq Cents scores can be), and
A's share of the games won (1 for a win, 0.5 for a shared win or a match cut
at the deal limit and tied). The reported value is the mean over pairs with a
95% confidence interval, the pair being the unit of sampling, so the interval
is paired by deck (:mod:`tricktable.stats` says which interval and why): the
points share's is mean +- t standard errors (Student's t with pairs - 1
degrees of freedom); the games share, a score of wins, draws and losses, has
Wilson's below 30 pairs and t's from 30 on; either is Wilson's when every pair
gave the same share, and one pair is too few for an interval.

Matches run in-process (no server): a bot sees exactly the
:class:`tricktable.rules.game.SeatView` it would get through the SDK.

Pair ``i`` is played on the seed ``f"{seed}|{game}|{i}"``, so pairs are
independent: :func:`run_pair` can skip the pairs a stopped run already
played, hand each new one to its caller the moment it ends (to keep it in a
results file, :mod:`tricktable.bots.ladder_results`) and start none after a
time set beforehand.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, cast

from tricktable.bots.heuristic import HeuristicBot
from tricktable.bots.pimc import PimcBot
from tricktable.bots.random_bot import RandomBot
from tricktable.bots.search import DEFAULT_BUDGET, SearchBot
from tricktable.client_sdk.bot import BotFault, Choice, action_of
from tricktable.rules.actions import Action
from tricktable.rules.game import SeatView
from tricktable.rules.match import MAX_DEALS, Match, play_out
from tricktable.rules.registry import new_match
from tricktable.stats import STUDENT_T, TOO_FEW, Interval, score_interval, share_interval

#: The ladder's steps, weaker bot first (and the search against the heuristic, the step before the yardstick).
STEPS: tuple[tuple[str, str], ...] = (("random", "heuristic"), ("heuristic", "pimc"), ("pimc", "search"),
                                     ("heuristic", "search"))


class Chooser(Protocol):
    """Anything with ``choose_action(view)``; the ladder's bots are synchronous."""

    def choose_action(self, view: SeatView) -> Choice: ...


@dataclass(frozen=True, slots=True)
class BotSpec:
    """How to build a ladder bot in any process: its name and the settings of the searching bots."""

    name: str
    simulations: int | None = None
    budget: float = DEFAULT_BUDGET
    #: Search: how a world is played out (None: the game's own, its definition's ``bots.playout``).
    playout: str | None = None
    bid_search: bool = True
    #: Search: cards left in all hands from which a world is solved exactly (None: the game's default).
    solve_at: int | None = None
    #: PIMC and search in time mode: the clock the budget runs on (``"cpu"``: the same worlds under any load).
    clock: str = "wall"

    def build(self, seed: str) -> Chooser:
        """A fresh bot seeded with ``seed``.

        Raises:
            BotSpecError: for a spec that names no bot.
        """
        bot: Chooser
        if self.name == "random":
            bot = RandomBot(seed)
        elif self.name == "heuristic":
            bot = HeuristicBot()
        elif self.name == "pimc":
            bot = PimcBot(seed, simulations=self.simulations, budget=self.budget, clock=self.clock)
        elif self.name == "search":
            bot = SearchBot(seed, simulations=self.simulations, budget=self.budget, playout=self.playout,
                            bid_search=self.bid_search, solve_at=self.solve_at, clock=self.clock)
        else:  # any other bot spec (built-in or the author's own), through the one resolver
            from tricktable.bots import make_bot

            bot = cast(Chooser, make_bot(self.name, seed))  # the ladder's loop is synchronous
        return bot


def play_match(game: str, options: dict[str, Any], seed: str, bots: Sequence[Chooser],
               *, max_deals: int = MAX_DEALS) -> Match:
    """Play one match in-process, seat ``s`` choosing with ``bots[s]``."""

    def choose(state: Match, seat: int) -> Action:
        try:
            return action_of(bots[seat].choose_action(state.view(seat)))
        except BotFault as fault:  # a program or a URL that did not answer: the server's default plays, as there
            return fault.fallback

    match = play_out(new_match(game, options, seed=seed), choose, max_deals=max_deals)
    return match if match.is_over else match.abort(f"ladder deal limit reached ({max_deals} deals)")


@dataclass(frozen=True, slots=True)
class Effort:
    """Decisions a bot made, the CPU and wall seconds they took, and the worlds a searching bot drew for them.

    CPU time is ``time.process_time`` (this process only), wall time
    ``time.perf_counter``: in time mode a bot's budget is wall time (unless
    its spec's clock is ``"cpu"``), so on a loaded machine its CPU per
    decision falls below the budget and the two side by side show how much
    of it the bot got. Worlds are the bot's
    ``last_worlds`` after each decision (0 for bots that draw none). These
    are measurements, not outcomes: two runs of the same ladder compare equal
    without them.
    """

    decisions: int = 0
    cpu: float = field(default=0.0, compare=False)
    wall: float = field(default=0.0, compare=False)
    worlds: int = field(default=0, compare=False)

    def __add__(self, other: Effort) -> Effort:
        return Effort(self.decisions + other.decisions, self.cpu + other.cpu, self.wall + other.wall,
                      self.worlds + other.worlds)

    def per_decision_ms(self) -> float:
        """CPU milliseconds per decision (0 before any decision)."""
        return 1000 * self.cpu / self.decisions if self.decisions else 0.0

    def wall_per_decision_ms(self) -> float:
        """Wall-clock milliseconds per decision (0 before any decision)."""
        return 1000 * self.wall / self.decisions if self.decisions else 0.0

    def worlds_per_decision(self) -> float:
        """Worlds drawn per decision, over all of the bot's decisions (0 before any decision)."""
        return self.worlds / self.decisions if self.decisions else 0.0

    def __str__(self) -> str:
        ms = self.per_decision_ms()
        rate = f"{1000 / ms:,.0f}/s" if ms > 0 else "-"
        worlds = f", {self.worlds_per_decision():.0f} worlds" if self.worlds else ""
        return f"{ms:.2f} ms ({rate}), wall {self.wall_per_decision_ms():.2f} ms{worlds}"


class Timed:
    """A bot that counts its decisions, their CPU and wall time and its worlds into an :class:`Effort` tally."""

    def __init__(self, bot: Chooser) -> None:
        self.bot = bot
        self.effort = Effort()

    def choose_action(self, view: SeatView) -> Choice:
        """The wrapped bot's choice, timed."""
        cpu, wall = time.process_time(), time.perf_counter()
        action = self.bot.choose_action(view)
        self.effort = self.effort + Effort(1, time.process_time() - cpu, time.perf_counter() - wall,
                                           getattr(self.bot, "last_worlds", 0))
        return action


@dataclass(frozen=True, slots=True)
class PairOutcome:
    """One duplicate pair: A's share of points and of games, the deals played, and each bot's effort.

    ``index`` is the pair's place in its run (its decks' seed is
    ``f"{seed}|{game}|{index}"``), so pairs that end out of order, or in
    several runs of a stopped ladder, still add up to the same ladder. The
    fields after it are measurements of the run, not outcomes: two runs of
    the same ladder compare equal without them.
    """

    points: float
    games: float
    deals: int
    a_effort: Effort = Effort()
    b_effort: Effort = Effort()
    index: int = 0
    #: CPU seconds of the process that played the pair (engine and both bots), and the pair's wall seconds.
    cpu: float = field(default=0.0, compare=False)
    wall: float = field(default=0.0, compare=False)
    #: The machine's one-minute load average when the pair ended (None where the system has none).
    load: float | None = field(default=None, compare=False)
    #: Unix times: when the run that played the pair started, and when the pair ended.
    started: float = field(default=0.0, compare=False)
    ended: float = field(default=0.0, compare=False)


def duplicate_pair(game: str, options: dict[str, Any], seed: str, a: BotSpec, b: BotSpec) -> PairOutcome:
    """Play the two matches of one duplicate pair (A on the even sides, then on the odd ones)."""
    a_points = b_points = 0
    a_games = 0.0
    deals = 0
    efforts = {True: Effort(), False: Effort()}
    for swap in (False, True):
        probe = new_match(game, options, seed=seed)
        sides = probe.config.sides
        a_sides = [k for k in range(len(sides)) if (k % 2 == 0) != swap]
        bots: list[Timed] = []
        for seat in range(probe.config.players):
            side = next(k for k, members in enumerate(sides) if seat in members)
            spec = a if side in a_sides else b
            bots.append(Timed(spec.build(f"{seed}|{spec.name}|{seat}|{swap}")))
        match = play_match(game, options, seed, bots)
        for seat, bot in enumerate(bots):
            is_a = next(k for k, members in enumerate(sides) if seat in members) in a_sides
            efforts[is_a] = efforts[is_a] + bot.effort
        scores = match.scores
        a_points += sum(scores[k] for k in a_sides)
        b_points += sum(scores[k] for k in range(len(sides)) if k not in a_sides)
        a_games += _game_share(match, a_sides)
        deals += len(match.finished)
    total = abs(a_points) + abs(b_points)
    points = 0.5 if total == 0 else 0.5 + (a_points - b_points) / (2 * total)
    return PairOutcome(points=points, games=a_games / 2, deals=deals, a_effort=efforts[True],
                       b_effort=efforts[False])


def _game_share(match: Match, a_sides: list[int]) -> float:
    result = match.final_result
    if result.status != "finished":
        scores = result.scores
        a = max(scores[k] for k in a_sides)
        b = max(s for k, s in enumerate(scores) if k not in a_sides)
        return 1.0 if a > b else 0.0 if a < b else 0.5
    winners = set(result.winners)
    if not winners:
        return 0.5
    mine = len(winners & set(a_sides))
    return mine / len(winners)


@dataclass(frozen=True, slots=True)
class Estimate:
    """A share with its 95% confidence interval (:mod:`tricktable.stats`).

    With fewer than two pairs there is no interval: ``low`` and ``high`` are
    the mean and :attr:`too_few` is true, so no step can be said to hold.
    """

    mean: float
    low: float
    high: float
    #: How the interval was found: ``t``, ``wilson`` or ``too few`` (:mod:`tricktable.stats`).
    method: str = STUDENT_T

    @property
    def too_few(self) -> bool:
        """Fewer than two pairs: no interval."""
        return self.method == TOO_FEW

    @classmethod
    def of(cls, interval: Interval) -> Estimate:
        """The estimate of an interval of :mod:`tricktable.stats`."""
        return cls(interval.mean, interval.low, interval.high, method=interval.method)

    @classmethod
    def of_points(cls, shares: Sequence[float]) -> Estimate:
        """The mean points share over pairs and its interval (t; Wilson when every pair's share is the same)."""
        return cls.of(share_interval(shares))

    @classmethod
    def of_games(cls, shares: Sequence[float]) -> Estimate:
        """The mean share of the games won over pairs and its interval (a win/draw/loss score's)."""
        return cls.of(score_interval(shares))

    def __str__(self) -> str:
        if self.too_few:
            return f"{100 * self.mean:.1f}% (too few pairs for an interval)"
        return f"{100 * self.mean:.1f}% [{100 * self.low:.1f}, {100 * self.high:.1f}]"


@dataclass(frozen=True, slots=True)
class PairResult:
    """The ladder's verdict on one pair: the stronger bot's (B's) share against A."""

    game: str
    weaker: str
    stronger: str
    pairs: int
    deals: int
    points: Estimate
    games: Estimate
    seconds: float
    outcomes: tuple[PairOutcome, ...] = field(default=(), repr=False)
    #: The run reached the stop time set before it started (``--until``) before all its pairs were played.
    stopped: bool = False

    @classmethod
    def of(cls, game: str, weaker: str, stronger: str, outcomes: Sequence[PairOutcome], *,
           stopped: bool = False) -> PairResult:
        """The verdict on these pairs (in index order), however many runs played them.

        ``seconds`` is the wall time of the runs that played them: for each
        run, from its start to its last pair's end, summed over the runs.
        """
        ordered = tuple(sorted(outcomes, key=lambda o: o.index))
        ends: dict[float, float] = {}
        for o in ordered:
            ends[o.started] = max(ends.get(o.started, o.started), o.ended)
        return cls(
            game=game, weaker=weaker, stronger=stronger, pairs=len(ordered), deals=sum(o.deals for o in ordered),
            points=Estimate.of_points([o.points for o in ordered]), games=Estimate.of_games([o.games for o in ordered]),
            seconds=sum(end - start for start, end in ends.items()), outcomes=ordered, stopped=stopped,
        )

    @property
    def cpu_seconds(self) -> float:
        """CPU seconds of the processes that played the pairs, engine and bots."""
        return sum(o.cpu for o in self.outcomes)

    @property
    def load_range(self) -> tuple[float, float] | None:
        """The lowest and highest one-minute load average at the pairs' ends (None without any)."""
        loads = [o.load for o in self.outcomes if o.load is not None]
        return (min(loads), max(loads)) if loads else None

    @property
    def stronger_effort(self) -> Effort:
        """The stronger bot's decisions and CPU time over every pair."""
        return sum((o.a_effort for o in self.outcomes), Effort())

    @property
    def weaker_effort(self) -> Effort:
        """The weaker bot's decisions and CPU time over every pair."""
        return sum((o.b_effort for o in self.outcomes), Effort())

    @property
    def holds(self) -> bool:
        """Both intervals lie above 50%: the stronger bot is measurably stronger."""
        return not self.points.too_few and self.points.low > 0.5 and self.games.low > 0.5


def _one(task: tuple[str, dict[str, Any], str, BotSpec, BotSpec, int]) -> PairOutcome:
    game, options, seed, a, b, index = task
    cpu, wall = time.process_time(), time.perf_counter()
    outcome = duplicate_pair(game, options, seed, a, b)
    return replace(outcome, index=index, cpu=time.process_time() - cpu, wall=time.perf_counter() - wall)


def load_average() -> float | None:
    """The machine's one-minute load average, or None where the system keeps none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def run_pair(game: str, weaker: BotSpec, stronger: BotSpec, pairs: int, *, options: dict[str, Any] | None = None,
             workers: int = 1, seed: str = "ladder",
             progress: Callable[[int], None] | None = None, done: Sequence[PairOutcome] = (),
             on_outcome: Callable[[PairOutcome], None] | None = None, stop_at: float | None = None,
             clock: Callable[[], float] = time.time) -> PairResult:
    """Play ``pairs`` duplicate pairs of ``stronger`` against ``weaker``; shares are the stronger bot's.

    Pairs already in ``done`` (by index) are not played again: their
    outcomes join the new ones, so a stopped run resumes where it was.
    ``on_outcome`` hears each new pair the moment it ends (with
    ``workers`` > 1, out of index order), so a caller can keep it before the
    next one. No pair starts once ``clock()`` reaches ``stop_at`` (Unix
    time): the pairs under way finish, and the result says it was stopped.
    """
    opts = dict(options or {})
    have = {o.index for o in done}
    todo: Iterator[int] = iter([i for i in range(pairs) if i not in have])
    started = clock()
    played: list[PairOutcome] = []

    def next_task() -> tuple[str, dict[str, Any], str, BotSpec, BotSpec, int] | None:
        if stop_at is not None and clock() >= stop_at:
            return None
        i = next(todo, None)
        return None if i is None else (game, opts, f"{seed}|{game}|{i}", stronger, weaker, i)

    def finished(outcome: PairOutcome) -> None:
        outcome = replace(outcome, started=started, ended=clock(), load=load_average())
        played.append(outcome)
        if on_outcome:
            on_outcome(outcome)
        if progress:
            progress(len(done) + len(played))

    if workers <= 1:
        while (task := next_task()) is not None:
            finished(_one(task))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            running: set[Future[PairOutcome]] = set()
            while True:
                while len(running) < workers and (task := next_task()) is not None:
                    running.add(pool.submit(_one, task))
                if not running:
                    break
                ended, running = wait(running, return_when=FIRST_COMPLETED)
                for future in ended:
                    finished(future.result())
    outcomes = [*done, *played]
    reached = {o.index for o in outcomes}
    return PairResult.of(game, weaker.name, stronger.name, outcomes,
                         stopped=any(i not in reached for i in range(pairs)))


def table(results: Sequence[PairResult]) -> str:
    """The results as a Markdown table (the README's)."""
    lines = [
        "| game | pair (stronger vs weaker) | duplicate pairs | deals | points share [95% CI] "
        "| games won [95% CI] | step holds | per decision: CPU (decisions per CPU second), wall, worlds; "
        "stronger / weaker | CPU s (wall s), load |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        pairs = f"{r.pairs}, stopped at a time set beforehand" if r.stopped else f"{r.pairs}"
        load = "" if r.load_range is None else f", {r.load_range[0]:.1f}-{r.load_range[1]:.1f}"
        lines.append(
            f"| {r.game} | {r.stronger} vs {r.weaker} | {pairs} | {r.deals} | {r.points} | {r.games} "
            f"| {'yes' if r.holds else 'no'} | {r.stronger_effort} / {r.weaker_effort} "
            f"| {r.cpu_seconds:.0f} ({r.seconds:.0f}){load} |"
        )
    return "\n".join(lines)


__all__ = ["STEPS", "BotSpec", "Effort", "Estimate", "PairOutcome", "PairResult", "duplicate_pair",
           "load_average", "play_match", "run_pair", "table"]
