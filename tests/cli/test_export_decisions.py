"""``tricktable export-decisions`` as a real process: a real tournament's export round-trips through Parquet and
JSON Lines, self-play is reproducible, and bad input is one clear line that writes nothing."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tricktable.envs.dataset import read_rows
from tricktable.envs.decisions import decision_rows
from tricktable.rules.actions import Action, Discard
from tricktable.rules.cards import Card
from tricktable.rules.match import Match
from tricktable.rules.notation import from_notation
from tricktable.rules.record import parse_record
from tricktable.rules.registry import game_rules
from tricktable.rules.shuffle import RecordedDecks

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "tricktable.cli.main"]


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *map(str, args)], cwd=ROOT, capture_output=True, text=True, timeout=300)


def _actions(rows: list[dict[str, Any]]) -> list[tuple[int, Action]]:
    """The actions the rows say were taken, in order, a discard's six picks put back together."""
    actions: list[tuple[int, Action]] = []
    picks: list[Card] = []
    for row in rows:
        if row["pick"] is None:
            actions.append((row["seat"], from_notation(row["action"])))
            continue
        picks.append(Card.parse(row["action"].removeprefix("pick-")))
        if row["pick"] == 5:
            actions.append((row["seat"], Discard(cards=tuple(picks))))
            picks = []
    return actions


def _replayed(record: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The record the rows' actions make when played on the record's own decks."""
    parsed = parse_record(record)
    match = Match.start(game_rules(parsed.game), parsed.options, RecordedDecks([d.deck for d in parsed.deals]),
                        seed=parsed.seed)
    for seat, action in _actions(rows):
        match = match.apply(action, seat)
    return match.to_record(seed=parsed.seed, names=[name for _, name in parsed.seats])


def _by_record(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[row["record_id"]].append(row)
    return grouped


def test_a_real_tournaments_export_round_trips_through_parquet_and_json_lines(tmp_path: Path) -> None:
    out = tmp_path / "export"
    done = _run("tournament", "--game", "all_fives", "--bots", "random,heuristic", "--games", "2",
                "--db", tmp_path / "t.sqlite3", "--out", out, "--no-progress")  # the real server, bots as processes
    assert done.returncode == 0, done.stderr
    for name in ("d.parquet", "d.jsonl"):
        exported = _run("export-decisions", out, "--out", tmp_path / name)
        assert exported.returncode == 0, exported.stderr
        assert exported.stdout.startswith("wrote ") and "from 2 records" in exported.stdout
    parquet, jsonl = list(read_rows(tmp_path / "d.parquet")), list(read_rows(tmp_path / "d.jsonl"))
    assert parquet == jsonl and len(parquet) > 20

    with (out / "matches.csv").open(newline="") as fh:
        games = {(row["seed"], row["seats"]): row["match_id"] for row in csv.DictReader(fh)}
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    ids = [games[r["seed"], " ".join(s["name"] for s in r["seats"])] for r in records]
    assert sorted(_by_record(parquet)) == sorted(ids) == sorted(games.values())
    assert parquet == [row for record_id, record in zip(ids, records, strict=True)
                       for row in decision_rows(record_id, record)]
    for record_id, record in zip(ids, records, strict=True):
        again = _replayed(record, _by_record(parquet)[record_id])
        assert again["deals"] == record["deals"] and again["result"] == record["result"]


def test_self_play_is_reproducible_and_its_records_give_the_same_rows(tmp_path: Path) -> None:
    flags = ["--selfplay", "cinq_cents", "--games", "2", "--bots", "heuristic,random", "--seed", "s",
             "--max-deals", "6"]
    first = _run("export-decisions", *flags, "--out", tmp_path / "a.jsonl", "--records-out", tmp_path / "records")
    second = _run("export-decisions", *flags, "--out", tmp_path / "b.jsonl")
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    rows = list(read_rows(tmp_path / "a.jsonl"))
    assert sorted(_by_record(rows)) == ["s-0", "s-1"]
    assert any(r["pick"] is not None for r in rows)  # a discard was made, six picks
    again = _run("export-decisions", tmp_path / "records", "--out", tmp_path / "c.jsonl")
    assert again.returncode == 0, again.stderr
    from_files = list(read_rows(tmp_path / "c.jsonl"))
    assert [{**r, "record_id": ""} for r in from_files] == [{**r, "record_id": ""} for r in rows]
    assert sorted(_by_record(from_files)) == [str(tmp_path / "records" / f"cinq_cents-{i}.json") for i in (0, 1)]
    for i in (0, 1):
        record = json.loads((tmp_path / "records" / f"cinq_cents-{i}.json").read_text())
        again_record = _replayed(record, _by_record(rows)[f"s-{i}"])
        assert again_record["deals"] == record["deals"]


def test_a_record_that_does_not_replay_is_skipped_by_name_and_the_others_are_written(tmp_path: Path) -> None:
    made = _run("export-decisions", "--selfplay", "twenty_five", "--games", "2", "--seed", "k",
                "--out", tmp_path / "ok.jsonl", "--records-out", tmp_path / "records")
    assert made.returncode == 0, made.stderr
    good, bad = (json.loads((tmp_path / "records" / f"twenty_five-{i}.json").read_text()) for i in (0, 1))
    bad["deals"][0]["actions"][0]["seat"] = (bad["deals"][0]["actions"][0]["seat"] + 1) % 4
    lines = tmp_path / "games.jsonl"
    lines.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\nnot json\n")
    done = _run("export-decisions", lines, "--out", tmp_path / "d.jsonl")
    assert done.returncode == 1
    assert f"{lines}:2: skipped: deal 1, action 0" in done.stderr
    assert f"{lines}:3: skipped: not JSON" in done.stderr
    assert "wrote" in done.stdout and "from 1 records" in done.stdout and "2 records skipped" in done.stdout
    assert {r["record_id"] for r in read_rows(tmp_path / "d.jsonl")} == {f"{lines}:1"}


@pytest.mark.parametrize(("args", "message"), [
    (["--selfplay", "whist", "--out", "{tmp}/d.jsonl"], "unknown game"),
    (["--selfplay", "all_fives", "--bots", "nosuchbot", "--out", "{tmp}/d.jsonl"], "nosuchbot"),
    (["--selfplay", "all_fives", "--option", "target=-3", "--out", "{tmp}/d.jsonl"], "target"),
    (["--selfplay", "all_fives", "--out", "{tmp}/d.csv"], "--format"),
    (["--selfplay", "all_fives", "--format", "csv", "--out", "{tmp}/d.jsonl"], "unknown format 'csv'"),
    (["{tmp}/missing.json", "--out", "{tmp}/d.jsonl"], "no such file or folder"),
    (["--out", "{tmp}/d.jsonl"], "give record files"),
    (["{tmp}", "--records-out", "{tmp}/records", "--out", "{tmp}/d.jsonl"], "--records-out keeps"),
])
def test_bad_flags_exit_2_with_one_line_and_write_nothing(tmp_path: Path, args: list[str], message: str) -> None:
    done = _run("export-decisions", *(a.format(tmp=tmp_path) for a in args))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("error: ") and message in done.stderr and done.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
