"""Perft counts: both engines count the pinned number of legal action sequences of every case (docs/perft.md).

Two implementations of the rules that agree on these counts generate the
same legal actions at every node of each tree; ``make golden`` rewrites
``tests/golden/perft.json`` when a rule change is meant to change them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.golden.perft import PERFT_CASES, PerftCase, counts, markdown_table, pinned
from tricktable.cli.main import app
from tricktable.rules.errors import RuleError
from tricktable.rules.perft import ENGINES, Engine, count, divide, first_deck, start_match
from tricktable.rules.registry import games

PINNED = pinned()
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", PERFT_CASES, ids=lambda c: c.name)
def test_each_engine_counts_the_pinned_sequences(case: PerftCase, engine: Engine) -> None:
    assert case.name in PINNED, f"{case.name} is not in perft.json: run `make golden`"
    assert counts(case, engine) == PINNED[case.name]["counts"]


@pytest.mark.parametrize("case", PERFT_CASES, ids=lambda c: c.name)
def test_the_file_states_each_case_as_defined(case: PerftCase) -> None:
    """The start written in the file (seed, first actions, the seed's deck, resolved options) is the case's."""
    written = PINNED[case.name]
    match = start_match(case.game, case.options, case.seed, case.after)
    assert (written["game"], written["seed"], tuple(written["after"])) == (case.game, case.seed, case.after)
    assert written["deck"] == [card.code for card in first_deck(match)]
    assert written["options"] == {**match.config.to_options(), "first_dealer": match.first_dealer}
    assert set(PINNED) == {c.name for c in PERFT_CASES}


def test_every_game_has_perft_cases() -> None:
    assert {case.game for case in PERFT_CASES} == set(games())


def test_the_guide_lists_the_pinned_counts() -> None:
    assert markdown_table() in (ROOT / "docs" / "perft.md").read_text(encoding="utf-8")


def test_the_whole_cinq_cents_auction_is_every_rising_sequence_of_bids_and_passes() -> None:
    """Four seats, each passing or bidding above the highest of 25 bids: C(4+25, 4) auctions, whatever the cards."""
    from math import comb

    assert PINNED["cinq_cents-auction"]["counts"][-1] == comb(29, 4) == 23_751
    assert count("cinq_cents", {"first_dealer": 3}, "another", 4, engine="fast") == 23_751


def test_a_deal_counted_past_its_end_stops_there() -> None:
    """Counting deeper than the deal's last action changes nothing: the next deal is never entered."""
    case = next(c for c in PERFT_CASES if c.name == "twenty_five-4p-to-the-end")
    deepest = PINNED[case.name]["counts"][-1]
    for engine in ENGINES:
        assert count(case.game, case.options, case.seed, case.depth + 5, after=case.after, engine=engine) == deepest


def test_depth_zero_is_the_start_alone_and_divide_sums_to_the_count() -> None:
    assert count("all_fives", {"players": 2, "first_dealer": 0}, "perft", 0) == 1
    split = divide("all_fives", {"players": 2, "first_dealer": 0}, "perft", 4)
    assert sum(split.values()) == PINNED["all_fives-2p"]["counts"][3] and set(split) == {"stand", "beg"}


def test_bad_starts_are_refused() -> None:
    with pytest.raises(ValueError, match="depth must be 0 or more"):
        count("all_fives", {"players": 2, "first_dealer": 0}, "perft", -1)
    with pytest.raises(RuleError):
        count("all_fives", {"players": 2, "first_dealer": 0}, "perft", 1, after=("gift",))  # eldest must speak first


def test_the_command_line_prints_both_engines_depth_by_depth() -> None:
    result = CliRunner().invoke(app, ["perft", "--game", "cinq_cents", "--seed", "perft", "--depth", "2"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "deck: " + " ".join(PINNED["cinq_cents-auction"]["deck"])
    assert lines[1:] == ["depth 1: readable 26  fast 26", "depth 2: readable 351  fast 351"]


def test_the_command_line_refuses_an_illegal_first_action_in_one_line() -> None:
    result = CliRunner().invoke(app, ["perft", "--game", "all_fives", "--players", "2", "--seed", "perft",
                                      "--depth", "1", "--after", "play-2H"])
    assert result.exit_code == 2 and result.output.startswith("error: ") and len(result.output.splitlines()) == 1
