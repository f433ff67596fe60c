"""The deck key's commitment and reveal: shown at the start, key hidden while it runs, ``tricktable verify`` after."""

from __future__ import annotations

import asyncio
import csv
import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.tournament.conftest import SHARED_DECK_KEY
from tests.tournament.helpers import config
from tests.tournament.test_cli import ROOT, tournament
from tricktable.tournament.deck_key import SCHEME, commitment, opens
from tricktable.tournament.engine import Tournament, local_dispatcher
from tricktable.tournament.report import export, summarize
from tricktable.tournament.schedule import deck_seed
from tricktable.tournament.store import TournamentStore
from tricktable.web.standings import page_from_database

HEX64 = re.compile(r"[0-9a-f]{64}")


def salt_in(db: Path, name: str) -> str:
    """The salt the store drew (read from the file as anyone with the database could)."""
    with sqlite3.connect(db) as con:
        return str(con.execute("SELECT deck_salt FROM tournaments WHERE id = ?", (name,)).fetchone()[0])


def verify(*paths: Path) -> subprocess.CompletedProcess[str]:
    """``tricktable verify PATH...`` as a real process."""
    return subprocess.run([sys.executable, "-m", "tricktable.cli.main", "verify", "-q", *map(str, paths)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def finished_export(tmp_path: Path) -> Path:
    """A finished two-entrant tournament (two deck sets of two games) exported by the real command."""
    out = tmp_path / "out"
    done = tournament("--game", "all_fives", "--bots", "random,first-legal", "--games", "4", "--seed", "audit",
                      "--runner", "local", "--db", str(tmp_path / "db.sqlite3"), "--out", str(out), "--no-progress")
    assert done.returncode == 0, done.stderr
    return out


def test_the_commitment_is_published_at_start_and_the_key_is_not_shown_while_running(tmp_path):
    db = tmp_path / "db.sqlite3"
    cfg = config(name="open-cup")
    store = TournamentStore(db)
    store.begin(cfg, resume=False)  # begun, no game played yet
    salt = salt_in(db, cfg.name)
    try:
        for status in ("running", "interrupted"):  # an interrupted tournament deals the rest on --resume
            store.set_status(cfg.name, status)
            page = page_from_database(db, cfg.name)
            assert page is not None
            assert page["deck_key"] == {"scheme": SCHEME, "key": None, "salt": None,
                                        "commitment": commitment(tournament=cfg.name, seed=cfg.seed, salt=salt,
                                                                 key=SHARED_DECK_KEY)}
            written = export(summarize(cfg, store), store, tmp_path / status)
            shown = [json.dumps(page), *(path.read_text(encoding="utf-8") for path in written)]
            assert not any(SHARED_DECK_KEY in text or salt in text for text in shown), status
            summary = json.loads((tmp_path / status / "summary.json").read_text())
            assert summary["deck_key"] == page["deck_key"]
    finally:
        store.close()


def test_the_key_is_revealed_once_every_table_has_ended_and_opens_the_commitment(tmp_path):
    db = tmp_path / "db.sqlite3"
    cfg = config(name="closed-cup", games=4)
    store = TournamentStore(db)
    try:
        store.begin(cfg, resume=False)
        at_start = summarize(cfg, store).to_json()["deck_key"]["commitment"]
        asyncio.run(Tournament(cfg, store, local_dispatcher(cfg, 1)).run(resume=True))
        assert store.status(cfg.name) == "finished"
        page = page_from_database(db, cfg.name)
        assert page is not None
        shown = page["deck_key"]
        assert (shown["commitment"], shown["key"]) == (at_start, SHARED_DECK_KEY) and HEX64.fullmatch(shown["salt"])
        assert opens(at_start, tournament=cfg.name, seed=cfg.seed, salt=shown["salt"], key=shown["key"])
        assert not opens(at_start, tournament=cfg.name, seed=cfg.seed, salt=shown["salt"], key="another key")
        matches = store.matches(cfg.name)
        assert {m.spec.deck_set for m in matches} == {0, 1}
        assert all(m.spec.seed == deck_seed(cfg, m.spec.round, m.spec.deck_set, shown["key"]) for m in matches)
        store.begin(cfg, resume=True)  # a resume runs again: hidden until that run ends
        assert summarize(cfg, store).to_json()["deck_key"]["key"] is None
    finally:
        store.close()


def test_verify_accepts_an_honest_tournament_export(tmp_path):
    out = finished_export(tmp_path)
    checked = verify(out)
    assert checked.returncode == 0, checked.stdout
    assert checked.stdout.splitlines() == ["4 records, 0 invalid; 3 deck-key checks, 0 failed"]
    loud = subprocess.run([sys.executable, "-m", "tricktable.cli.main", "verify", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert f"{out / 'summary.json'}: deck key: ok" in loud.stdout
    assert f"{out / 'matches.csv'}: round 0 deck set 1: ok" in loud.stdout


def test_verify_rejects_an_export_whose_deck_set_seed_was_altered(tmp_path):
    out = finished_export(tmp_path)
    with (out / "matches.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    honest = next(r["seed"] for r in rows if r["deck_set"] == "1")
    chosen = "chosen-by-the-organiser"  # deck set 1 dealt from a seed of one's own, everywhere it shows
    for name in ("matches.csv", "records.jsonl"):
        path = out / name
        path.write_text(path.read_text(encoding="utf-8").replace(honest, chosen), encoding="utf-8")
    checked = verify(out)
    assert checked.returncode == 1
    lines = checked.stdout.splitlines()
    assert any(line.startswith(f"{out / 'matches.csv'}: round 0 deck set 1: invalid: game r0-d1-")
               and f"seed {chosen}, but the deck key gives {honest}" in line for line in lines), lines
    assert not any("deck set 0: invalid" in line or "deck key: invalid" in line for line in lines), lines
    assert lines[-1] == "4 records, 2 invalid; 3 deck-key checks, 1 failed"


def test_verify_rejects_an_export_whose_key_was_altered(tmp_path):
    out = finished_export(tmp_path)
    summary = json.loads((out / "summary.json").read_text())
    summary["deck_key"]["key"] = "another key"
    (out / "summary.json").write_text(json.dumps(summary))
    checked = verify(out)
    assert checked.returncode == 1
    assert f"{out / 'summary.json'}: deck key: invalid: the revealed key and salt do not open" in checked.stdout
    assert checked.stdout.splitlines()[-1] == "4 records, 4 invalid; 3 deck-key checks, 3 failed"
    wrong_salt = tmp_path / "salted"
    shutil.copytree(out, wrong_salt)
    summary["deck_key"].update(key=SHARED_DECK_KEY, salt="0" * 64)  # the key, but not the salt committed with
    (wrong_salt / "summary.json").write_text(json.dumps(summary))
    checked = verify(wrong_salt)
    assert checked.returncode == 1 and "deck key: invalid" in checked.stdout
    assert checked.stdout.splitlines()[-1] == "4 records, 0 invalid; 3 deck-key checks, 1 failed"


def test_verify_rejects_the_export_of_a_tournament_that_has_not_ended(tmp_path):
    db = tmp_path / "db.sqlite3"
    cfg = config(name="unfinished-cup", games=4)
    store = TournamentStore(db)
    try:
        asyncio.run(Tournament(cfg, store, local_dispatcher(cfg, 1)).run())
        store.set_status(cfg.name, "interrupted")
        export(summarize(cfg, store), store, tmp_path / "out")
    finally:
        store.close()
    checked = verify(tmp_path / "out")
    assert checked.returncode == 1
    assert "deck key: invalid: the deck key is not revealed (the tournament is interrupted)" in checked.stdout
    assert "deck set 0: invalid: not checked: the deck key is not revealed" in checked.stdout
