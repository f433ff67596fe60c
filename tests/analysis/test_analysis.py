"""Analysis of a recorded game (`tricktable analyse`): each decision valued from the seat's own view."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from typer.testing import CliRunner

from tricktable.analysis.decisions import BotEstimator, Estimate, analyse, best_of
from tricktable.bots.fast_worlds import candidates
from tricktable.bots.random_bot import RandomBot
from tricktable.bots.search import SearchBot
from tricktable.cli.main import app
from tricktable.client_sdk.bot import AnnotatedAction, action_of
from tricktable.protocol import convert
from tricktable.rules.game import SeatView
from tricktable.rules.match import play_out
from tricktable.rules.record import parse_record
from tricktable.rules.registry import new_match

runner = CliRunner()

#: A short All Fives match (4 deals with these seeds): enough decisions, fast to play and analyse.
SHORT = {"players": 2, "target": 21}


@cache
def _record(players: str, seed: str = "t1") -> str:
    """The JSON of a short All Fives match between two search bots or two random bots (40 worlds a decision)."""
    match = new_match("all_fives", SHORT, seed=seed)
    bots = [SearchBot(f"p{s}", simulations=40) if players == "search" else RandomBot(f"r{s}") for s in range(2)]
    match = play_out(match, lambda m, s: action_of(bots[s].choose_action(m.view(s))))
    return json.dumps(match.to_record(seed=seed, names=[f"{players}-{s}" for s in range(2)]))


def _analyser(sims: int = 40) -> BotEstimator:
    return BotEstimator(SearchBot("analyse", simulations=sims))


def test_search_against_itself_has_no_costly_move_while_random_play_has_many() -> None:
    search = analyse(parse_record(json.loads(_record("search"))), 0, _analyser(), threshold=2.0)
    chaos = analyse(parse_record(json.loads(_record("random"))), 0, _analyser(), threshold=2.0)
    assert len(search.decisions) >= 20 and search.not_analysed == 0
    assert search.costly == ()
    assert len(chaos.costly) >= 5
    assert chaos.total_loss > 3 * search.total_loss


class _Spy:
    """Values legal action i at -i (its own choice: the first), and keeps every view it was shown."""

    def __init__(self) -> None:
        self.views: list[SeatView] = []

    def estimate(self, view: SeatView) -> Estimate:
        self.views.append(view)
        values = {a: -float(i) for i, a in enumerate(view.legal_actions)}
        return Estimate(values=values, choice=view.legal_actions[0], worlds=1)


def test_each_decision_is_valued_from_the_seat_s_own_view_at_that_point() -> None:
    data = json.loads(_record("random"))
    record = parse_record(data)
    spy = _Spy()
    result = analyse(record, 1, spy)
    assert spy.views and all(v.seat == 1 and v.to_act == 1 for v in spy.views)
    match = new_match("all_fives", SHORT, seed="t1")
    expected: list[SeatView] = []
    for deal in record.deals:
        for recorded in deal.actions:
            if recorded.seat == 1 and len(match.legal_actions()) > 1:
                expected.append(match.view(1))
            match = match.apply(recorded.action, recorded.seat)
    assert spy.views == expected
    assert len(result.decisions) == len(expected)


def test_losses_are_the_gap_to_the_analyser_s_choice_flagged_above_the_threshold_and_totalled_per_deal() -> None:
    record = parse_record(json.loads(_record("random")))
    result = analyse(record, 0, _Spy(), threshold=1.5)
    for d in result.decisions:
        assert d.loss == d.choice_value - d.played_value and d.costly == (d.loss > 1.5)
    per_deal = result.loss_per_deal()
    assert len(per_deal) == len(record.deals)
    for number, loss in enumerate(per_deal, start=1):
        assert loss == sum(d.loss for d in result.decisions if d.deal == number)
    assert result.total_loss == sum(per_deal) > 0
    assert {d.deal for d in result.costly} <= {n for n, x in enumerate(per_deal, start=1) if x > 1.5}


def test_search_action_values_value_every_legal_action_and_their_best_is_the_search_s_choice() -> None:
    match = new_match("all_fives", SHORT, seed="v")
    checked = 0
    while not match.is_over and checked < 6:
        seat = match.to_act
        assert seat is not None
        view = match.view(seat)
        if len(view.legal_actions) > 1:
            values = SearchBot("x", simulations=10).action_values(view)
            assert values is not None and set(values) == set(view.legal_actions)
            chosen = action_of(SearchBot("x", simulations=10).choose_action(view))
            assert best_of(values, candidates(view.legal_actions)) == chosen
            checked += 1
        match = match.apply(view.legal_actions[-1], seat)
    assert checked == 6


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["analyse", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def test_analyse_command_prints_costly_decisions_per_deal_losses_and_json(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(_record("random"))
    code, out = _run(str(path), "--seat", "0", "--sims", "10", "--threshold", "2")
    assert code == 0, out
    assert out.startswith(f"{path}: seat 0 (random-0), analysed by search (10 worlds a decision)")
    assert "COSTLY" in out and "deal 1: " in out and out.splitlines()[-1].startswith("  total: ")
    code, out = _run(str(path), "--sims", "10", "--json")
    assert code == 0, out
    lines = [json.loads(line) for line in out.splitlines()]
    assert [x["seat"] for x in lines] == [0, 1]
    first = lines[0]
    assert first["costly"] == sum(1 for d in first["decisions"] if d["costly"])
    assert {"deal", "action", "played", "choice", "played_value", "choice_value", "loss", "worlds"} <= set(
        first["decisions"][0])


def test_analyse_command_refuses_a_bot_that_cannot_value_actions_and_reports_bad_records(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(_record("random"))
    code, out = _run(str(path), "--bot", "random")
    assert code == 2 and "cannot value actions" in out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "nope"}))
    code, out = _run(str(bad), "--sims", "2")
    assert code == 1 and f"{bad}: error: format" in out and "Traceback" not in out


def test_search_bot_annotates_its_card_moves_with_each_candidate_s_value_and_its_world_count() -> None:
    match = new_match("all_fives", SHORT, seed="v")
    checked = 0
    while not match.is_over and checked < 4:
        seat = match.to_act
        assert seat is not None
        view = match.view(seat)
        if len(candidates(view.legal_actions)) > 1:
            values = SearchBot("x", simulations=10).action_values(view)
            choice = SearchBot("x", simulations=10).choose_action(view)
            assert isinstance(choice, AnnotatedAction) and values is not None
            assert choice.annotation.note == "search: 10 worlds"
            assert choice.annotation.values == {convert.action_id(a): round(values[a], 3)
                                                for a in candidates(view.legal_actions)}
            checked += 1
        match = match.apply(view.legal_actions[-1], seat)
    assert checked == 4
