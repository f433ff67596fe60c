"""Entrants sealed off from each other, tried as a cheating entrant would, in a real tournament over the server.

The cheater (:mod:`tests.tournament.cheater`) looks for other seats' tokens and the deck key in every process
it can see, in the data directory and the database, in what its earlier matches left in ``/tmp`` and over the
network, tries every token it finds, and writes what it learnt into its first action's note.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console

from tests.tournament.helpers import config
from tricktable.client_sdk.handoff import TOKEN_FD_ENV, handed_token, read_token_fd, token_descriptor
from tricktable.tournament.engine import Tournament, stored_games
from tricktable.tournament.entrants import EntrantSpec
from tricktable.tournament.sandbox import SANDBOX_SOCKET, Isolation, Sandbox, SandboxUnavailable, trusted_environment
from tricktable.tournament.server_runner import ServerDispatcher
from tricktable.tournament.store import DECK_KEY_ENV, TournamentStore

pytestmark = pytest.mark.timeout(300)
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap is not installed (`make test` installs it)")
NOTE = re.compile(r"cheat procs=(\d+) tokens=(\d+) worked=(\d+) keys=(\d+) tmp=(\w+) probed=(\d+) net=(\d+) "
                  r"process=(\w+)")
DECK_KEY = "5e" * 32


def cheater(tmp_path: Path, marker: str, *, long_lived: bool = False) -> dict[str, Any]:
    db = tmp_path / "tricktable.sqlite3"
    if long_lived:  # one process cheats at many tables, its seats handed on its control descriptor
        return {"name": "cheater", "long_lived": True,
                "command": f"{{python}} -m tests.tournament.cheater --serve --marker {marker} --probe {tmp_path} {db}"}
    return {"name": "cheater", "command": f"{{python}} -m tests.tournament.cheater {{address}} {{token_file}} "
                                          f"--marker {marker} --probe {tmp_path} {db}"}


def findings(tmp_path: Path, isolation: Isolation, monkeypatch: pytest.MonkeyPatch, *,
             long_lived: bool = False) -> list[dict[str, Any]]:
    """Play a tournament of the cheater and two honest bots; what the cheater reported in each match.

    The cheaters' marker in /tmp is named for this call alone: only this tournament's cheaters can write it.
    """
    monkeypatch.setenv(DECK_KEY_ENV, DECK_KEY)  # the documented way to reproduce a run's decks
    marker = f"tricktable-cheater.{uuid.uuid4().hex[:16]}"  # no run of 43 token characters: not a token itself
    cfg = config(entrants=[cheater(tmp_path, marker, long_lived=long_lived), "random", "first-legal"], games=2)

    async def go() -> TournamentStore:
        store = TournamentStore(tmp_path / "tricktable.sqlite3")
        dispatcher = await ServerDispatcher.open(cfg, address=None, data_dir=tmp_path, isolation=isolation)
        await Tournament(cfg, store, dispatcher, concurrency=2).run()
        return store

    try:
        store = asyncio.run(go())
    finally:
        (Path("/tmp") / marker).unlink(missing_ok=True)  # written only by unsandboxed cheaters
    reports = []
    for spec, outcome in stored_games(store, "t"):
        if "cheater" not in spec.seats:
            continue
        assert outcome.status == "finished", outcome.reason
        found = NOTE.search(json.dumps(store.record("t", spec.match_id)))
        assert found is not None, f"{spec.match_id}: the cheater's note is missing"
        procs, tokens, worked, keys, tmp, probed, net, process = found.groups()
        reports.append({"procs": int(procs), "tokens": int(tokens), "worked": int(worked), "keys": int(keys),
                        "tmp": tmp, "probed": int(probed), "net": int(net), "process": process,
                        "deck_set": (spec.round, spec.deck_set)})
    store.close()
    assert len(reports) == 4  # two pairings with the cheater, two tables each (a deck set and its twin)
    return reports


@needs_bwrap
@pytest.mark.parametrize("long_lived", [False, True], ids=["process-per-match", "long-lived"])
def test_a_sandboxed_cheating_entrant_learns_nothing_but_its_own_seat(tmp_path, monkeypatch, long_lived):
    reports = findings(tmp_path, "sandbox", monkeypatch, long_lived=long_lived)
    # Its twin tables (a deck set in both directions) were played by two processes that share nothing.
    for deck_set in {r["deck_set"] for r in reports}:
        processes = [r["process"] for r in reports if r["deck_set"] == deck_set]
        assert len(set(processes)) == len(processes), processes
    for report in reports:
        assert report["procs"] <= 1, report  # only the sandbox's own init: no other bot, not the tournament
        assert report["tokens"] == 0 and report["worked"] == 0, report  # no other seat's token anywhere
        assert report["keys"] == 0, report  # the deck key: not in its environment, the database unreadable
        assert report["tmp"] == "none", report  # nothing another process (the twin table's) left in /tmp
        assert report["probed"] == 0, report  # the data directory and the database: hidden
        assert report["net"] == 0, report  # no listening port: it has no network


@needs_bwrap
def test_trusted_entrants_can_cheat_which_is_why_the_sandbox_is_the_default(tmp_path, monkeypatch):
    """The same cheater, unsandboxed, finds what the sandbox keeps from it (so the test above can fail)."""
    reports = findings(tmp_path, "trusted", monkeypatch)
    assert any(r["worked"] > 0 for r in reports), reports  # another seat's token, read and used
    assert all(r["keys"] > 0 and r["probed"] > 0 and r["net"] > 0 for r in reports), reports
    assert any(r["tmp"] == "seen" for r in reports), reports


def test_no_secret_reaches_a_bot_on_its_command_line_or_in_its_environment(monkeypatch):
    monkeypatch.setenv(DECK_KEY_ENV, DECK_KEY)
    monkeypatch.setenv("TRICKTABLE_OWNER_TOKEN", "secret")
    env = trusted_environment({TOKEN_FD_ENV: "5"})
    assert DECK_KEY_ENV not in env and "TRICKTABLE_OWNER_TOKEN" not in env and env[TOKEN_FD_ENV] == "5"
    with pytest.raises(ValueError, match="every local user"):
        EntrantSpec(name="x", command="prog --token {token}")


def test_a_token_handed_on_a_descriptor_reaches_the_child_and_not_its_command_line():
    fd = token_descriptor("tok-123")
    try:
        child = subprocess.run([sys.executable, "-c", "import sys; from tricktable.client_sdk.handoff import "
                                "handed_token; print(handed_token()); print(open('/proc/self/cmdline').read())"],
                               env={**os.environ, TOKEN_FD_ENV: str(fd)}, pass_fds=(fd,), capture_output=True,
                               text=True, timeout=60, check=True)
    finally:
        os.close(fd)
    token, cmdline = child.stdout.splitlines()[:2]
    assert token == "tok-123" and "tok-123" not in cmdline
    again = token_descriptor("tok-456")
    assert read_token_fd(again) == "tok-456"  # and closes it
    with pytest.raises(OSError):
        os.fstat(again)


def test_a_bad_token_descriptor_is_a_clear_error(monkeypatch):
    monkeypatch.setenv(TOKEN_FD_ENV, "not-a-number")
    with pytest.raises(ValueError, match="not a file descriptor"):
        handed_token()


def test_the_sandbox_command_hides_the_data_directory_and_binds_the_socket(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    sandbox = Sandbox(server_socket=tmp_path / "s.sock", hidden=(data,))
    argv = sandbox.command(["prog", str(data / "tricktable.sqlite3")], visible=[tmp_path, data / "x"], uid=200_001)
    joined = " ".join(argv)
    assert f"--ro-bind {tmp_path / 's.sock'} {SANDBOX_SOCKET}" in joined
    assert f"--tmpfs {data}" in joined and f"--ro-bind {data / 'x'}" not in joined
    assert "--unshare-net" in argv and "--unshare-pid" in argv and "--reuid=200001" in joined
    assert argv[-2:] == ["prog", str(data / "tricktable.sqlite3")]


def test_a_host_without_bubblewrap_says_so_and_names_the_trusted_mode(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on it
    with pytest.raises(SandboxUnavailable, match=r"bubblewrap.*--trusted-entrants"):
        Sandbox.detect(tmp_path / "s.sock")


def test_tricktable_match_hands_its_bots_their_tokens_on_descriptors(monkeypatch):
    from tricktable.cli import match

    started: list[tuple[tuple[str, ...], dict[str, Any]]] = []

    async def fake_exec(*args: str, **kwargs: Any) -> object:
        started.append((args, kwargs))
        fd = kwargs["pass_fds"][0]
        assert read_token_fd(os.dup(fd)) == "seat-token-1"
        stderr = asyncio.StreamReader()
        stderr.feed_eof()
        return SimpleNamespace(stderr=stderr)

    async def launch() -> None:
        launched = await match._launch(Console(quiet=True), "random", "127.0.0.1:1", "seat-token-1", "random-0",
                                       None, 0)
        await launched.output.finish()

    monkeypatch.setenv(DECK_KEY_ENV, DECK_KEY)
    monkeypatch.setattr(asyncio, "create_subprocess_exec", fake_exec)
    asyncio.run(launch())
    (args, kwargs), = started
    assert "seat-token-1" not in " ".join(args) and "--token-file" in args
    assert DECK_KEY_ENV not in kwargs["env"]
