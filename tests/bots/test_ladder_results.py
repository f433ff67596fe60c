"""A ladder run's results file: pairs kept as they end, resumed by index, a stop time, the file's own table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tricktable.bots.ladder import BotSpec, PairOutcome, run_pair, table
from tricktable.bots.ladder_results import ResultsFile, ResultsFileError, read_results, results_file, settings

GAME = "all_fives"
WEAKER, STRONGER = BotSpec("heuristic"), BotSpec("pimc", simulations=2)
RUN = [(GAME, WEAKER, STRONGER)]


def test_a_stop_time_starts_no_pair_after_it_and_says_the_run_stopped() -> None:
    ended: list[PairOutcome] = []

    def clock() -> float:  # time moves one second each time a pair ends
        return float(len(ended))

    result = run_pair(GAME, BotSpec("random"), BotSpec("heuristic"), 6, on_outcome=ended.append, stop_at=3.0,
                      clock=clock)
    assert result.pairs == 3 and result.stopped and [o.index for o in result.outcomes] == [0, 1, 2]
    assert "| 3, stopped at a time set beforehand |" in table([result])
    whole = run_pair(GAME, BotSpec("random"), BotSpec("heuristic"), 6, stop_at=100.0, clock=clock)
    assert not whole.stopped and whole.pairs == 6


def test_pairs_ended_out_of_order_resume_into_the_uninterrupted_ladder() -> None:
    whole = run_pair(GAME, WEAKER, STRONGER, 5, seed="gaps")
    kept = [o for o in whole.outcomes if o.index in (0, 3)]  # what a killed run with two workers may leave
    heard: list[PairOutcome] = []
    resumed = run_pair(GAME, WEAKER, STRONGER, 5, seed="gaps", workers=2, done=kept, on_outcome=heard.append)
    assert sorted(o.index for o in heard) == [1, 2, 4], "only the missing pairs are played"
    assert resumed.outcomes == whole.outcomes and resumed.points == whole.points and resumed.games == whole.games
    assert not resumed.stopped


def test_a_results_file_reads_back_as_the_runs_own_rows(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with results_file(path, settings(RUN, {}, "file")) as kept:
        result = run_pair(GAME, WEAKER, STRONGER, 3, seed="file",
                          on_outcome=lambda o: kept.append(GAME, WEAKER.name, STRONGER.name, o))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["settings"]["steps"][0]["stronger"]["simulations"] == 2 and len(lines) == 4
    assert {"index", "points", "games", "deals", "stronger_effort", "weaker_effort", "cpu", "wall", "load",
            "ended"} <= set(lines[1])
    [row] = read_results(path)
    assert row == result and table([row]) == table([result])
    assert row.stronger_effort.cpu == result.stronger_effort.cpu and row.load_range == result.load_range


def test_a_file_of_other_settings_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with results_file(path, settings(RUN, {}, "file")):
        pass
    before = path.read_bytes()
    for other in (settings(RUN, {}, "another seed"), settings([(GAME, WEAKER, BotSpec("pimc", simulations=3))],
                                                              {}, "file")):
        with pytest.raises(ResultsFileError, match="other settings"):
            ResultsFile(path, other)
    assert path.read_bytes() == before


def test_a_file_being_written_by_another_run_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with results_file(path, settings(RUN, {}, "file")), pytest.raises(ResultsFileError, match="another ladder run"):
        ResultsFile(path, settings(RUN, {}, "file"))


def test_an_unfinished_last_line_is_dropped_and_its_pair_played_again(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with results_file(path, settings(RUN, {}, "cut")) as kept:
        whole = run_pair(GAME, WEAKER, STRONGER, 3, seed="cut",
                         on_outcome=lambda o: kept.append(GAME, WEAKER.name, STRONGER.name, o))
    text = path.read_text()
    path.write_text(text[: len(text) - 40])  # killed while writing the third pair
    assert read_results(path)[0].pairs == 2
    with results_file(path, settings(RUN, {}, "cut")) as kept:
        assert kept.dropped_unfinished_line and len(kept.done(GAME, WEAKER.name, STRONGER.name)) == 2
        resumed = run_pair(GAME, WEAKER, STRONGER, 3, seed="cut", done=kept.done(GAME, WEAKER.name, STRONGER.name),
                           on_outcome=lambda o: kept.append(GAME, WEAKER.name, STRONGER.name, o))
    assert resumed.outcomes == whole.outcomes and read_results(path)[0].outcomes == whole.outcomes


@pytest.mark.parametrize(("text", "message"), [
    ("not json\n", "is not a ladder results file"),
    ('{"format": "something else"}\n', "is not a ladder results file"),
    ('{"format": "tricktable-ladder-results", "version": 99, "settings": {}}\n', "version 99"),
])
def test_a_file_that_is_not_a_results_file_is_refused_clearly(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "other.jsonl"
    path.write_text(text)
    with pytest.raises(ResultsFileError, match=message):
        read_results(path)
