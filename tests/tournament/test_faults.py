"""The forfeit rule's one home, the fault lines of the control protocol, and faults and stderr in the store."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from rich.console import Console

from tests.tournament.helpers import config
from tricktable.tournament.control import ControlError, Done, Fault, parse_reply
from tricktable.tournament.engine import Tournament, local_dispatcher
from tricktable.tournament.faults import FaultTally, describe
from tricktable.tournament.report import export, print_report, summarize
from tricktable.tournament.runner import MatchOutcome
from tricktable.tournament.schedule import fixed_groups, round_matches
from tricktable.tournament.sqlite_store import VERSION_TABLE
from tricktable.tournament.store import TournamentStore


def test_the_tally_forfeits_at_the_rules_count_whatever_the_kinds() -> None:
    tally = FaultTally(["a", "b"], forfeit_after=3)
    assert not tally.count("a", "garbage") and not tally.count("a", "late")
    assert tally.count("a", "late") and tally.reached("a") and not tally.reached("b")
    assert tally.totals() == {"a": 3, "b": 0} and tally.kinds() == {"a": {"late": 2, "garbage": 1}}
    assert describe(tally.kinds()["a"]) == "2 late, 1 garbage"


def test_a_bot_that_could_not_start_reaches_the_rule_at_once_with_its_earlier_faults_kept() -> None:
    tally = FaultTally(["a"], forfeit_after=3)
    tally.count("a", "timeout")
    tally.reach_limit("a", "could_not_start")
    assert tally.kinds() == {"a": {"could_not_start": 2, "timeout": 1}} and tally.reached("a")


def test_a_fault_line_is_read_back_apart_from_an_answer_and_a_bad_one_breaks_the_protocol() -> None:
    line = Fault(play="7", kind="garbage", message="not JSON" * 200).line()
    fault = parse_reply(line)
    assert isinstance(fault, Fault) and fault.play == "7" and fault.kind == "garbage"
    assert len(fault.message) <= 500
    assert parse_reply(Done(play="7", status="finished").line()) == Done(play="7", status="finished")
    with pytest.raises(ControlError, match="needs a kind"):
        parse_reply(b'{"fault": "7"}\n')


def _outcome(match_id: str) -> MatchOutcome:
    return MatchOutcome(match_id=match_id, status="forfeit", winners=(1,), scores=(3, 11), forfeit_by="random",
                        faults={"random": 3, "first-legal": 0}, fault_kinds={"random": {"late": 3}},
                        stderr={"random": "thinking...\n"})


def test_faults_by_kind_and_stderr_are_stored_with_the_match(tmp_path: Path) -> None:
    cfg = config()
    spec = round_matches(cfg, 0, fixed_groups(cfg))[0]
    store = TournamentStore(tmp_path / "t.sqlite3")
    store.begin(cfg, resume=False)
    store.save("t", spec, _outcome(spec.match_id))
    with_stderr, = store.matches("t", with_records=True)
    without, = store.matches("t")
    store.close()
    assert with_stderr.outcome.fault_kinds == {"random": {"late": 3}}
    assert with_stderr.outcome.stderr == {"random": "thinking...\n"}
    assert without.outcome.fault_kinds == {"random": {"late": 3}} and without.outcome.stderr == {}


def test_a_database_of_an_older_version_gains_the_fault_columns_and_reads_as_no_faults(tmp_path: Path) -> None:
    cfg = config()
    spec = round_matches(cfg, 0, fixed_groups(cfg))[0]
    path = tmp_path / "t.sqlite3"
    store = TournamentStore(path)
    store.begin(cfg, resume=False)
    store.save("t", spec, _outcome(spec.match_id))
    store.close()
    db = sqlite3.connect(path)  # as an older version left it: no fault_kinds or stderr column
    db.execute("ALTER TABLE tournament_matches DROP COLUMN fault_kinds")
    db.execute("ALTER TABLE tournament_matches DROP COLUMN stderr")
    db.execute(f"DELETE FROM {VERSION_TABLE} WHERE version = 3")
    db.commit()
    db.close()
    old, = TournamentStore(path, read_only=True).matches("t", with_records=True)
    assert old.outcome.fault_kinds == {} and old.outcome.stderr == {} and old.outcome.faults["random"] == 3
    TournamentStore(path).close()
    db = sqlite3.connect(path)
    columns = {row[1] for row in db.execute("PRAGMA table_info(tournament_matches)")}
    db.close()
    assert {"fault_kinds", "stderr"} <= columns


def test_an_outcome_keeps_its_faults_and_stderr_through_json() -> None:
    outcome = _outcome("m")
    again = MatchOutcome.from_json(json.loads(json.dumps(outcome.to_json())))
    assert again.fault_kinds == outcome.fault_kinds and again.stderr == outcome.stderr


def test_the_report_names_each_entrants_faults_by_kind_in_a_local_tournament(tmp_path: Path) -> None:
    cfg = config(entrants=["random", {"name": "crash", "bot": "tests.tournament.helpers:CrashingBot"}], games=2,
                 forfeit_after=2)
    store = TournamentStore(tmp_path / "t.sqlite3")
    asyncio.run(Tournament(cfg, store, local_dispatcher(cfg, 1), concurrency=1).run())
    summary = summarize(cfg, store)
    console = Console(record=True, width=200)
    print_report(summary, console)
    export(summary, store, tmp_path / "out")
    store.close()
    assert "faults of crash: 4 crashed (in 2 games" in console.export_text()
    data = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert data["faults"]["by_entrant"] == {"crash": {"crashed": 4}}
    assert [m["kinds"] for m in data["faults"]["matches"]] == [{"crashed": 2}, {"crashed": 2}]
