"""``tricktable demo``: one complete random Twenty-Five game told deal by deal."""

from __future__ import annotations

from typer.testing import CliRunner

from tricktable.cli.main import app

runner = CliRunner()


def test_demo_plays_a_whole_twenty_five_game() -> None:
    result = runner.invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("twenty_five: 4 players")
    assert any(line.startswith("Deal 1: dealer seat") and "trump" in line for line in lines)
    assert any("trick 1: led by seat" in line and "won by seat" in line for line in lines)
    assert any(line.strip().startswith("points [") and "scores [" in line for line in lines)
    assert lines[-1].startswith("Result: finished, ")


def test_demo_local_flag_and_other_games() -> None:
    result = runner.invoke(app, ["demo", "--local", "--game", "all_fives", "--seed", "d"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith("Result: finished")
