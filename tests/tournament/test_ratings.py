"""Ratings, pairs and the SPRT on rigged results."""

from __future__ import annotations

import pytest

from tests.tournament.helpers import RiggedRunner, config
from tricktable.tournament.config import SprtSpec
from tricktable.tournament.ratings import (
    crosstable,
    leaderboard,
    pair_result,
    pairwise_score,
    side_ranks,
    sprt,
)
from tricktable.tournament.runner import MatchOutcome
from tricktable.tournament.schedule import fixed_groups, round_matches


def rigged_games(cfg, strengths, edge=0.8):
    runner = RiggedRunner(strengths, edge)
    specs = round_matches(cfg, 0, fixed_groups(cfg))
    entrants = {e.name: e for e in cfg.entrants}
    return [(s, runner.run(s, entrants)) for s in specs]


def test_stronger_bot_ranks_higher():
    cfg = config(entrants=["weak", "mid", "strong"], games=60)
    games = rigged_games(cfg, {"weak": 1, "mid": 2, "strong": 3})
    table = leaderboard(["weak", "mid", "strong"], games)
    assert [s.name for s in table] == ["strong", "mid", "weak"]
    assert table[0].conservative > table[1].conservative > table[2].conservative
    assert all(s.sigma < 25 / 3 for s in table)  # every entrant's uncertainty went down
    assert table[0].games == 120 and table[0].win_share > 0.6


def test_teams_are_rated_as_teams_with_rotating_partners():
    cfg = config(game="twenty_five", options={}, entrants=["p", "q", "r", "s"], partners="rotate", games=60)
    games = rigged_games(cfg, {"p": 5, "q": 1, "r": 1, "s": 1}, edge=0.9)
    table = leaderboard(["p", "q", "r", "s"], games)
    assert table[0].name == "p"
    # p's partners win with p and lose against p: p alone takes the credit
    assert table[0].mu > max(s.mu for s in table[1:]) + 5
    assert all(s.games == 60 for s in table)


def test_side_ranks_put_winners_first_then_scores():
    out = MatchOutcome(match_id="m", status="finished", winners=(2,), scores=(30, 50, 61))
    assert side_ranks(out) == [2.0, 1.0, 0.0]
    shared = MatchOutcome(match_id="m", status="finished", winners=(0, 1), scores=(61, 61, 10))
    assert side_ranks(shared) == [0.0, 0.0, 1.0]


def test_pairwise_score_and_forfeit():
    cfg = config(entrants=["a", "b"])
    spec = round_matches(cfg, 0, fixed_groups(cfg))[0]  # a on side 0
    win = MatchOutcome(match_id="m", status="finished", winners=(0,), scores=(61, 12))
    assert pairwise_score(spec, win, "a", "b") == 1.0 and pairwise_score(spec, win, "b", "a") == 0.0
    forfeit = MatchOutcome(match_id="m", status="forfeit", winners=(1,), scores=(0, 0), forfeit_by="a")
    assert pairwise_score(spec, forfeit, "a", "b") == 0.0
    error = MatchOutcome(match_id="m", status="error", winners=(), scores=())
    assert pairwise_score(spec, error, "a", "b") is None


def test_paired_results_have_a_95_interval_around_the_mean():
    cfg = config(entrants=["weak", "strong"], games=200)
    games = rigged_games(cfg, {"weak": 1, "strong": 2}, edge=0.75)
    result = pair_result(games, "strong", "weak")
    assert result.deck_sets == 100 and result.games == 200
    assert result.low < result.mean < result.high
    assert result.low > 0.5  # clearly stronger
    assert abs(result.mean - 0.75) < 0.1
    cross = crosstable(["weak", "strong"], games)
    assert cross["strong"]["weak"].score + cross["weak"]["strong"].score == pytest.approx(1.0)


def test_two_deck_sets_both_won_have_wilsons_interval_not_one_of_no_width():
    cfg = config(entrants=["weak", "strong"], games=4)
    games = rigged_games(cfg, {"weak": 1, "strong": 2}, edge=1.0)  # the stronger side always wins
    result = pair_result(games, "strong", "weak")
    assert (result.deck_sets, result.wins, result.mean, result.interval) == (2, 4, 1.0, "wilson")
    assert (result.low, result.high) == pytest.approx((0.342, 1.000), abs=0.0005)
    lost = pair_result(games, "weak", "strong")
    assert (lost.low, lost.high) == pytest.approx((0.000, 0.658), abs=0.0005)


def test_one_deck_set_is_too_few_for_an_interval_and_its_bounds_are_null():
    cfg = config(entrants=["weak", "strong"], games=2)
    result = pair_result(rigged_games(cfg, {"weak": 1, "strong": 2}, edge=1.0), "strong", "weak")
    assert result.deck_sets == 1 and result.too_few
    data = result.to_json()
    assert (data["ci95_low"], data["ci95_high"], data["ci95_method"]) == (None, None, "too few")


def test_many_deck_sets_use_the_t_interval_on_their_spread():
    cfg = config(entrants=["weak", "strong"], games=200)
    result = pair_result(rigged_games(cfg, {"weak": 1, "strong": 2}, edge=0.75), "strong", "weak")
    assert result.interval == "t" and result.to_json()["ci95_method"] == "t"


def test_sprt_decides_a_clear_case_both_ways():
    spec = SprtSpec(a="a", b="b", score0=0.5, score1=0.6)
    strong = [1.0, 0.5, 1.0, 1.0, 0.5, 1.0, 1.0, 0.0, 1.0, 1.0] * 10
    state = sprt(strong, spec)
    assert state.decision == "H1" and state.samples < len(strong) and state.llr >= state.upper
    weak = [1.0 - x for x in strong]
    state = sprt(weak, spec)
    assert state.decision == "H0" and state.llr <= state.lower


def test_sprt_is_undecided_on_too_little_evidence():
    state = sprt([1.0, 0.0, 0.5], SprtSpec(a="a", b="b"))
    assert state.decision is None


def test_entrants_that_never_met_are_compared_through_common_opponents():
    cfg = config(entrants=["hero", "strong", "weak"], format="gauntlet", games=200)
    games = rigged_games(cfg, {"hero": 2, "strong": 3, "weak": 1}, edge=0.8)
    result = pair_result(games, "strong", "weak")
    assert result.games == 0 and result.basis == "common opponents" and result.deck_sets == 100
    # strong beats hero 80%, weak beats hero 20%: (1 + 0.8 - 0.2) / 2 = 0.8 on the same cards
    assert result.low > 0.5 and abs(result.mean - 0.8) < 0.1
    assert pair_result(games, "hero", "weak").basis == "head-to-head"


def test_sprt_hypotheses_may_be_given_in_elo():
    from tests.tournament.helpers import config as make

    cfg = make(sprt={"a": "random", "b": "first-legal", "elo0": 0, "elo1": 35})
    assert cfg.sprt is not None and cfg.sprt.score0 == 0.5 and abs(cfg.sprt.score1 - 0.55) < 0.001
