"""Command-line values checked before anything starts: one line, the user's units, exit status 2."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tricktable.cli.main import app

runner = CliRunner()


@pytest.mark.parametrize(("args", "message"), [
    (["--port", "99999"], "--port must be a port from 0 (any free port) to 65535, not 99999"),
    (["--port", "-1"], "--port must be a port from 0 (any free port) to 65535, not -1"),
    (["--log-level", "LOUD"], "--log-level must be one of DEBUG, INFO, WARNING, ERROR, not 'LOUD'"),
    (["--decision-ms", "0"], "--decision-ms must be from 10 to 3,600,000 milliseconds, not 0"),
    (["--bank-ms", "-1"], "--bank-ms must be from 0 to 86,400,000 milliseconds, not -1"),
    (["--grace-ms", "-5"], "--grace-ms must be from 0 to 3,600,000 milliseconds, not -5"),
    (["--join-ms", "0"], "--join-ms must be from 10 to 86,400,000 milliseconds, not 0"),
    (["--max-tables", "0"], "--max-tables must be at least 1, not 0"),
    (["--max-streams-per-client", "0"], "--max-streams-per-client must be at least 1, not 0"),
])
def test_serve_refuses_a_bad_flag_in_one_line_with_status_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["serve", *args])
    assert result.exit_code == 2
    assert result.output == f"error: {message}\n"


def test_ladder_refuses_a_budget_that_is_not_positive() -> None:
    result = runner.invoke(app, ["ladder", "--game", "all_fives", "--games", "1", "--sims", "0", "--budget", "-1"])
    assert result.exit_code == 2 and result.output == "error: --budget must be a positive number of seconds, not -1\n"


def test_ladder_measures_any_pair_named_on_the_command_line() -> None:
    result = runner.invoke(app, ["ladder", "--game", "all_fives", "--games", "2", "--pair", "first-legal,random"])
    assert result.exit_code == 0, result.output
    assert "| all_fives | first-legal vs random | 2 |" in result.output
    refused = runner.invoke(app, ["ladder", "--game", "all_fives", "--games", "2", "--pair", "first-legal,nobody"])
    assert refused.exit_code == 2 and "unknown bot 'nobody'" in refused.output


def test_version_prints_the_installed_version() -> None:
    from importlib import metadata

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == f"tricktable {metadata.version('tricktable')}\n"


@pytest.mark.parametrize("command", ["match", "tournament", "replay", "bot", "ladder", "demo"])
def test_every_command_naming_bots_lists_every_bot_and_the_authors_own(command: str) -> None:
    from tricktable.bots import BOTS

    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert all(name in result.output for name in BOTS) and "path/to/file.py:Class" in result.output


def test_match_refuses_an_unknown_bot_before_starting_anything() -> None:
    result = runner.invoke(app, ["match", "--game", "all_fives", "--bots", "random,nobody"])
    assert result.exit_code == 2 and "unknown bot 'nobody'" in result.output and "listening" not in result.output


def test_demo_cinq_cents_finishes_a_short_game() -> None:
    result = runner.invoke(app, ["demo", "--game", "cinq_cents"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[-1].startswith("Result: finished, target reached")
    assert len(lines) < 400


def test_demo_seats_the_bots_given() -> None:
    result = runner.invoke(app, ["demo", "--game", "all_fives", "--bots", "heuristic,first-legal"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith("Result: finished")


def test_ladder_refuses_an_unknown_clock() -> None:
    result = runner.invoke(app, ["ladder", "--game", "all_fives", "--games", "1", "--sims", "0", "--clock", "sundial"])
    assert result.exit_code == 2
    assert "--clock" in result.output


def test_match_refuses_a_viewer_port_out_of_range_in_one_line() -> None:
    result = runner.invoke(app, ["match", "--game", "all_fives", "--bots", "random,random", "--http-port", "70000"])
    assert result.exit_code == 2
    assert result.output == "error: --http-port must be a port from 0 (any free port) to 65535, not 70000\n"


def test_match_with_its_viewer_port_taken_says_so_in_one_line_and_plays_nothing(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "tricktable.cli.main", "match", "--game", "all_fives",
                               "--bots", "random,random", "--http-port", str(port), "--data-dir", str(tmp_path)],
                              capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "300"})
    assert done.returncode == 2, done.stderr
    assert f"error: the web viewer's port {port} is taken by another program" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    assert list(tmp_path.glob("records/*.json")) == []
