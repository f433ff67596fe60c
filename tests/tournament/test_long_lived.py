"""Long-lived entrant processes: many matches per process, never two tables of one deck set (real processes)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.tournament.helpers import config
from tricktable.client_sdk.handoff import CONTROL_FD_ENV, control_pair
from tricktable.tournament.control import Done, Hand
from tricktable.tournament.engine import Tournament, stored_games
from tricktable.tournament.entrants import EntrantSpec
from tricktable.tournament.long_lived import EntrantPool, TwinTableRefused
from tricktable.tournament.sandbox import Isolation, user_ids
from tricktable.tournament.server_runner import ServerDispatcher, _Launcher, serve_argv
from tricktable.tournament.store import TournamentStore

pytestmark = pytest.mark.timeout(300)
NOTE = re.compile(r"long-lived process=(\w+) seat_no=(\d+) earlier_tokens=(\d+)")
CLIENT = "{python} -m tests.tournament.long_lived_client"
ISOLATIONS = [pytest.param("sandbox", marks=pytest.mark.skipif(shutil.which("bwrap") is None,
                                                               reason="bubblewrap is not installed")), "trusted"]


def long_lived(extra: str = "") -> dict[str, Any]:
    return {"name": "long-lived", "command": f"{CLIENT} {extra}".strip(), "long_lived": True}


async def _run(cfg: Any, tmp_path: Path, isolation: Isolation) -> tuple[TournamentStore, ServerDispatcher]:
    store = TournamentStore(tmp_path / "tricktable.sqlite3")
    dispatcher = await ServerDispatcher.open(cfg, address=None, data_dir=tmp_path, isolation=isolation)
    await Tournament(cfg, store, dispatcher, concurrency=2).run()
    return store, dispatcher


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_long_lived_process_plays_many_matches_and_never_both_tables_of_a_deck_set(tmp_path, isolation):
    cfg = config(entrants=[long_lived(), "random", "first-legal"], games=4)  # 2 deck sets, each in 2 directions
    store, dispatcher = asyncio.run(_run(cfg, tmp_path, isolation))
    played: dict[tuple[int, int], list[str]] = defaultdict(list)  # deck set -> processes at its tables
    earlier = []
    games = stored_games(store, "t")
    for spec, outcome in games:
        assert outcome.status == "finished", outcome.reason
        if "long-lived" in spec.seats:
            found = NOTE.search(json.dumps(store.record("t", spec.match_id)))
            assert found is not None, spec.match_id
            played[(spec.round, spec.deck_set)].append(found.group(1))
            earlier.append(int(found.group(3)))
    store.close()
    assert len(played) == 2 and all(len(procs) == 4 for procs in played.values())  # 2 groups x 2 directions
    for deck_set, procs in played.items():
        assert len(set(procs)) == len(procs), (deck_set, procs)  # a table of a deck set per process, at most
    every = [p for procs in played.values() for p in procs]
    assert len(set(every)) < len(every), every  # and processes were used again, on the other deck set
    assert max(earlier) > 0  # ... with the tokens of its earlier tables handed on the same descriptor
    # The built-in bots' processes too: fewer started than seats played.
    assert dispatcher.pool is not None and dispatcher.pool.started < 2 * len(games)


def test_a_long_lived_process_that_dies_mid_game_is_one_fault_and_its_seat_is_played_out(tmp_path):
    """The same as a per-match process's crash: one fault, the seat handed again (to a new process), no stall."""
    cfg = config(entrants=[long_lived(f"--die-once {tmp_path}"), "random"], games=4)
    store, _ = asyncio.run(_run(cfg, tmp_path, "trusted"))
    games = stored_games(store, "t")
    store.close()
    assert (tmp_path / "died").exists()
    assert len(games) == 4 and all(o.status == "finished" for _, o in games), [o.reason for _, o in games]
    assert sorted(o.faults["long-lived"] for _, o in games) == [0, 0, 0, 1]


def test_a_seat_reaches_a_long_lived_process_on_its_control_descriptor_only():
    ours, fd = control_pair()
    script = ("import os, sys; from tricktable.client_sdk.handoff import handed_control; "
              "from tricktable.tournament.control import Hand, Done; "
              "fd = handed_control(); f = os.fdopen(fd, 'rb+', buffering=0); hand = Hand.parse(f.readline()); "
              "seen = open('/proc/self/cmdline', 'rb').read() + open('/proc/self/environ', 'rb').read(); "
              "clean = hand.token.encode() not in seen; "
              "f.write(Done(play=hand.play, status='finished', error=f'clean={clean}').line())")
    try:
        child = subprocess.Popen([sys.executable, "-c", script], env={**os.environ, CONTROL_FD_ENV: str(fd)},
                                 pass_fds=(fd,))
    finally:
        os.close(fd)  # the child holds its own copy
    try:
        ours.sendall(Hand(play="7", token="seat-token-xyz", seat=1, seed="s", address="unix:/x").line())
        reply = ours.makefile("rb").readline()
        assert child.wait(timeout=60) == 0
    finally:
        ours.close()
        child.kill()
    done = Done.parse(reply)
    assert (done.play, done.status, done.error) == ("7", "finished", "clean=True")


def test_the_pool_hands_the_twin_table_to_another_process_and_refuses_it_to_the_first():
    launcher = _Launcher(address="unix:/nowhere", tls_ca=None, sandbox=None, uids=user_ids())
    answering = EntrantSpec(name="a", command=f"{CLIENT} --answer-only", long_lived=True)

    async def go() -> None:
        pool = EntrantPool(launcher.spawn)
        try:
            first = await pool.lease(answering, (0, 0), "table-1")
            assert not isinstance(first, str)
            answer = await first.hand((0, 0), "table-1", token="t1", seat=0, seed="s", address="unix:/x")
            assert await asyncio.wait_for(answer, 60) == "said finished"
            pool.release(first)
            twin = await pool.lease(answering, (0, 0), "table-2")
            assert twin is not first and not isinstance(twin, str)
            pool.release(twin)
            later = await pool.lease(answering, (0, 1), "table-3")  # another deck set: an idle process again
            assert later in (first, twin) and pool.started == 2
            with pytest.raises(TwinTableRefused):
                await first.hand((0, 0), "table-2", token="t2", seat=1, seed="s", address="unix:/x")
        finally:
            await pool.close()

    asyncio.run(go())


def test_a_long_lived_process_killed_while_holding_a_seat_answers_with_its_exit():
    launcher = _Launcher(address="unix:/nowhere", tls_ca=None, sandbox=None, uids=user_ids())
    holding = EntrantSpec(name="h", command=f"{CLIENT} --hold", long_lived=True)

    async def go() -> None:
        pool = EntrantPool(launcher.spawn)
        try:
            proc = await pool.lease(holding, (0, 0), "table-1")
            assert not isinstance(proc, str)
            answer = await proc.hand((0, 0), "table-1", token="t1", seat=0, seed="s", address="unix:/x")
            proc.process.send_signal(signal.SIGKILL)
            assert await asyncio.wait_for(answer, 60) == f"exit {-signal.SIGKILL}"
            assert not proc.alive
            pool.release(proc)
            again = await pool.lease(holding, (0, 0), "table-1")  # the seat handed again: a new process
            assert again is not proc and pool.started == 2
        finally:
            await pool.close()

    asyncio.run(go())


def test_long_lived_commands_name_no_seat_and_per_match_ones_no_control_descriptor():
    with pytest.raises(ValueError, match="control descriptor"):
        EntrantSpec(name="x", command="prog {token_file}", long_lived=True)
    with pytest.raises(ValueError, match="long_lived = true"):
        EntrantSpec(name="x", command="prog {control_fd}")
    entrant = EntrantSpec(name="x", command="prog --at {address} --control {control_fd}", long_lived=True)
    assert serve_argv(entrant, address="unix:/s", control_fd=9) == ["prog", "--at", "unix:/s", "--control", "9"]
    builtin = EntrantSpec(name="r", bot="random")
    assert builtin.lives_long() and not EntrantSpec(name="c", command="prog").lives_long()
    assert serve_argv(builtin, address="unix:/s", control_fd=9)[1:] == [
        "-m", "tricktable.tournament.seat", "--serve", "random", "unix:/s", "r"]
