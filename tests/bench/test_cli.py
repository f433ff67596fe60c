"""The benchmarks' shared command line: one parser shape, one report writer, one rate look-up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import cli


def test_a_benchmarks_parser_names_its_module_and_takes_the_workload_options(tmp_path: Path) -> None:
    parser = cli.parser("bench.example", "Measures an example.\n\nMore words.", out=tmp_path / "default.json")
    cli.add_workload_options(parser, seconds=1.5, rounds=4)
    assert parser.prog == "python -m bench.example" and parser.description == "Measures an example."
    args = parser.parse_args([])
    assert (args.out, args.seconds, args.rounds, args.only) == (tmp_path / "default.json", 1.5, 4, "")
    assert parser.parse_args(["--only", "five", "--out", "x.json"]).out == Path("x.json")


def test_a_parser_without_a_default_report_takes_no_out_flag() -> None:
    with pytest.raises(SystemExit):
        cli.parser("bench.example", None).parse_args(["--out", "x.json"])


def test_a_report_is_written_as_json_in_a_folder_made_for_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    out = tmp_path / "results" / "report.json"
    cli.write_report(out, {"measured_at": cli.measured_at(), "machine": cli.machine()})
    report = json.loads(out.read_text())
    assert {"platform", "cpu_count", "python", "load_average"} <= set(report["machine"])
    assert f"wrote {out}" in capsys.readouterr().out


def test_a_rate_is_none_for_an_entry_not_measured_or_failed() -> None:
    results: dict[str, dict[str, Any]] = {"a": {"decisions_per_second": 1200}, "b": {"error": "not available"}}
    assert (cli.rate(results, "a"), cli.rate(results, "b"), cli.rate(results, "c")) == (1200.0, None, None)
