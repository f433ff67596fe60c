"""Analysis of a recorded game: a seat's decisions, each valued by an analysing bot from that seat's view.

For each decision of the seat with a real choice (more than one legal
action), the record is replayed to that point with the rules engine and the
analyser is shown ``match.view(seat)``: exactly what the seat knew, never
the other hands. The analyser estimates the value of every legal action
(:class:`Estimator`); the analysis keeps the value of the action played, the
analyser's own choice and its value, and the *loss*, the difference. A loss
above ``threshold`` flags the decision as costly; losses are totalled per
deal.

Values are in the analyser's unit: for the search bot, the deal's points
for the seat's side minus the best other side's, plus a bonus when the deal
ends the match (:meth:`tricktable.bots.search.SearchBot.action_values`). They are
estimates from sampled worlds, so a loss under the noise of a few worlds
means nothing: choose the threshold above it.

Decisions the analyser does not value (the search bot leaves Cinq Cents
bids and discards to other machinery) are counted as not analysed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tricktable.bots.fast_worlds import candidates
from tricktable.bots.search import SearchBot
from tricktable.rules.actions import Action, as_decided, describe
from tricktable.rules.errors import RuleError
from tricktable.rules.game import Seat, SeatView
from tricktable.rules.match import Match
from tricktable.rules.record import GameRecord, action_to_json
from tricktable.rules.registry import game_rules
from tricktable.rules.shuffle import RecordedDecks

#: Default threshold of a costly decision, in the analyser's value unit (deal points, for the search bot).
DEFAULT_THRESHOLD = 2.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Estimate:
    """An analyser's estimate at one decision: a value per legal action, its own choice, the worlds behind it."""

    values: dict[Action, float]
    choice: Action
    worlds: int


class Estimator(Protocol):
    """Values a decision from one seat's view; None for a decision it does not value."""

    def estimate(self, view: SeatView) -> Estimate | None: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """One analysed decision: where it was, what was played, what the analyser would play, and the values."""

    deal: int
    action: int
    played: Action
    choice: Action
    played_value: float
    choice_value: float
    worlds: int
    costly: bool

    @property
    def loss(self) -> float:
        """How much the played action is estimated to lose against the analyser's choice (never negative)."""
        return max(0.0, self.choice_value - self.played_value)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values (the actions in record form and as readable names, for the replay's timeline)."""
        return {"deal": self.deal, "action": self.action, "played": action_to_json(self.played),
                "choice": action_to_json(self.choice), "played_name": describe(self.played),
                "choice_name": describe(self.choice), "played_value": round(self.played_value, 3),
                "choice_value": round(self.choice_value, 3), "loss": round(self.loss, 3),
                "worlds": self.worlds, "costly": self.costly}


@dataclass(frozen=True, slots=True, kw_only=True)
class Analysis:
    """A seat's analysed decisions in one record, and those the analyser left alone."""

    seat: Seat
    threshold: float
    decisions: tuple[Decision, ...]
    not_analysed: int
    deals: int

    @property
    def costly(self) -> tuple[Decision, ...]:
        """The decisions whose loss is above the threshold."""
        return tuple(d for d in self.decisions if d.costly)

    def loss_per_deal(self) -> list[float]:
        """The estimated loss of each deal (1-based position ``i`` at index ``i - 1``), every deal listed."""
        losses = [0.0] * self.deals
        for d in self.decisions:
            losses[d.deal - 1] += d.loss
        return losses

    @property
    def total_loss(self) -> float:
        """The estimated loss over the whole game."""
        return sum(d.loss for d in self.decisions)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values (``tricktable analyse --json``)."""
        return {"seat": self.seat, "threshold": self.threshold,
                "decisions": [d.to_json() for d in self.decisions],
                "loss_per_deal": [round(x, 3) for x in self.loss_per_deal()],
                "total_loss": round(self.total_loss, 3), "costly": len(self.costly),
                "not_analysed": self.not_analysed}


def analyse(record: GameRecord, seat: Seat, estimator: Estimator, *,
            threshold: float = DEFAULT_THRESHOLD) -> Analysis:
    """Value every decision of ``seat`` in ``record`` from its own view (see the module docstring).

    Raises:
        ValueError: no such seat, or the record does not replay (``tricktable verify`` says where).
        OptionsError: the record's options are not valid for its game.
    """
    players = len(record.seats)
    if not 0 <= seat < players:
        raise ValueError(f"no seat {seat}: the record has seats 0-{players - 1}")
    match = Match.start(game_rules(record.game), record.options, RecordedDecks([d.deck for d in record.deals]),
                        seed=record.seed)
    decisions: list[Decision] = []
    skipped = 0
    for number, deal in enumerate(record.deals, start=1):
        for index, recorded in enumerate(deal.actions):
            if recorded.seat == seat and len(match.legal_actions()) > 1:
                found = _decision(match.view(seat), as_decided(recorded.action), estimator, number, index,
                                  threshold)
                if found is None:
                    skipped += 1
                else:
                    decisions.append(found)
            try:
                match = match.apply(recorded.action, recorded.seat)
            except RuleError as exc:
                raise ValueError(f"deal {number}, action {index}: the record does not replay: {exc}") from None
    return Analysis(seat=seat, threshold=threshold, decisions=tuple(decisions), not_analysed=skipped,
                    deals=len(record.deals))


def _decision(view: SeatView, played: Action, estimator: Estimator, deal: int, index: int,
              threshold: float) -> Decision | None:
    estimate = estimator.estimate(view)
    if estimate is None or played not in estimate.values:
        return None
    played_value = estimate.values[played]
    choice_value = estimate.values[estimate.choice]
    return Decision(deal=deal, action=index, played=played, choice=estimate.choice, played_value=played_value,
                    choice_value=choice_value, worlds=estimate.worlds,
                    costly=choice_value - played_value > threshold)


def describe_analysis(analysis: Analysis, *, every: bool = False) -> list[str]:
    """The analysis as text lines: the costly decisions (or ``every`` one), each deal's loss, the total."""
    lines: list[str] = []
    per_deal = analysis.loss_per_deal()
    for number in range(1, analysis.deals + 1):
        mine = [d for d in analysis.decisions if d.deal == number]
        for d in mine:
            if every or d.costly:
                flag = "  COSTLY" if d.costly else ""
                lines.append(f"  deal {d.deal} action {d.action}: played {describe(d.played)} "
                             f"({d.played_value:+.2f}), analyser: {describe(d.choice)} ({d.choice_value:+.2f}), "
                             f"loss {d.loss:.2f}{flag}")
        if mine:
            costly = sum(1 for d in mine if d.costly)
            lines.append(f"  deal {number}: {len(mine)} decisions, estimated loss {per_deal[number - 1]:.2f}, "
                         f"{costly} costly")
    lines.append(f"  total: {len(analysis.decisions)} decisions analysed ({analysis.not_analysed} not), "
                 f"estimated loss {analysis.total_loss:.2f}, {len(analysis.costly)} costly "
                 f"(loss over {analysis.threshold:g})")
    return lines


class ValuingBot(Protocol):
    """A bot that values actions: :meth:`tricktable.bots.search.SearchBot.action_values` is the reference."""

    last_worlds: int

    def action_values(self, view: SeatView) -> dict[Action, float] | None: ...


class BotEstimator:
    """An analyser made of a bot that values actions; its choice is the best of the candidates it searches."""

    def __init__(self, bot: ValuingBot) -> None:
        self.bot = bot

    def estimate(self, view: SeatView) -> Estimate | None:
        values = self.bot.action_values(view)
        if values is None:
            return None
        return Estimate(values=values, choice=best_of(values, candidates(view.legal_actions)),
                        worlds=self.bot.last_worlds)


def search_estimator(sims: int, seed: str = "analyse") -> BotEstimator:
    """The reference analyser: the search bot with ``sims`` worlds a decision (reproducible for one ``seed``)."""
    return BotEstimator(SearchBot(seed, simulations=sims))


def best_of(values: dict[Action, float], candidates: Sequence[Action]) -> Action:
    """The candidate of highest value, the first on a tie (as the search bot breaks ties)."""
    return max(candidates, key=lambda a: (values[a], -candidates.index(a)))


__all__ = [
    "DEFAULT_THRESHOLD",
    "Analysis",
    "BotEstimator",
    "Decision",
    "Estimate",
    "Estimator",
    "ValuingBot",
    "analyse",
    "best_of",
    "describe_analysis",
    "search_estimator",
]
