"""``serve --database-url``: from the flag, the environment or the settings file; never printed with its password."""

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
