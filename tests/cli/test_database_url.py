"""``serve --database-url`` (never printed with its password) and the flags of ``--role``."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tricktable.cli.main import app
from tricktable.server.forwarding import ENV_SECRET_FILE
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
                                                                   "to 2 (--games 3), or --claim-game-index "
                                                                   "(not both)",
        ("--role", "game", "--games", "3", "--game-index", "3", "--database-url", URL): "error: --role game needs "
                                                                                        "--game-index from 0 to 2 "
                                                                                        "(--games 3), or "
                                                                                        "--claim-game-index (not "
                                                                                        "both)",
        ("--role", "lobby", "--shards", "2", "--database-url", URL): "error: --role runs one process: give --shards "
                                                                     "only without it",
    }
    for flags, message in cases.items():
        result = runner.invoke(app, ["serve", *flags, "--print-config"])
        assert (result.exit_code, result.output.strip()) == (2, message), flags


def test_a_game_process_prints_its_role_in_the_settings_and_the_secret_file_never_the_secret(tmp_path: Path) -> None:
    secret = tmp_path / "forwarding-secret"
    secret.write_text("a" * 64 + "\n")
    result = runner.invoke(app, ["serve", "--role", "game", "--games", "3", "--game-index", "1",
                                 "--advertise-address", "game1.example:50051", "--database-url", URL, "--print-config"],
                           env={ENV_SECRET_FILE: str(secret)})
    assert result.exit_code == 0, result.output
    for line in ('role = "game"', "games = 3", "game_index = 1", 'advertise_address = "game1.example:50051"',
                 f'forwarding_secret_file = "{secret}"'):
        assert line in result.output
    assert "a" * 64 not in result.output


def test_a_role_without_a_usable_forwarding_secret_is_one_line_and_exit_2(tmp_path: Path) -> None:
    short = tmp_path / "short"
    short.write_text("too-short\n")
    cases = {
        (): f"error: --role needs --forwarding-secret-file (or ${ENV_SECRET_FILE}): the processes sign the calls "
            "they forward to each other with its secret",
        ("--forwarding-secret-file", str(short)): f"error: the forwarding secret in {short} has 9 bytes; it needs "
                                                  "at least 32 (e.g. openssl rand -hex 32)",
        ("--forwarding-secret-file", str(tmp_path / "missing")): f"error: the forwarding secret file "
                                                                 f"{tmp_path / 'missing'} can not be read (No such "
                                                                 "file or directory)",
    }
    for flags, message in cases.items():
        result = runner.invoke(app, ["serve", "--role", "lobby", "--database-url", URL, *flags, "--print-config"])
        assert (result.exit_code, result.output.strip()) == (2, message), flags
