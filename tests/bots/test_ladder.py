"""A short ladder: duplicate pairs, shares with intervals, the table and the command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tricktable.bots.ladder import BotSpec, Estimate, PairResult, duplicate_pair, play_match, run_pair, table
from tricktable.bots.search import SearchBot
from tricktable.cli.main import app
from tricktable.rules.registry import new_match


def test_the_points_share_is_a_mean_with_a_95_percent_t_interval() -> None:
    e = Estimate.of_points([0.4, 0.6, 0.5, 0.7])
    assert e.mean == pytest.approx(0.55) and e.method == "t"
    half = 3.182 * (sum((v - 0.55) ** 2 for v in [0.4, 0.6, 0.5, 0.7]) / 3 / 4) ** 0.5  # t(0.975, 3 df)
    assert e.low == pytest.approx(0.55 - half) and e.high == pytest.approx(0.55 + half)


def test_the_games_share_of_few_pairs_has_wilsons_interval() -> None:
    e = Estimate.of_games([1.0, 0.5, 1.0, 1.0, 0.5])  # a score of wins and draws: 0.8 over 5 pairs
    assert e.method == "wilson" and (e.low, e.high) == pytest.approx((0.376, 0.964), abs=0.0005)


def test_one_pair_says_too_few_pairs_instead_of_a_zero_width_interval() -> None:
    for e in (Estimate.of_points([0.7]), Estimate.of_games([1.0])):
        assert e.too_few and "too few pairs" in str(e) and "[" not in str(e)


def test_a_step_whose_every_pair_went_one_way_still_has_intervals_with_width() -> None:
    # In Cinq Cents the heuristic takes every point of every pair from the random bot.
    result = run_pair("cinq_cents", BotSpec("random"), BotSpec("heuristic"), 2, seed="ladder")
    assert [(o.points, o.games) for o in result.outcomes] == [(1.0, 1.0), (1.0, 1.0)]
    for e in (result.points, result.games):
        assert e.method == "wilson" and (e.low, e.high) == pytest.approx((0.342, 1.000), abs=0.0005)
    assert "100.0% [34.2, 100.0]" in table([result]) and not result.holds


def test_a_bot_against_itself_on_duplicate_deals_scores_exactly_half() -> None:
    # Deterministic bots on the same decks with sides swapped: the luck cancels exactly.
    outcome = duplicate_pair("twenty_five", {}, "mirror", BotSpec("heuristic"), BotSpec("heuristic"))
    assert (outcome.points, outcome.games) == (0.5, 0.5)


def test_play_match_stops_at_the_deal_limit() -> None:
    match = new_match("forty_five", {}, seed="limit")
    bots = [BotSpec("random").build(f"r{s}") for s in range(match.config.players)]
    stopped = play_match("forty_five", {}, "limit", bots, max_deals=1)
    assert stopped.result is not None and stopped.result.status == "aborted"
    assert len(stopped.finished) == 1


@pytest.mark.parametrize("game", ["twenty_five", "all_fives"])
def test_a_short_ladder_runs_and_reports_shares(game: str) -> None:
    result = run_pair(game, BotSpec("random"), BotSpec("heuristic"), 3, seed="smoke")
    assert result.pairs == 3 and result.deals > 0 and len(result.outcomes) == 3
    for e in (result.points, result.games):
        assert 0.0 <= e.low <= e.mean <= e.high <= 1.0 or e.low < 0.0 or e.high > 1.0
    assert 0.0 <= result.points.mean <= 1.0 and 0.0 <= result.games.mean <= 1.0
    again = run_pair(game, BotSpec("random"), BotSpec("heuristic"), 3, seed="smoke")
    assert again.outcomes == result.outcomes, "the same seed plays the same ladder"
    assert "heuristic vs random" in table([result])


def test_the_ladder_command_prints_the_table(tmp_path: Path) -> None:
    out = tmp_path / "ladder.json"
    run = CliRunner().invoke(app, ["ladder", "--game", "twenty_five", "--games", "1", "--sims", "1",
                                   "--json", str(out)])
    assert run.exit_code == 0, run.output
    assert "search vs pimc" in run.output and "heuristic vs random" in run.output
    rows = json.loads(out.read_text())
    assert [(r["stronger"], r["weaker"]) for r in rows] == [("heuristic", "random"), ("pimc", "heuristic"),
                                                            ("search", "pimc"), ("search", "heuristic")]
    assert all(r["cpu_ms_per_decision"]["stronger"] > 0 for r in rows)
    assert rows[2]["worlds_per_decision"]["stronger"] > 0 and rows[0]["worlds_per_decision"]["weaker"] == 0


def test_the_ladder_counts_each_bots_decisions_and_cpu_time() -> None:
    outcome = duplicate_pair("twenty_five", {}, "effort", BotSpec("pimc", simulations=2), BotSpec("random"))
    assert outcome.a_effort.decisions > 0 and outcome.b_effort.decisions > 0
    assert outcome.a_effort.cpu > 0
    assert outcome.a_effort.per_decision_ms() > outcome.b_effort.per_decision_ms(), "PIMC thinks, random does not"


def test_the_ladder_counts_each_bots_wall_time_and_worlds_per_decision() -> None:
    outcome = duplicate_pair("twenty_five", {}, "effort", BotSpec("pimc", simulations=2), BotSpec("heuristic"))
    pimc, heuristic = outcome.a_effort, outcome.b_effort
    assert pimc.wall > 0 and heuristic.wall > 0
    assert 1 <= pimc.worlds_per_decision() <= 2, "two worlds a searched decision, none for a single legal card"
    assert heuristic.worlds == 0
    assert "worlds" in str(pimc) and "worlds" not in str(heuristic)


def test_the_ladder_command_refuses_an_unknown_game() -> None:
    run = CliRunner().invoke(app, ["ladder", "--game", "bridge", "--games", "1"])
    assert run.exit_code == 2


def test_the_ladder_command_gives_the_search_its_solve_at(monkeypatch: pytest.MonkeyPatch) -> None:
    from tricktable.cli import ladder as ladder_cli

    searched: list[BotSpec] = []
    real = run_pair

    def spy(game: str, weaker: BotSpec, stronger: BotSpec, *args: Any, **kwargs: Any) -> PairResult:
        searched.append(stronger)
        return real(game, weaker, stronger, *args, **kwargs)

    monkeypatch.setattr(ladder_cli, "run_pair", spy)
    run = CliRunner().invoke(app, ["ladder", "--game", "all_fives", "--games", "1", "--sims", "1",
                                   "--pair", "search,random", "--solve-at", "8"])
    assert run.exit_code == 0, run.output
    assert [spec.solve_at for spec in searched] == [8]
    bot = searched[0].build("s")
    assert isinstance(bot, SearchBot) and bot.solve_at == 8
