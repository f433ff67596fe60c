"""``serve --config FILE``: every flag has a key, the command line wins, a bad file is one line naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tricktable.cli.main import app

runner = CliRunner()


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "serve.toml"
    path.write_text(text)
    return path


def test_the_file_sets_defaults_and_a_flag_on_the_line_overrides_it(tmp_path: Path) -> None:
    path = _config(tmp_path, 'port = 50999\ndecision_ms = 5000\njournal = false\ndata_dir = "/srv/tt"\n')
    result = runner.invoke(app, ["serve", "--config", str(path), "--port", "50111", "--print-config"])
    assert result.exit_code == 0, result.output
    lines = set(result.output.splitlines())
    assert {"port = 50111", "decision_ms = 5000", "journal = false", 'data_dir = "/srv/tt"', "bank_ms = 60000"} <= lines


def test_printed_settings_read_back_as_the_same_settings(tmp_path: Path) -> None:
    first = runner.invoke(app, ["serve", "--decision-ms", "2500", "--no-http", "--shards", "2", "--print-config"])
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, ["serve", "--config", str(_config(tmp_path, first.output)), "--print-config"])
    assert again.exit_code == 0 and again.output == first.output


def test_every_flag_of_serve_has_a_key(tmp_path: Path) -> None:
    printed = runner.invoke(app, ["serve", "--print-config"]).output
    keys = {line.lstrip("# ").split(" ")[0].rstrip(":") for line in printed.splitlines()}
    help_text = runner.invoke(app, ["serve", "--help"], env={"COLUMNS": "300"}).output
    for key in keys:
        assert f"--{key.replace('_', '-')}" in help_text
    assert {"port", "decision_ms", "max_tables", "http_port", "journal", "json_logs", "tls_cert"} <= keys


@pytest.mark.parametrize(("text", "message"), [
    ("decison_ms = 3\n", "unknown key 'decison_ms' (keys: advertise_address, bank_ms, call_burst_per_connection, "),
    ('decision_ms = "x"\n', "decision_ms must be an integer, not 'x'"),
    ("journal = 1\n", "journal must be true or false, not 1"),
    ("drain_seconds = true\n", "drain_seconds must be an integer or a number, not True"),
    ("port = [\n", "not valid TOML"),
])
def test_a_bad_file_is_one_line_naming_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = _config(tmp_path, text)
    result = runner.invoke(app, ["serve", "--config", str(path)])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {path}: {message}") and result.output.count("\n") == 1, result.output


def test_the_call_rates_are_keys_of_the_file_with_the_flags_checks(tmp_path: Path) -> None:
    path = _config(tmp_path, "call_rate_per_token = 5\ncall_burst_per_connection = 50\n")
    printed = runner.invoke(app, ["serve", "--config", str(path), "--print-config"])
    assert printed.exit_code == 0, printed.output
    assert "call_rate_per_token = 5" in printed.output and "call_burst_per_connection = 50" in printed.output
    refused = runner.invoke(app, ["serve", "--config", str(_config(tmp_path, "call_rate_per_connection = -1\n"))])
    assert refused.exit_code == 2
    assert refused.output == "error: --call-rate-per-connection must be at least 0, not -1\n"


def test_a_value_out_of_range_in_the_file_gets_the_flags_own_check(tmp_path: Path) -> None:
    result = runner.invoke(app, ["serve", "--config", str(_config(tmp_path, "decision_ms = 0\n"))])
    assert result.exit_code == 2
    assert result.output == "error: --decision-ms must be from 10 to 3,600,000 milliseconds, not 0\n"


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["serve", "--config", str(tmp_path / "none.toml")])
    assert result.exit_code == 2 and result.output == f"error: {tmp_path / 'none.toml'}: cannot be read " \
        "(No such file or directory)\n"


def test_the_clock_and_limit_flags_default_to_the_servers_own_values() -> None:
    """The flags speak milliseconds and MiB; their defaults are the server's TimeControl and Limits, not copies."""
    from tricktable.server.clocks import TimeControl
    from tricktable.server.limits import Limits

    clocks, limits = TimeControl(), Limits()
    result = runner.invoke(app, ["serve", "--print-config"])
    assert result.exit_code == 0, result.output
    assert {f"decision_ms = {round(clocks.decision_seconds * 1000)}", f"bank_ms = {round(clocks.bank_seconds * 1000)}",
            f"grace_ms = {round(clocks.grace_seconds * 1000)}", f"join_ms = {round(clocks.join_seconds * 1000)}",
            f"max_tables = {limits.max_tables}", f"max_tables_per_client = {limits.max_tables_per_client}",
            f"max_streams_per_client = {limits.max_streams_per_client}",
            f"min_free_mb = {limits.min_free_bytes // (1024 * 1024)}"} <= set(result.output.splitlines())
