"""Long ladder runs from the command line: killed and resumed, refused on other settings, stopped, summarised."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from tricktable.bots.ladder_results import read_results
from tricktable.cli.main import app

runner = CliRunner()
PAIRS = 12
#: A reproducible run: fixed worlds a decision, so two runs of it have the same outcomes.
RUN = ["ladder", "--game", "all_fives", "--games", str(PAIRS), "--sims", "2", "--pair", "pimc,heuristic",
       "--seed", "long"]


#: The command line with Ctrl-C raising KeyboardInterrupt, as at a terminal. Why not ``python -m``: a process
#: started with SIGINT ignored (a test suite run as a background job of a shell without job control) keeps it
#: ignored, and Python then installs no handler of its own, so the run would never see the test's SIGINT.
_INTERRUPTIBLE = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                  "sys.argv[0] = 'tricktable'; from tricktable.cli.main import main; main()")


def _pairs_in(path: Path) -> int:
    """Finished pair lines in a results file (the header and an unfinished last line do not count)."""
    if not path.exists():
        return 0
    return max(0, path.read_text().count("\n") - 1)


def _signal_after_two_pairs(path: Path, sent: signal.Signals) -> subprocess.CompletedProcess[str]:
    """Run the ladder as its own process, keeping its pairs in ``path``, and send it ``sent`` after two pairs."""
    process = subprocess.Popen([sys.executable, "-c", _INTERRUPTIBLE, *RUN, "--results", str(path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while _pairs_in(path) < 2 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        process.send_signal(sent)
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
        process.wait()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def test_a_killed_run_resumes_to_the_outcomes_of_an_uninterrupted_one(tmp_path: Path) -> None:
    killed = tmp_path / "killed.jsonl"
    ended = _signal_after_two_pairs(killed, signal.SIGKILL)
    assert ended.returncode == -signal.SIGKILL, "the run was killed before it ended"
    kept = read_results(killed)[0].pairs
    assert 2 <= kept < PAIRS

    resumed = runner.invoke(app, [*RUN, "--results", str(killed)])
    assert resumed.exit_code == 0, resumed.output
    assert f"{kept} pairs already played" in resumed.output
    whole = tmp_path / "whole.jsonl"
    assert runner.invoke(app, [*RUN, "--results", str(whole)]).exit_code == 0
    [after_kill], [uninterrupted] = read_results(killed), read_results(whole)
    assert after_kill.pairs == uninterrupted.pairs == PAIRS and _pairs_in(killed) == PAIRS
    assert after_kill.outcomes == uninterrupted.outcomes
    assert (after_kill.points, after_kill.games, after_kill.deals) == (uninterrupted.points, uninterrupted.games,
                                                                       uninterrupted.deals)


def test_an_interrupted_run_says_where_its_pairs_are_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "interrupted.jsonl"
    ended = _signal_after_two_pairs(path, signal.SIGINT)
    assert ended.returncode == 130, ended.stderr
    assert ended.stderr.endswith(f"interrupted: every pair that ended is in {path}; the same command plays the rest\n")
    kept = read_results(path)[0].pairs
    assert 2 <= kept < PAIRS
    resumed = runner.invoke(app, [*RUN, "--results", str(path)])
    assert resumed.exit_code == 0 and read_results(path)[0].pairs == PAIRS


def test_a_results_file_of_other_settings_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    first = [*RUN[:4], "2", *RUN[5:]]
    assert runner.invoke(app, [*first, "--results", str(path)]).exit_code == 0
    before = path.read_bytes()
    other = runner.invoke(app, [*first, "--results", str(path), "--sims", "3"])
    assert other.exit_code == 2
    assert other.output.startswith(f"error: {path} holds a run with other settings "
                                   "(steps[0].stronger.simulations: 2 in the file, 3 here)")
    assert path.read_bytes() == before, "nothing played, nothing written"


def test_until_in_the_past_plays_nothing_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    run = runner.invoke(app, [*RUN, "--results", str(path), "--until", "2000-01-01T00:00Z"])
    assert run.exit_code == 0, run.output
    assert "| all_fives | pimc vs heuristic | 0, stopped at a time set beforehand | 0 |" in run.stdout
    assert f"stopped at a time set beforehand: 0 pairs of {PAIRS} played" in run.output
    header, stop = (json.loads(line) for line in path.read_text().splitlines())
    assert "settings" in header and stop["games"] == PAIRS and read_results(path)[0].stopped


def test_until_takes_an_iso_time_or_a_duration_and_refuses_anything_else() -> None:
    from tricktable.cli.checks import stop_time

    assert stop_time("--until", "90m", 1000.0) == 1000.0 + 90 * 60
    assert stop_time("--until", "1h30m", 0.0) == stop_time("--until", "5400s", 0.0) == 5400.0
    assert stop_time("--until", "2d", 0.0) == 2 * 86400.0
    assert stop_time("--until", "2026-12-07T07:30Z", 0.0) == 1796628600.0
    bad = runner.invoke(app, [*RUN, "--until", "soon"])
    assert bad.exit_code == 2 and bad.output == (
        "error: --until must be an ISO time (2026-12-07T07:30, 2026-12-07T07:30Z) or a duration from now "
        "(90m, 2h, 1h30m, 45s), not 'soon'\n")


def test_summarise_prints_the_table_the_run_printed(tmp_path: Path) -> None:
    path, other = tmp_path / "run.jsonl", tmp_path / "other.jsonl"
    short = [*RUN[:4], "3", *RUN[5:]]
    run = runner.invoke(app, [*short, "--results", str(path), "--workers", "2", "--json", str(tmp_path / "r.json")])
    assert run.exit_code == 0, run.output
    summary = runner.invoke(app, ["ladder", "--summarise", str(path), "--json", str(tmp_path / "s.json")])
    assert summary.exit_code == 0, summary.output
    assert summary.stdout == run.stdout and "| all_fives | pimc vs heuristic | 3 |" in summary.stdout
    assert (tmp_path / "s.json").read_text() == (tmp_path / "r.json").read_text()

    other_run = runner.invoke(app, ["ladder", "--game", "twenty_five", "--games", "2", "--pair", "heuristic,random",
                                    "--results", str(other)])
    assert other_run.exit_code == 0, other_run.output
    both = runner.invoke(app, ["ladder", "--summarise", str(path), str(other)])
    assert both.exit_code == 0 and both.stdout.splitlines()[2:] == [run.stdout.splitlines()[2],
                                                                   other_run.stdout.splitlines()[2]]


def test_summarise_refuses_a_file_that_is_no_results_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text('{"hello": 1}\n')
    refused = runner.invoke(app, ["ladder", "--summarise", str(path)])
    assert refused.exit_code == 2 and refused.output == (
        f"error: {path} is not a ladder results file (its first line is no header)\n")
    assert runner.invoke(app, ["ladder", "--summarise"]).exit_code == 2
    assert runner.invoke(app, ["ladder", "--games", "2"]).output == (
        "error: give --game and --games (or --summarise FILE.jsonl...)\n")
