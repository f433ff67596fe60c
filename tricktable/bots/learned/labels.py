"""The learned bot's training decisions: positions of heuristic play, each action valued by the search.

Why these positions: the bot is built to beat the heuristic, so the positions it must judge are the
ones heuristic play reaches, and the heuristic is cheap to play, leaving the CPU for the labels.
Why values and not the search's choice: the search's argmax over a few worlds is a noisy label, one
bit a decision; the mean value of every action over the same worlds is a number per action, and its
difference from the heuristic's choice (the *advantage*) says how much departing would gain, which
is exactly what the bot needs to decide whether to depart (:class:`~tricktable.bots.learned.network.Network`).

Every decision with more than one legal action is valued, except a Cinq Cents discard (the bot
keeps the heuristic's) and the bids of games the search leaves to the heuristic: a card play, rob,
jink, stand or beg by :meth:`~tricktable.bots.search.SearchBot.action_values` (every legal action,
the same worlds), a Cinq Cents bid by :func:`~tricktable.bots.search_bids.choose_bid` (its candidate
bids, our side's deal points minus the opponents'). Standard library and the bots' search only.
"""

from __future__ import annotations

from dataclasses import dataclass

from tricktable.bots import heuristic
from tricktable.bots.bid_fit import bid_fit
from tricktable.bots.fast_worlds import WorldStream
from tricktable.bots.learned.features import is_bid
from tricktable.bots.search import POLICIES, SearchBot
from tricktable.bots.search_bids import candidate_bids, choose_bid
from tricktable.bots.seeded import decision_rng
from tricktable.rules.actions import Action, Discard, Pass
from tricktable.rules.game import SeatView
from tricktable.rules.match import Match, play_out
from tricktable.rules.registry import game_definition, new_match


@dataclass(frozen=True, slots=True)
class Labelled:
    """One valued decision: the view, the heuristic's choice, and each valued action's advantage over it."""

    view: SeatView
    heuristic: Action
    advantage: dict[Action, float]


def valued_actions(view: SeatView) -> list[Action] | None:
    """The actions the search compares at ``view`` (what the bot chooses among); None: the heuristic decides."""
    if is_bid(view):
        return candidate_bids(view)
    if any(isinstance(a, Discard | Pass) for a in view.legal_actions):
        return None
    return list(view.legal_actions)


def values(teacher: SearchBot, view: SeatView, bid_worlds: int) -> dict[Action, float] | None:
    """The search's mean value of each of :func:`valued_actions` at ``view``; None where it values nothing."""
    if valued_actions(view) is None:
        return None
    if is_bid(view):
        worlds = WorldStream(view, decision_rng(teacher.seed, view), bid_worlds, fit=bid_fit(view))
        playout = POLICIES[game_definition(view.game).bots.playout][0]
        searched = choose_bid(view, worlds, playout)
        return None if searched is None or not searched.values else searched.values
    return teacher.action_values(view)


def label(teacher: SearchBot, view: SeatView, bid_worlds: int) -> Labelled | None:
    """``view`` valued by ``teacher``, as advantages over the heuristic's choice (None: not a training decision).

    A decision is left out when it has one legal action, when the search values nothing there, or when
    the heuristic's choice is not among the valued actions (no reference for the advantages).
    """
    if len(view.legal_actions) < 2:
        return None
    valued = values(teacher, view, bid_worlds)
    if not valued:
        return None
    choice = heuristic.choose_action(view)
    if choice not in valued:
        return None
    base = valued[choice]
    return Labelled(view, choice, {a: v - base for a, v in valued.items()})


def match_decisions(game: str, options: dict[str, object], seed: str, sims: int, max_deals: int) -> list[Labelled]:
    """Play one match of ``game`` by the heuristic at every seat and label its decisions with ``sims`` worlds each.

    Seeded by ``seed``: the deal order, and the teacher's worlds (from the decision's public context).
    """
    match = new_match(game, options, seed=seed)
    teacher = SearchBot(f"{seed}|teacher", simulations=sims)
    out: list[Labelled] = []

    def choose(state: Match, seat: int) -> Action:
        view = state.view(seat)
        labelled = label(teacher, view, sims)
        if labelled is not None:
            out.append(labelled)
        return heuristic.choose_action(view)

    play_out(match, choose, max_deals=max_deals)
    return out


__all__ = ["Labelled", "is_bid", "label", "match_decisions", "valued_actions", "values"]
