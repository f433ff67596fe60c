"""``tricktable selfplay``: one record per game, the same seed gives the same bytes, options parsed as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.games_support import LAYOUTS, layout_id
from tricktable.cli.main import app
from tricktable.cli.selfplay import parse_options
from tricktable.rules.errors import OptionsError
from tricktable.rules.verify import verify_record

runner = CliRunner()


def _selfplay(out: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["selfplay", *args, "--out", str(out)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


@pytest.mark.parametrize("layout", [lay for lay in LAYOUTS if lay[0] != "forty_five" or lay[1].get("jink")],
                         ids=layout_id)
def test_selfplay_writes_verified_records(tmp_path: Path, layout: tuple[str, dict[str, object]]) -> None:
    game, options = layout
    args = ["--game", game, "--games", "2", "--seed", "t", "--max-deals", "8"]
    for key, value in options.items():
        args += ["--players", str(value)] if key == "players" else ["--option", f"{key}={json.dumps(value)}"]
    code, out = _selfplay(tmp_path, *args)
    assert code == 0, out
    files = sorted(tmp_path.iterdir())
    assert [f.name for f in files] == [f"{game}-0.json", f"{game}-1.json"]
    for f in files:
        data = json.loads(f.read_text())
        assert data["game"] == game
        assert data["seed"] == f"t-{f.name[-6]}"
        for key, value in options.items():
            assert data["options"][key] == value
        assert verify_record(data) is None


def test_selfplay_same_seed_same_bytes(tmp_path: Path) -> None:
    args = ("--game", "forty_five", "--players", "3", "--games", "2", "--seed", "same")
    assert _selfplay(tmp_path / "a", *args)[0] == 0
    assert _selfplay(tmp_path / "b", *args)[0] == 0
    for name in ("forty_five-0.json", "forty_five-1.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert (tmp_path / "a" / "forty_five-0.json").read_bytes() != (tmp_path / "a" / "forty_five-1.json").read_bytes()
    other = ("--game", "forty_five", "--players", "3", "--games", "1", "--seed", "other")
    assert _selfplay(tmp_path / "c", *other)[0] == 0
    assert (tmp_path / "c" / "forty_five-0.json").read_bytes() != (tmp_path / "a" / "forty_five-0.json").read_bytes()


def test_selfplay_bad_options_are_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["selfplay", "--game", "twenty_five", "--players", "5", "--games", "1",
                                 "--seed", "x", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "twenty_five" in result.output and "Traceback" not in result.output
    result = runner.invoke(app, ["selfplay", "--game", "euchre", "--games", "1", "--seed", "x", "--out",
                                 str(tmp_path)])
    assert result.exit_code == 2 and "unknown game 'euchre'" in result.output


def test_selfplay_aborts_a_game_at_the_deal_limit(tmp_path: Path) -> None:
    code, _ = _selfplay(tmp_path, "--game", "cinq_cents", "--games", "1", "--seed", "s", "--max-deals", "2")
    assert code == 0
    data = json.loads((tmp_path / "cinq_cents-0.json").read_text())
    assert data["result"]["status"] in ("finished", "aborted")
    if data["result"]["status"] == "aborted":
        assert "deal limit" in data["result"]["reason"]
    assert verify_record(data) is None


def test_parse_options_reads_json_values_else_text() -> None:
    assert parse_options(["jink=true", "target=31", "deal_pattern=2-3", 'bid_values={"6": {"S": 1}}', "name=x=y"],
                         players=4) == {"players": 4, "jink": True, "target": 31, "deal_pattern": "2-3",
                                        "bid_values": {"6": {"S": 1}}, "name": "x=y"}
    with pytest.raises(OptionsError):
        parse_options(["jink"])
