"""``tricktable match`` with bots that misbehave, and with a bot in another language, as real processes.

What a match shows of its bots: their stderr as it comes (a bot failing at every decision says so while it
plays), never blocking a noisy bot, and a bot class that cannot be made named before anything starts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(300)

BOTS = '''
import sys


class Raiser:
    def choose_action(self, view):
        raise RuntimeError("boom at every decision")


class Noisy:
    def choose_action(self, view):
        sys.stderr.write(("noise " * 170 + "\\n") * 64)  # 64 KiB a decision: a pipe's whole buffer
        sys.stderr.flush()
        return view.legal_actions[0]


class NeedsTwo:
    def __init__(self, a, b):
        pass

    def choose_action(self, view):
        return view.legal_actions[0]
'''


def _match(tmp_path: Path, *bots: str, extra: tuple[str, ...] = ()) -> tuple[subprocess.CompletedProcess[str], Path]:
    (tmp_path / "mybots.py").write_text(BOTS)
    data = tmp_path / "data"
    done = subprocess.run([sys.executable, "-m", "tricktable.cli.main", "match", "--game", "all_fives",
                           "--option", "target=11", "--bots", ",".join(bots), "--data-dir", str(data), "--seed",
                           "match-bots", "--quiet", *extra], cwd=tmp_path, capture_output=True, text=True,
                          timeout=240, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    return done, data


def _record(data: Path) -> dict[str, object]:
    record, = (data / "records").glob("*.json")
    loaded: dict[str, object] = json.loads(record.read_text())
    return loaded


def test_match_shows_the_warnings_of_a_bot_that_raises_at_every_decision(tmp_path: Path) -> None:
    done, _ = _match(tmp_path, "mybots.py:Raiser", "heuristic")
    assert done.returncode == 0, done.stdout + done.stderr
    before_the_end = done.stdout.split("finished:")[0]
    assert "boom at every decision" in before_the_end and "bot raised while choosing" in before_the_end
    assert "more stderr of mybots.py:Raiser-0 not shown here" in done.stdout, "bounded: the rest is counted"


def test_match_with_a_bot_that_floods_stderr_finishes_without_a_timeout(tmp_path: Path) -> None:
    done, data = _match(tmp_path, "mybots.py:Noisy", "heuristic", extra=("--decision-ms", "60000"))
    assert done.returncode == 0, done.stdout + done.stderr
    seats = _record(data)["seats"]
    assert isinstance(seats, list) and all(not s.get("timeouts") for s in seats), seats


def test_match_names_the_error_of_a_bot_class_that_cannot_be_made_before_anything_starts(tmp_path: Path) -> None:
    done, _ = _match(tmp_path, "mybots.py:NeedsTwo", "heuristic")
    assert done.returncode == 2
    assert "NeedsTwo() failed: TypeError" in done.stdout and "server listening" not in done.stdout


def test_match_plays_a_program_in_another_language_against_a_builtin_bot(tmp_path: Path) -> None:
    starter = ROOT / "examples" / "stdio-python" / "bot.py"
    done, data = _match(tmp_path, f"exec:{sys.executable} {starter}", "heuristic")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "playing all_fives in seat 0" in done.stdout, "the program's stderr is shown"
    result = _record(data)["result"]
    assert isinstance(result, dict) and result["status"] == "finished"
