"""Ratings and comparisons: OpenSkill leaderboard, crosstable, paired results on shared decks, SPRT.

- **Leaderboard**: OpenSkill's Plackett-Luce model over every game, sides
  ranked by the result (winners first, then by score), teams rated as teams
  (with rotating partners a side is two entrants' ratings; with fixed partners
  a side is one entrant). Games are rated in schedule order, never in the
  order they happened to finish, so a resumed tournament gets the same table.
  The conservative rating is ``mu - 3 sigma``.
- **Pairwise score** of A against B in one game where they sat on different
  sides: 1 when A's side won and B's did not, 0 for the reverse, else by the
  scores (0.5 when equal). A forfeit is a loss for the forfeiter.
- **Paired results**: for A and B, the games they played against each other
  on the same deck set (both directions of the same decks) are averaged into
  one number per deck set; the mean of those numbers and its 95% confidence
  interval say how A does against B with the cards' luck cancelled. The
  interval is a win/draw/loss score's (:func:`tricktable.stats.score_interval`):
  Wilson's below 30 deck sets or when every deck set gave the same number,
  Student's t on the deck sets' spread from 30 on, none with one deck set. Two entrants that never met (the
  field of a gauntlet) are compared through common opponents instead: A's
  and B's scores against the same opponent with the same cards.
- **SPRT** (generalised SPRT, normal approximation as in chess-engine
  testing): H0 "A's expected score against B is ``score0``" against H1
  "``score1``"; the log-likelihood ratio over the paired deck-set means is
  ``n (s1 - s0) (2 mean - s0 - s1) / (2 var)``, compared with Wald's bounds
  ``ln(beta / (1 - alpha))`` and ``ln((1 - beta) / alpha)``. It is evaluated
  over deck sets in schedule order and stops at the first that decides.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from tricktable.stats import TOO_FEW, score_interval
from tricktable.tournament.config import SprtSpec
from tricktable.tournament.runner import MatchOutcome
from tricktable.tournament.schedule import MatchSpec

Game = tuple[MatchSpec, MatchOutcome]


def rated(outcome: MatchOutcome) -> bool:
    """Whether a game counts: finished, forfeited or adjudicated (an error has no result)."""
    return outcome.status in ("finished", "forfeit", "adjudicated")


def side_ranks(outcome: MatchOutcome) -> list[float]:
    """OpenSkill ranks of the sides (lower is better): winners 0, the others by score, ties shared."""
    keys = [(0 if i in outcome.winners else 1, -score) for i, score in enumerate(outcome.scores)]
    distinct = sorted(set(keys))
    return [float(distinct.index(k)) for k in keys]


def match_points(spec: MatchSpec, outcome: MatchOutcome) -> dict[str, float]:
    """Points of each entrant in one game: a win 1, a shared win split between the winning sides, else 0."""
    teams = spec.side_entrants()
    points = {name: 0.0 for team in teams for name in team}
    if rated(outcome) and outcome.winners:
        share = 1.0 / len(outcome.winners)
        for side in outcome.winners:
            for name in teams[side]:
                points[name] += share
    return points


def side_of(spec: MatchSpec, name: str) -> int | None:
    """The side ``name`` sat on, or None."""
    for i, team in enumerate(spec.side_entrants()):
        if name in team:
            return i
    return None


def pairwise_score(spec: MatchSpec, outcome: MatchOutcome, a: str, b: str) -> float | None:
    """A's score against B in this game (1, 0.5, 0), or None when they were not opponents or it is unrated."""
    sa, sb = side_of(spec, a), side_of(spec, b)
    if sa is None or sb is None or sa == sb or not rated(outcome):
        return None
    wa, wb = sa in outcome.winners, sb in outcome.winners
    if wa != wb:
        return 1.0 if wa else 0.0
    if outcome.forfeit_by in (a, b):
        return 0.0 if outcome.forfeit_by == a else 1.0
    da, db = outcome.scores[sa], outcome.scores[sb]
    return 1.0 if da > db else 0.0 if da < db else 0.5


# --- leaderboard ---------------------------------------------------------------------


@dataclass(slots=True)
class Standing:
    """One entrant's line of the leaderboard."""

    name: str
    mu: float
    sigma: float
    games: int = 0
    wins: float = 0.0
    forfeits: int = 0
    faults: int = 0
    points_for: int = 0
    points_against: int = 0

    @property
    def conservative(self) -> float:
        """``mu - 3 sigma``: the rating the entrant is very likely above."""
        return self.mu - 3.0 * self.sigma

    @property
    def win_share(self) -> float:
        """Points from :func:`match_points` per game."""
        return self.wins / self.games if self.games else 0.0

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {"name": self.name, "mu": round(self.mu, 4), "sigma": round(self.sigma, 4),
                "conservative": round(self.conservative, 4), "games": self.games, "wins": self.wins,
                "win_share": round(self.win_share, 4), "forfeits": self.forfeits, "faults": self.faults,
                "points_for": self.points_for, "points_against": self.points_against}


def leaderboard(names: Sequence[str], games: Iterable[Game]) -> list[Standing]:
    """OpenSkill Plackett-Luce over ``games`` (taken in the order given: pass them in schedule order).

    Sorted by conservative rating, then mu, then name.
    """
    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    table = {n: Standing(name=n, mu=ratings[n].mu, sigma=ratings[n].sigma) for n in names}
    for spec, outcome in games:
        teams = spec.side_entrants()
        for name, faults in outcome.faults.items():
            if name in table:
                table[name].faults += faults
        if not rated(outcome):
            continue
        points = match_points(spec, outcome)
        for side, team in enumerate(teams):
            for name in team:
                st = table[name]
                st.games += 1
                st.wins += points[name]
                st.points_for += outcome.scores[side]
                st.points_against += sum(s for i, s in enumerate(outcome.scores) if i != side)
        if outcome.forfeit_by is not None:
            table[outcome.forfeit_by].forfeits += 1
        new = model.rate([[ratings[n] for n in team] for team in teams], ranks=side_ranks(outcome))
        for team, rated_team in zip(teams, new, strict=True):
            for name, rating in zip(team, rated_team, strict=True):
                ratings[name] = rating
    for n in names:
        table[n].mu, table[n].sigma = ratings[n].mu, ratings[n].sigma
    return sorted(table.values(), key=lambda s: (-s.conservative, -s.mu, s.name))


# --- pairs -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PairResult:
    """A against B: game counts and the paired (per deck set) mean score with its 95% interval."""

    a: str
    b: str
    games: int
    wins: int
    draws: int
    losses: int
    deck_sets: int
    mean: float
    low: float
    high: float
    #: How the interval was found: ``wilson``, ``t`` or ``too few`` (one deck set: no interval, ``low`` and
    #: ``high`` are the mean).
    interval: str = TOO_FEW
    samples: tuple[float, ...] = field(default=(), repr=False)
    #: ``head-to-head`` (A and B at one table), or ``common opponents`` (never met: A and B each played the
    #: same opponent holding the same cards of the same deck set).
    basis: str = "head-to-head"

    @property
    def score(self) -> float:
        """A's mean pairwise score per game."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    @property
    def too_few(self) -> bool:
        """Fewer than two deck sets: no interval."""
        return self.interval == TOO_FEW

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values; with too few deck sets the interval's bounds are null."""
        return {"a": self.a, "b": self.b, "games": self.games, "wins": self.wins, "draws": self.draws,
                "losses": self.losses, "score": round(self.score, 4), "deck_sets": self.deck_sets,
                "paired_mean": round(self.mean, 4), "ci95_low": None if self.too_few else round(self.low, 4),
                "ci95_high": None if self.too_few else round(self.high, 4), "ci95_method": self.interval,
                "basis": self.basis}


def paired_samples(games: Iterable[Game], a: str, b: str) -> list[float]:
    """A's mean score against B per deck set they shared (schedule order)."""
    by_deck: dict[tuple[int, int], list[float]] = defaultdict(list)
    for spec, outcome in games:
        s = pairwise_score(spec, outcome, a, b)
        if s is not None:
            by_deck[(spec.round, spec.deck_set)].append(s)
    return [statistics.fmean(v) for _, v in sorted(by_deck.items())]


def common_opponent_samples(games: Iterable[Game], a: str, b: str) -> list[float]:
    """For A and B who never met: per deck set, ``(1 + A's score - B's score) / 2`` against the same opponents.

    Only games where A and B held the same cards count: the same deck set, the same side, the same
    opponent (as in duplicate bridge, where pairs never meet but play the same boards). 0.5 means equal.
    """
    held: dict[str, dict[tuple[int, int, str, int], list[float]]] = {a: defaultdict(list), b: defaultdict(list)}
    for spec, outcome in games:
        for me in (a, b):
            side = side_of(spec, me)
            if side is None:
                continue
            for other in set(spec.seats) - {me}:
                score = pairwise_score(spec, outcome, me, other)
                if score is not None:
                    held[me][(spec.round, spec.deck_set, other, side)].append(score)
    by_deck: dict[tuple[int, int], list[float]] = defaultdict(list)
    for key in held[a].keys() & held[b].keys():
        if key[2] in (a, b):
            continue
        diff = statistics.fmean(held[a][key]) - statistics.fmean(held[b][key])
        by_deck[(key[0], key[1])].append((1.0 + diff) / 2.0)
    return [statistics.fmean(v) for _, v in sorted(by_deck.items())]


def pair_result(games: Sequence[Game], a: str, b: str) -> PairResult:
    """A against B over ``games``: head to head when they met, else through common opponents."""
    scores = [s for spec, out in games if (s := pairwise_score(spec, out, a, b)) is not None]
    samples = paired_samples(games, a, b)
    basis = "head-to-head"
    if not samples:
        samples, basis = common_opponent_samples(games, a, b), "common opponents"
    ci = score_interval(samples)
    return PairResult(a=a, b=b, games=len(scores), wins=sum(1 for s in scores if s == 1.0),
                      draws=sum(1 for s in scores if s == 0.5), losses=sum(1 for s in scores if s == 0.0),
                      deck_sets=len(samples), mean=ci.mean, low=ci.low, high=ci.high, interval=ci.method,
                      samples=tuple(samples), basis=basis)


def games_by_entrant(names: Sequence[str], games: Sequence[Game]) -> dict[str, list[Game]]:
    """Each entrant's games (so that a pair looks only at the games of its two entrants)."""
    out: dict[str, list[Game]] = {n: [] for n in names}
    for game in games:
        for name in set(game[0].seats):
            if name in out:
                out[name].append(game)
    return out


def pair_games(index: Mapping[str, list[Game]], a: str, b: str) -> list[Game]:
    """The games of A or B, in the order of the index, each once."""
    seen: set[str] = set()
    out: list[Game] = []
    for game in (*index[a], *index[b]):
        if game[0].match_id not in seen:
            seen.add(game[0].match_id)
            out.append(game)
    return out


def crosstable(names: Sequence[str], games: Sequence[Game]) -> dict[str, dict[str, PairResult]]:
    """``table[a][b]``: A against B, for every two entrants that met."""
    index = games_by_entrant(names, games)
    out: dict[str, dict[str, PairResult]] = {n: {} for n in names}
    for a in names:
        for b in names:
            if a != b:
                met = [g for g in index[a] if b in g[0].seats]
                result = pair_result(met, a, b)
                if result.games:
                    out[a][b] = result
    return out


# --- SPRT --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class SprtState:
    """Where the test stands: ``decision`` is ``"H1"`` (A is stronger), ``"H0"`` or None (go on)."""

    a: str
    b: str
    llr: float
    lower: float
    upper: float
    samples: int
    decision: str | None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {"a": self.a, "b": self.b, "llr": round(self.llr, 4), "lower": round(self.lower, 4),
                "upper": round(self.upper, 4), "deck_sets": self.samples, "decision": self.decision}


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the log-likelihood ratio."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_llr(samples: Sequence[float], score0: float, score1: float) -> float:
    """Generalised SPRT log-likelihood ratio of H1 (``score1``) over H0 (``score0``), normal approximation."""
    n = len(samples)
    if n < 2:
        return 0.0
    mean = statistics.fmean(samples)
    var = statistics.pvariance(samples)
    var = max(var, 1e-4)  # a run of identical samples must not divide by zero
    return n * (score1 - score0) * (2.0 * mean - score0 - score1) / (2.0 * var)


def sprt(samples: Sequence[float], spec: SprtSpec) -> SprtState:
    """Run the test over ``samples`` in order and stop at the first prefix that decides (one pass)."""
    lower, upper = sprt_bounds(spec.alpha, spec.beta)
    s0, s1 = spec.score0, spec.score1
    llr = 0.0
    total = squares = 0.0
    for index, x in enumerate(samples):
        total += x
        squares += x * x
        n = index + 1
        if n < 2:
            continue
        mean = total / n
        var = max(squares / n - mean * mean, 1e-4)  # as sprt_llr, from running sums
        llr = n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
        if llr >= upper:
            return SprtState(a=spec.a, b=spec.b, llr=llr, lower=lower, upper=upper, samples=n, decision="H1")
        if llr <= lower:
            return SprtState(a=spec.a, b=spec.b, llr=llr, lower=lower, upper=upper, samples=n, decision="H0")
    return SprtState(a=spec.a, b=spec.b, llr=llr, lower=lower, upper=upper, samples=len(samples), decision=None)


def sprt_from_games(games: Sequence[Game], spec: SprtSpec, complete: Mapping[tuple[int, int], bool] | None = None
                    ) -> SprtState:
    """The SPRT over the paired samples of ``spec.a`` against ``spec.b``.

    With ``complete`` (deck set -> every game of it stored), only the leading
    run of complete deck sets counts, so the decision never depends on which
    games happened to finish first.
    """
    if complete is not None:
        keys = sorted(complete)
        prefix: set[tuple[int, int]] = set()
        for key in keys:
            if not complete[key]:
                break
            prefix.add(key)
        games = [g for g in games if (g[0].round, g[0].deck_set) in prefix]
    return sprt(sprt_samples(games, spec.a, spec.b), spec)


def sprt_samples(games: Sequence[Game], a: str, b: str) -> list[float]:
    """The samples the SPRT weighs: head to head, else through common opponents (as :func:`pair_result`)."""
    return paired_samples(games, a, b) or common_opponent_samples(games, a, b)
