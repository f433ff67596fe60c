"""``tricktable verify``: per-record lines, the summary, exit codes, JSON Lines and malformed files."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.games_support import random_record
from tricktable.cli.main import app

runner = CliRunner()


def _record(seed: str = "cli") -> dict[str, object]:
    return random_record("twenty_five", {"players": 4}, seed)


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["verify", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def test_verify_valid_record_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "good.json"
    path.write_text(json.dumps(_record(), indent=2))
    code, out = _run(str(path))
    assert code == 0
    assert out.splitlines()[-1] == "1 records, 0 invalid"
    assert f"{path}: ok" in out


def test_verify_invalid_record_exits_1_and_names_deal_and_field(tmp_path: Path) -> None:
    data = _record()
    data["deals"][0]["scores"][0] += 5  # type: ignore[index]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    code, out = _run(str(path))
    assert code == 1
    line = next(x for x in out.splitlines() if x.startswith(str(path)))
    assert "invalid: deal 1: deals[0].scores" in line
    assert "expected" in line and "record says" in line
    assert out.splitlines()[-1] == "1 records, 1 invalid"


def test_verify_json_lines_reports_the_line(tmp_path: Path) -> None:
    good = _record("a")
    bad = _record("b")
    bad["deals"][0]["tricks"][0]["winner"] = (bad["deals"][0]["tricks"][0]["winner"] + 1) % 4  # type: ignore[index]
    path = tmp_path / "many.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (good, bad, good)) + "\n")
    code, out = _run("--quiet", str(path))
    assert code == 1
    assert f"{path}:2: invalid: deal 1: deals[0].tricks[0].winner" in out
    assert f"{path}:1" not in out
    assert out.splitlines()[-1] == "3 records, 1 invalid"


def test_verify_malformed_files_get_an_error_line_never_a_traceback(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "tricktable-record/1", ')
    array = tmp_path / "array.json"
    array.write_text("[1, 2, 3]")
    empty = tmp_path / "empty.json"
    empty.write_text("")
    missing = tmp_path / "missing.json"
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_record()))
    code, out = _run(str(broken), str(array), str(empty), str(missing), str(good))
    assert code == 1
    assert "Traceback" not in out
    assert f"{broken}: invalid: not JSON" in out
    assert f"{array}: invalid: not a game record" in out
    assert f"{empty}: invalid: empty file" in out
    assert f"{missing}: invalid: no such file" in out
    assert f"{good}: ok" in out
    assert out.splitlines()[-1] == "5 records, 4 invalid"


def test_verify_bad_line_in_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_text(json.dumps(_record()) + "\n{oops\n")
    code, out = _run(str(path))
    assert code == 1
    assert f"{path}:2: invalid: not JSON" in out
    assert out.splitlines()[-1] == "2 records, 1 invalid"
