"""The searching bots' budgets: a time budget is the decision's wall clock (a fake clock here, never real
time), and every kind of decision the search makes (cards, robs, the jink, stand or beg, Cinq Cents bids
and discards) draws its worlds from the same budget."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tricktable.bots.heuristic import HeuristicBot
from tricktable.bots.pimc import PimcBot
from tricktable.bots.search import MIN_BID_WORLDS, SearchBot
from tricktable.bots.search_bids import discard_actions
from tricktable.client_sdk.bot import action_of
from tricktable.rules.actions import Action, Beg, Discard, Jink, Pass, Play, Stand
from tricktable.rules.game import SeatView
from tricktable.rules.registry import new_match


class FakeClock:
    """A clock that moves ``step`` seconds each time it is read (binary fractions here: the sums are exact)."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


#: A decision's budget and what one read of the fake clock costs: 8 worlds' worth.
BUDGET, STEP = 0.25, 1 / 32
WORLDS = 8


def _first_view(game: str, wanted: Callable[[SeatView], bool], options: dict[str, object] | None = None,
                seeds: int = 60) -> SeatView:
    """The first decision, over a few heuristic matches, whose view ``wanted`` accepts."""
    bot = HeuristicBot()
    for i in range(seeds):
        match = new_match(game, dict(options or {}), seed=f"budget-{game}-{i}")
        for _ in range(400):
            if match.is_over or match.to_act is None:
                break
            view = match.view(match.to_act)
            if wanted(view):
                return view
            match = match.apply(action_of(bot.choose_action(view)), match.to_act)
    pytest.fail(f"no such decision in {seeds} {game} matches")


def _card_choice(view: SeatView) -> bool:
    return len(view.legal_actions) > 1 and all(isinstance(a, Play) for a in view.legal_actions)


def _has(kind: type[Action]) -> Callable[[SeatView], bool]:
    return lambda view: any(isinstance(a, kind) for a in view.legal_actions)


def _timed(bot: SearchBot | PimcBot, step: float) -> FakeClock:
    clock = FakeClock(step)
    bot.clock = clock
    return clock


@pytest.mark.parametrize("kind", [SearchBot, PimcBot])
@pytest.mark.parametrize("game", ["forty_five", "all_fives", "cinq_cents"])
def test_a_timed_decision_draws_worlds_until_its_budget_is_spent(kind: type[SearchBot | PimcBot], game: str) -> None:
    view = _first_view(game, _card_choice)
    bot = kind(1, budget=BUDGET)
    _timed(bot, STEP)  # the decision starts at one read, and each world after the first costs one more
    assert action_of(bot.choose_action(view)) in view.legal_actions
    assert bot.last_worlds == WORLDS


def test_time_spent_before_the_first_world_counts_against_the_budget() -> None:
    view = _first_view("forty_five", _card_choice)
    bot = SearchBot(1, budget=BUDGET)
    _timed(bot, 1.0)  # the budget is gone by the first read after the decision started
    action_of(bot.choose_action(view))
    assert bot.last_worlds == 1, "one world at least, then the deadline set when the decision started"


def test_a_timed_cinq_cents_bid_gets_one_decisions_budget() -> None:
    view = _first_view("cinq_cents", _has(Pass))
    bot = SearchBot(1, budget=BUDGET)
    _timed(bot, BUDGET / 32)
    assert MIN_BID_WORLDS < 32
    assert action_of(bot.choose_action(view)) in view.legal_actions
    assert bot.last_worlds == 32


def test_a_timed_cinq_cents_bid_with_too_few_worlds_is_the_heuristics() -> None:
    view = _first_view("cinq_cents", _has(Pass))
    bot = SearchBot(1, budget=BUDGET)
    _timed(bot, STEP)
    assert WORLDS < MIN_BID_WORLDS
    assert action_of(bot.choose_action(view)) == HeuristicBot().choose_action(view)
    assert bot.last_worlds == WORLDS


def test_a_timed_cinq_cents_discard_is_searched_within_the_budget_and_legal() -> None:
    view = _first_view("cinq_cents", lambda v: _has(Discard)(v) and len(discard_actions(v)) > 1)
    bot = SearchBot(1, budget=BUDGET)
    _timed(bot, STEP)
    choice = action_of(bot.choose_action(view))
    assert choice in discard_actions(view) and choice in view.legal_actions
    assert bot.last_worlds == WORLDS


@pytest.mark.parametrize(("game", "kind", "options"), [("all_fives", Stand, {}), ("all_fives", Beg, {}),
                                                       ("forty_five", Jink, {"jink": True})])
def test_stand_beg_and_the_jink_are_searched(game: str, kind: type[Action], options: dict[str, object]) -> None:
    view = _first_view(game, _has(kind), options)
    bot = SearchBot(2, simulations=4)
    assert action_of(bot.choose_action(view)) in view.legal_actions
    assert bot.last_worlds == 4


def test_a_cpu_clock_budget_runs_on_the_threads_own_cpu_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """``clock="cpu"`` is the thread's CPU time, and a ladder spec's clock is the one its bot's budget reads.

    The clock itself is replaced by the fake one (no real time in tests): the
    bot built with ``clock="cpu"`` draws exactly the worlds the fake CPU clock
    allows, and a wall-clock bot never reads it.
    """
    import time

    from tricktable.bots import fast_worlds
    from tricktable.bots.ladder import BotSpec

    assert fast_worlds.CLOCKS["cpu"] is time.thread_time
    assert fast_worlds.CLOCKS["wall"] is time.monotonic
    cpu = FakeClock(STEP)
    monkeypatch.setitem(fast_worlds.CLOCKS, "cpu", cpu)
    view = _first_view("twenty_five", _card_choice)
    bot = BotSpec("pimc", simulations=None, budget=BUDGET, clock="cpu").build("clocks")
    assert isinstance(bot, PimcBot)
    bot.choose_action(view)
    assert bot.last_worlds == WORLDS
    reads = cpu.reads
    BotSpec("pimc", simulations=None, budget=BUDGET, clock="wall").build("clocks")
    assert cpu.reads == reads


def test_a_searching_bot_refuses_an_unknown_clock() -> None:
    with pytest.raises(ValueError, match="unknown clock"):
        SearchBot(clock="sundial")
