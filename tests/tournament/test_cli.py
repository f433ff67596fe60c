"""``tricktable tournament`` as a real process: flags, bad input, and a SIGKILL mid-way then --resume."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tricktable.client_sdk.runner import Backoff
from tricktable.tournament.config import load_config
from tricktable.tournament.seat import PARENT_ENV, SERVER_WAIT_SECONDS

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "tricktable.cli.main", "tournament"]

CONFIG = """
name = "kill-test"
game = "all_fives"
format = "round_robin"
games = 40
seed = "kill"
concurrency = 1
entrants = ["random", "first-legal", { name = "random-2", bot = "random" }]
"""


def tournament(*args: str, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout, **kwargs)


def bots_of(tournament_pid: int) -> list[int]:
    """Live processes started by that tournament: their environment names it (:data:`tournament.seat.PARENT_ENV`).

    Only this test's processes carry its tournament's pid, so nothing another session runs can match.
    """
    marker = f"{PARENT_ENV}={tournament_pid}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if marker in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def stored(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as con:
            return int(con.execute("SELECT COUNT(*) FROM tournament_matches").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


def tables(summary: Path) -> dict[str, object]:
    data = json.loads(summary.read_text())
    return {k: data[k] for k in ("leaderboard", "pairs", "crosstable", "games", "forfeits", "errors")}


def test_example_config_is_valid():
    cfg = load_config(ROOT / "examples" / "tournament.toml")
    assert cfg.name == "example" and len(cfg.entrants) == 3
    assert any(e.command for e in cfg.entrants) and any(e.bot for e in cfg.entrants)


def test_flags_run_a_simple_tournament(tmp_path):
    done = tournament("--game", "all_fives", "--bots", "random,random", "--games", "2", "--runner", "local",
                      "--db", str(tmp_path / "db.sqlite3"), "--out", str(tmp_path / "out"), "--no-progress")
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert [s["name"] for s in summary["leaderboard"]] != [] and summary["games"] == 2
    assert {s["name"] for s in summary["leaderboard"]} == {"random", "random-2"}


def test_bad_config_exits_2_with_a_message(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "whist"\nentrants = ["random", "random"]\n')
    done = tournament(str(bad), "--db", str(tmp_path / "db.sqlite3"))
    assert done.returncode == 2 and "unknown game 'whist'" in done.stderr


def test_a_wrongly_typed_field_exits_2_with_one_line_naming_it(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "all_fives"\ngames = "two"\nentrants = ["random", "first-legal"]\n')
    done = tournament(str(bad), "--db", str(tmp_path / "db.sqlite3"))
    assert done.returncode == 2 and done.stderr == "error: games: Input should be a valid integer\n"


def test_killed_tournament_resumes_to_the_same_final_table(tmp_path):
    config = tmp_path / "kill.toml"
    config.write_text(CONFIG)
    total = 3 * 40
    # Uninterrupted run.
    whole = tournament(str(config), "--runner", "local", "--db", str(tmp_path / "whole.sqlite3"),
                       "--out", str(tmp_path / "whole"), "--no-progress")
    assert whole.returncode == 0, whole.stderr
    # Killed run: SIGKILL once some matches are stored, then --resume.
    db = tmp_path / "killed.sqlite3"
    args = [*CLI, str(config), "--runner", "local", "--db", str(db), "--out", str(tmp_path / "killed"),
            "--no-progress"]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while stored(db) < 15 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    at_kill = stored(db)
    assert 15 <= at_kill < total, f"the kill came too late to test anything ({at_kill} of {total} stored)"
    resumed = tournament(str(config), "--runner", "local", "--db", str(db), "--out", str(tmp_path / "killed"),
                         "--no-progress", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert stored(db) == total
    summary = json.loads((tmp_path / "killed" / "summary.json").read_text())
    assert summary["run"]["already_done"] == at_kill and summary["run"]["played"] == total - at_kill
    assert tables(tmp_path / "killed" / "summary.json") == tables(tmp_path / "whole" / "summary.json")
    again = tournament(str(config), "--runner", "local", "--db", str(db), "--no-progress")
    assert again.returncode == 2 and "--resume" in again.stderr


SERVER_CONFIG = """
name = "server-kill"
game = "all_fives"
games = 8
seed = "server-kill"
concurrency = 2
entrants = ["random", "first-legal"]
"""


#: Seconds a tournament of this module's kill test may take (a few, idle): bounds only, under the test's own timeout.
RUN_BOUND = 240
#: Seconds a bot left without its tournament keeps trying on its own before it gives up (its first connection's
#: patience, or its reconnects'): a bot gone sooner noticed its parent's death; one gone later merely gave up.
ORPHAN_GIVES_UP = min(SERVER_WAIT_SECONDS, Backoff().patience())


@pytest.mark.timeout(3 * RUN_BOUND + 60)
def test_killed_tournament_over_the_server_resumes_to_the_same_final_table(tmp_path):
    config = tmp_path / "server.toml"
    config.write_text(SERVER_CONFIG)
    whole = tournament(str(config), "--db", str(tmp_path / "whole" / "tricktable.sqlite3"),
                       "--out", str(tmp_path / "whole-out"), "--no-progress", timeout=RUN_BOUND)
    assert whole.returncode == 0, whole.stderr
    db = tmp_path / "killed" / "tricktable.sqlite3"
    args = [*CLI, str(config), "--db", str(db), "--out", str(tmp_path / "killed-out"), "--no-progress"]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + RUN_BOUND
        while stored(db) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)  # the tournament only: its bots must notice and go
    finally:
        proc.wait(timeout=30)
    at_kill = stored(db)
    assert 2 <= at_kill < 8
    resumed = tournament(str(config), "--db", str(db), "--out", str(tmp_path / "killed-out"), "--no-progress",
                         "--resume", timeout=RUN_BOUND)
    assert resumed.returncode == 0, resumed.stderr
    assert stored(db) == 8
    assert tables(tmp_path / "killed-out" / "summary.json") == tables(tmp_path / "whole-out" / "summary.json")
    # The killed run's bots (in sessions of their own) noticed their parent's death and exited: before they would
    # have given up on their own (a bot still starting when the kill came notices it once it has started).
    deadline = time.monotonic() + ORPHAN_GIVES_UP
    while time.monotonic() < deadline:
        survivors = bots_of(proc.pid)
        if not survivors:
            break
        time.sleep(0.5)
    assert not survivors


def test_an_unknown_bot_stops_the_tournament_before_the_first_game(tmp_path):
    db = tmp_path / "db.sqlite3"
    done = tournament("--game", "all_fives", "--bots", "random,randm", "--games", "2", "--db", str(db),
                      "--no-progress")
    assert done.returncode == 2
    assert "unknown bot 'randm'" in done.stderr and "Traceback" not in done.stderr
    assert stored(db) == 0


def test_an_unreachable_server_stops_the_tournament_before_the_first_game(tmp_path):
    db = tmp_path / "db.sqlite3"
    done = tournament("--game", "all_fives", "--bots", "random,first-legal", "--games", "2", "--db", str(db),
                      "--server", "127.0.0.1:1", "--no-progress")
    assert done.returncode == 2
    assert "cannot connect to 127.0.0.1:1" in done.stderr
    assert stored(db) == 0


def test_a_run_of_nothing_but_forfeits_exits_non_zero(tmp_path):
    bot = tmp_path / "crasher.py"
    bot.write_text("class Crash:\n    def choose_action(self, view):\n        raise RuntimeError('boom')\n")
    done = tournament("--game", "all_fives", "--bots", f"{bot}:Crash,{bot}:Crash", "--games", "2", "--runner",
                      "local", "--db", str(tmp_path / "db.sqlite3"), "--out", str(tmp_path / "out"), "--no-progress")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "every game ended in an error or a forfeit" in done.stdout


def test_a_second_tournament_with_other_bots_on_the_same_game_and_seed_runs(tmp_path):
    common = ["--game", "all_fives", "--games", "2", "--runner", "local", "--db", str(tmp_path / "db.sqlite3"),
              "--no-progress"]
    first = tournament("--bots", "random,first-legal", *common, "--out", str(tmp_path / "one"))
    second = tournament("--bots", "random,heuristic", *common, "--out", str(tmp_path / "two"))
    assert first.returncode == 0, first.stdout + first.stderr
    assert second.returncode == 0, second.stdout + second.stderr
    again = tournament("--bots", "random,heuristic", *common, "--out", str(tmp_path / "three"))
    assert again.returncode == 2 and "use --resume to continue it" in again.stderr


def test_the_report_is_not_cut_when_piped_at_80_columns(tmp_path):
    done = tournament("--game", "all_fives", "--bots", "random,first-legal,heuristic", "--games", "2", "--runner",
                      "local", "--db", str(tmp_path / "db.sqlite3"), "--out", str(tmp_path / "out"), "--no-progress",
                      env={**os.environ, "COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    assert "first-legal" in done.stdout and "points" in done.stdout and "faults" in done.stdout


def test_the_report_after_two_deck_sets_prints_no_interval_without_width(tmp_path):
    done = tournament("--game", "all_fives", "--bots", "random,first-legal,heuristic", "--games", "4", "--runner",
                      "local", "--db", str(tmp_path / "db.sqlite3"), "--out", str(tmp_path / "out"), "--no-progress",
                      env={**os.environ, "COLUMNS": "120"})
    assert done.returncode == 0, done.stderr
    intervals = [(float(lo), float(hi)) for lo, hi in re.findall(r"\[(\d\.\d{3}), (\d\.\d{3})\]", done.stdout)]
    assert len(intervals) == 3, done.stdout  # one per pair of the three entrants, each over 2 deck sets
    assert all(lo < hi for lo, hi in intervals), done.stdout
    assert "Wilson" in done.stdout
    pairs = json.loads((tmp_path / "out" / "summary.json").read_text())["pairs"]
    assert [p["deck_sets"] for p in pairs] == [2, 2, 2]
    assert all(p["ci95_low"] < p["ci95_high"] and p["ci95_method"] == "wilson" for p in pairs)
