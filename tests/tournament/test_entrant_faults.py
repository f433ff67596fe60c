"""Exec entrants that misbehave, in sandboxed tournaments over the real server: faults counted, shown, forfeited.

Each tournament is one deck set of All Fives to 11 points played twice (the sides swapped) between a
misbehaving program (tests/bots/stdio_program.py, run by ``exec:`` in each seat's sandbox) and the heuristic.
The rule is three faults a match. The clock is 20 s a decision with no bank, a bound against a hang that no
answer comes near however loaded the machine (a fault is the program's, never the clock's), except for the
program that sleeps 3 s at every answer: its clock is 2.5 s, so that it is late (the adapter gives up at
2.1 s) while the heuristic still has its time. What is checked is what the organiser reads: the stored
outcome, the report's summary and the export.
"""

from __future__ import annotations

import asyncio
import csv
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.tournament.helpers import config
from tricktable.bots.stderr import STDERR_TAIL_BYTES
from tricktable.rules.verify import verify_record
from tricktable.tournament.engine import Tournament
from tricktable.tournament.report import export, summarize
from tricktable.tournament.runner import MatchOutcome
from tricktable.tournament.server_runner import ServerDispatcher
from tricktable.tournament.store import TournamentStore

PROGRAM = Path(__file__).resolve().parents[1] / "bots" / "stdio_program.py"
BAD = "bad"
pytestmark = [pytest.mark.timeout(600),
              pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap is not installed (`make test` installs it)")]


@dataclass(frozen=True, slots=True)
class Run:
    """A finished tournament: its stored outcomes, its summary's JSON and its export folder."""

    outcomes: list[MatchOutcome]
    #: The entrants of each side of each match.
    sides: list[tuple[tuple[str, ...], ...]]
    summary: dict[str, Any]
    export: Path


def _tournament(tmp_path: Path, behaviour: str, *, long_lived: bool = True, decision_ms: int = 20_000) -> Run:
    bad = {"name": BAD, "bot": f"exec:{sys.executable} {PROGRAM} {behaviour}", "long_lived": long_lived}
    cfg = config(entrants=[bad, "heuristic"],
                 games=2, options={"target": 11}, forfeit_after=3, decision_ms=decision_ms, bank_ms=0,
                 match_timeout_s=300)

    async def go() -> Run:
        store = TournamentStore(tmp_path / "tricktable.sqlite3")
        try:
            dispatcher = await ServerDispatcher.open(cfg, address=None, data_dir=tmp_path / "data",
                                                     isolation="sandbox")
            await Tournament(cfg, store, dispatcher, concurrency=2).run()
            games = store.matches(cfg.name, with_records=True)
            outcomes = [game.outcome for game in games]
            sides = [game.spec.side_entrants() for game in games]
            summary = summarize(cfg, store)
            export(summary, store, tmp_path / "out")
            return Run(outcomes, sides, summary.to_json(), tmp_path / "out")
        finally:
            store.close()

    return asyncio.run(go())


def _assert_forfeited_for(run: Run, kind: str) -> None:
    """Every match forfeited by the bad entrant after exactly the rule's count of ``kind``; the heuristic's stand."""
    assert len(run.outcomes) == 2
    for outcome, sides in zip(run.outcomes, run.sides, strict=True):
        assert outcome.status == "forfeit" and outcome.forfeit_by == BAD, outcome.reason
        assert dict(outcome.fault_kinds[BAD]) == {kind: 3} and outcome.faults[BAD] == 3, outcome.fault_kinds
        assert outcome.faults["heuristic"] == 0 and "heuristic" not in outcome.fault_kinds
        assert f"made 3 faults (3 {kind})" in outcome.reason
        assert outcome.winners == tuple(i for i, names in enumerate(sides) if "heuristic" in names)
        assert verify_record(outcome.record) is None  # the substitute played the table out: a whole, valid record
    assert run.summary["faults"]["by_entrant"] == {BAD: {kind: 6}}
    assert sorted(m["match_id"] for m in run.summary["faults"]["matches"]) == sorted(o.match_id for o in run.outcomes)
    standing = {s["name"]: s for s in run.summary["leaderboard"]}
    assert standing[BAD]["forfeits"] == 2 and standing[BAD]["faults"] == 6 and standing["heuristic"]["faults"] == 0
    with (run.export / "faults.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {(r["entrant"], r["kind"], r["count"]) for r in rows} == {(BAD, kind, "3")} and len(rows) == 2
    with (run.export / "matches.csv").open(newline="") as fh:
        assert all(row["faults"] == f"{BAD}: 3 {kind}" for row in csv.DictReader(fh))


def test_an_exec_entrant_that_writes_garbage_is_forfeited_after_three_and_its_faults_are_shown(tmp_path: Path) -> None:
    _assert_forfeited_for(_tournament(tmp_path, "garbage"), "garbage")


def test_an_exec_entrant_started_per_match_that_writes_garbage_is_forfeited_the_same_way(tmp_path: Path) -> None:
    _assert_forfeited_for(_tournament(tmp_path, "garbage", long_lived=False), "garbage")


def test_an_exec_entrant_that_answers_illegal_actions_is_forfeited_after_three(tmp_path: Path) -> None:
    _assert_forfeited_for(_tournament(tmp_path, "illegal"), "illegal_action")


def test_an_exec_entrant_that_answers_unknown_ids_is_forfeited_after_three(tmp_path: Path) -> None:
    _assert_forfeited_for(_tournament(tmp_path, "unknown"), "unknown_action")


def test_an_exec_entrant_that_sleeps_past_its_time_is_forfeited_after_three_late_answers(tmp_path: Path) -> None:
    _assert_forfeited_for(_tournament(tmp_path, "late:100", decision_ms=2500), "late")


def test_an_exec_entrant_whose_program_exits_is_forfeited_after_three_decisions_without_it(tmp_path: Path) -> None:
    _assert_forfeited_for(_tournament(tmp_path, "exit:2"), "exited")


def test_an_exec_entrant_that_floods_stderr_plays_on_and_its_stderr_tail_is_kept_bounded(tmp_path: Path) -> None:
    run = _tournament(tmp_path, "flood")
    assert len(run.outcomes) == 2
    for outcome in run.outcomes:
        assert outcome.status == "finished" and outcome.faults == {BAD: 0, "heuristic": 0}, outcome.reason
        tail = outcome.stderr[BAD]
        assert 0 < len(tail.encode()) <= STDERR_TAIL_BYTES and tail.rstrip().endswith("x" * 100)
    lines = [json.loads(line) for line in (run.export / "stderr.jsonl").read_text().splitlines()]
    assert sorted(line["match_id"] for line in lines if line["entrant"] == BAD) == sorted(
        o.match_id for o in run.outcomes)
    assert all(len(line["stderr"].encode()) <= STDERR_TAIL_BYTES for line in lines)
    assert run.summary["faults"] == {"by_entrant": {}, "matches": []}
