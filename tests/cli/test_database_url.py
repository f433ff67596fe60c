"""``serve --database-url`` (never printed with its password) and the flags of ``--role``."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tricktable.cli.main import app
from tricktable.server.record_store import ENV_DATABASE_URL

runner = CliRunner()
URL = "postgresql://tricktable:s3cret@db.example:5432/tricktable"


def test_the_url_comes_from_the_flag_or_the_environment_and_is_printed_without_its_password() -> None:
    by_flag = runner.invoke(app, ["serve", "--database-url", URL, "--print-config"])
    by_env = runner.invoke(app, ["serve", "--print-config"], env={ENV_DATABASE_URL: URL})
    for result in (by_flag, by_env):
        assert result.exit_code == 0, result.output
        assert 'database_url = "postgresql://tricktable:***@db.example:5432/tricktable"' in result.output
        assert "s3cret" not in result.output


def test_the_settings_file_sets_it(tmp_path: Path) -> None:
    config = tmp_path / "serve.toml"
    config.write_text('database_url = "postgresql:///tricktable?host=/run/postgresql"\n')
    result = runner.invoke(app, ["serve", "--config", str(config), "--print-config"])
    assert result.exit_code == 0, result.output
    assert 'database_url = "postgresql:///tricktable?host=/run/postgresql"' in result.output


def test_a_url_that_is_not_postgresql_is_one_line_and_exit_2() -> None:
    result = runner.invoke(app, ["serve", "--database-url", "mysql://root:pw@db/x", "--print-config"])
    assert result.exit_code == 2
    assert result.output.strip() == "error: --database-url must begin with postgresql:// or postgres://"


def test_the_role_flags_that_disagree_are_one_line_and_exit_2() -> None:
    cases = {
        ("--role", "lobby"): "error: --role needs --database-url: the lobby and the game processes meet in its "
                             "game directory",
        ("--role", "referee", "--database-url", URL): "error: --role must be one of lobby, game, not 'referee'",
        ("--role", "game", "--games", "3", "--database-url", URL): "error: --role game needs --game-index from 0 "
                                                                   "to 2 (--games 3)",
        ("--role", "game", "--games", "3", "--game-index", "3", "--database-url", URL): "error: --role game needs "
                                                                                        "--game-index from 0 to 2 "
                                                                                        "(--games 3)",
        ("--role", "lobby", "--shards", "2", "--database-url", URL): "error: --role runs one process: give --shards "
                                                                     "only without it",
    }
    for flags, message in cases.items():
        result = runner.invoke(app, ["serve", *flags, "--print-config"])
        assert (result.exit_code, result.output.strip()) == (2, message), flags


def test_a_game_process_prints_its_role_in_the_settings() -> None:
    result = runner.invoke(app, ["serve", "--role", "game", "--games", "3", "--game-index", "1",
                                 "--advertise-address", "game1.example:50051", "--database-url", URL, "--print-config"])
    assert result.exit_code == 0, result.output
    for line in ('role = "game"', "games = 3", "game_index = 1", 'advertise_address = "game1.example:50051"'):
        assert line in result.output
