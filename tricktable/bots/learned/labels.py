"""The learned bot's training decisions: positions of heuristic play, each action valued in the true deal played on.

Why these positions: the bot is built to beat the heuristic, so the positions it must judge are the
ones heuristic play reaches.

Why the true deal: a decision of heuristic self-play is taken in a deal dealt as the game deals it,
the other seats having played as the heuristic plays, so the cards the seat cannot see are a sample
of exactly what they may be given what it saw. Each action the bot could take is applied in that true
deal and the deal played on by the heuristic at every seat (:func:`played_on`); the action's value is
what it brings the seat's side. One such value is a single world's, noisy; the network, fitted to
many, learns their mean given the view: the action's worth against heuristic play, with neither the
bias of worlds drawn blind to what the others' plays told (a search samples those) nor that of a
playout policy other than the one that will be played. So the held-out decisions' own values are an
honest estimate of what departing from the heuristic gains, and the margins are tuned on them.

Why values and not a choice: every valued action's value, less the heuristic's choice's (the
*advantage*), says how much departing would gain, which is exactly what the bot needs to decide
whether to depart (:class:`~tricktable.bots.learned.network.Network`).

Every decision with more than one legal action is valued, except a Cinq Cents discard (the bot keeps
the heuristic's): a card play, rob, jink, stand or beg (every legal action), a Cinq Cents bid (the
bids the search compares, :func:`~tricktable.bots.search_bids.candidate_bids`, and the heuristic's).
Standard library and the rules only.
"""

from __future__ import annotations

from dataclasses import dataclass

from tricktable.bots import heuristic
from tricktable.bots.fast_worlds import win_bonus
from tricktable.bots.learned.features import is_bid
from tricktable.bots.search_bids import candidate_bids
from tricktable.rules.actions import Action, Discard, Pass
from tricktable.rules.game import SeatView
from tricktable.rules.match import Match, play_out
from tricktable.rules.registry import new_match


@dataclass(frozen=True, slots=True)
class Labelled:
    """One valued decision: the view, the heuristic's choice, and each valued action's advantage over it."""

    view: SeatView
    heuristic: Action
    advantage: dict[Action, float]


def valued_actions(view: SeatView) -> list[Action] | None:
    """The actions the bot chooses among at ``view``; None: the heuristic decides (a discard, a Spoil Five call)."""
    if is_bid(view):
        return candidate_bids(view)
    if any(isinstance(a, Discard | Pass) for a in view.legal_actions):
        return None
    return list(view.legal_actions)


def played_on(match: Match, seat: int, action: Action) -> float:
    """What ``action`` by ``seat`` brings its side in the true deal, played on by the heuristic at every seat.

    The value every search compares (:func:`tricktable.bots.solver.deal_value`): the points the side
    gains from now to the deal's end less the best other side's, plus or minus the game's win bonus
    if the deal ends the match.

    Raises:
        RuleError: ``action`` is not legal for ``seat`` now.
    """
    sides = match.config.sides
    side = next(k for k, members in enumerate(sides) if seat in members)
    deal = len(match.finished)
    after = match.apply(action, seat)
    while len(after.finished) == deal and (to_act := after.to_act) is not None:
        after = after.apply(heuristic.choose_action(after.view(to_act)), to_act)
    gains = [a - b for a, b in zip(after.scores, match.scores, strict=True)]
    value = float(gains[side] - max(g for k, g in enumerate(gains) if k != side))
    bonus = win_bonus(match.config.game)
    if after.is_over and bonus:
        value += bonus if side in after.final_result.winners else -bonus
    return value


def label(match: Match, view: SeatView) -> Labelled | None:
    """The decision at ``view`` (its seat's, in ``match``) valued by :func:`played_on` (None: not a training decision).

    A decision is left out when it has one legal action, when the heuristic decides it
    (:func:`valued_actions` is None), or when the heuristic's choice is not among the valued actions
    (no reference for the advantages).
    """
    if len(view.legal_actions) < 2:
        return None
    valued = valued_actions(view)
    if valued is None:
        return None
    choice = heuristic.choose_action(view)
    if choice not in valued:
        return None
    base = played_on(match, view.seat, choice)
    return Labelled(view, choice, {a: 0.0 if a == choice else played_on(match, view.seat, a) - base for a in valued})


def match_decisions(game: str, options: dict[str, object], seed: str, max_deals: int) -> list[Labelled]:
    """Play one match of ``game`` by the heuristic at every seat, seeded by ``seed``, and label its decisions."""
    out: list[Labelled] = []

    def choose(state: Match, seat: int) -> Action:
        view = state.view(seat)
        labelled = label(state, view)
        if labelled is not None:
            out.append(labelled)
            return labelled.heuristic
        return heuristic.choose_action(view)

    play_out(new_match(game, options, seed=seed), choose, max_deals=max_deals)
    return out


__all__ = ["Labelled", "label", "match_decisions", "played_on", "valued_actions"]
