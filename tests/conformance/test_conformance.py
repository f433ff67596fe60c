"""``tricktable conformance``: correct clients pass every situation; each fault fails its situation.

The clients under test run as separate processes through the harness's relay
against an in-process server, exactly as a user's client would.
"""

from __future__ import annotations

import sys

import pytest

from server.conformance import expand, situations
from tests.conformance.helpers import run_check, verdict_lines

SITUATIONS = [s.name for s in situations()]
SCRIPTED = [sys.executable, "-m", "tests.conformance.scripted_client"]


def test_placeholders_are_replaced_in_every_argument():
    assert expand(["bot", "--server={address}", "{token}", "x"], "127.0.0.1:5", "tok") == \
        ["bot", "--server=127.0.0.1:5", "tok", "x"]


def test_python_reference_bot_passes_every_situation():
    done = run_check([sys.executable, "-m", "cli.main", "bot", "random", "--server", "{address}", "--token",
                      "{token}"])
    lines = verdict_lines(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(lines) == sorted(SITUATIONS)
    assert all(line.startswith("PASS") for line in lines.values()), done.stdout


def test_scripted_client_without_faults_passes_every_situation():
    done = run_check([*SCRIPTED, "good"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(line.startswith("PASS") for line in verdict_lines(done.stdout).values())


@pytest.mark.parametrize(("mode", "situation", "args", "expected"), [
    ("ignore-rejection", "rejection", ["--decision-ms", "400", "--bank-ms", "0"], "did not answer decision"),
    ("fresh-rejoin", "reconnect", [], "rejoined without last_seen_sequence"),
    ("no-reconnect", "reconnect", [], "exited with status 1"),
    ("slow-first", "clock", ["--clock-ms", "300"], "not answered within 300 ms"),
    ("quit-early", "normal-game", [], "game_ended never reached the client"),
])
def test_a_faulty_client_fails_its_situation(mode, situation, args, expected):
    done = run_check([*SCRIPTED, mode], "--only", situation, *args)
    line = verdict_lines(done.stdout).get(situation, "")
    assert done.returncode == 1, done.stdout + done.stderr
    assert line.startswith(f"FAIL {situation}:"), done.stdout
    assert expected in line


def test_unknown_situation_is_a_usage_error():
    done = run_check([*SCRIPTED, "good"], "--only", "no-such-situation")
    assert done.returncode == 2
    assert "unknown situation" in done.stderr
