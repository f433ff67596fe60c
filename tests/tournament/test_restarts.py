"""A tournament over a ``tricktable serve`` process that is killed and restarted under it ends as if undisturbed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
import structlog

from tests.server.restarts import CLI, ROOT, killed_at_exit, running_tables, serve
from tests.tournament.conftest import SHARED_DECK_KEY
from tests.tournament.helpers import config
from tricktable.client_sdk.errors import ServerUnreachable
from tricktable.client_sdk.runner import create_table, get_record, run_bot_async
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.rules.actions import Action
from tricktable.rules.game import SeatView
from tricktable.rules.verify import verify_record
from tricktable.tournament import server_runner
from tricktable.tournament.engine import Tournament, stored_games
from tricktable.tournament.processes import BotProcess, bot_processes
from tricktable.tournament.runner import MatchOutcome
from tricktable.tournament.sandbox import FIRST_UID, Sandbox
from tricktable.tournament.schedule import MatchSpec
from tricktable.tournament.seat import PARENT_ENV
from tricktable.tournament.server_runner import ServerDispatcher
from tricktable.tournament.store import DECK_KEY_ENV, TournamentStore

pytestmark = pytest.mark.timeout(600)

IMPATIENT = {"name": "impatient", "command": "{python} -m tests.tournament.impatient_client {address} {seed}"}
CFG = config(entrants=[IMPATIENT, "heuristic"], games=6)
#: Seconds the bots of a tournament that has returned get to be gone (a SIGKILLed process takes a moment to end).
GONE_WITHIN_S = 30.0


def results(store: TournamentStore) -> dict[str, tuple[str, tuple[int, ...], tuple[int, ...]]]:
    return {spec.match_id: (o.status, o.winners, o.scores) for spec, o in stored_games(store, "t")}


def left_behind() -> list[BotProcess]:
    """The bot processes this process's tournaments started that are still running once given time to end.

    Polled under a deadline, not looked at once: a bot killed as its match ended may take a moment to be gone,
    while one left behind keeps running.
    """
    deadline = time.monotonic() + GONE_WITHIN_S
    while (alive := bot_processes(os.getpid())) and time.monotonic() < deadline:
        time.sleep(0.2)
    return alive


async def run_tournament(tmp_path: Path, *, restarts: list[tuple[int, signal.Signals]]) -> TournamentStore:
    """Play CFG over a served process; after the n-th stored match of each ``(n, sig)``, signal it and restart it.

    Once the tournament has returned, none of its bot processes may be left running.
    """
    store = TournamentStore(tmp_path / "tournament.sqlite3")
    data = tmp_path / "server"
    cm = serve(data)
    served = await cm.__aenter__()
    port = served.port
    try:
        dispatcher = await ServerDispatcher.open(CFG, address=served.address, data_dir=tmp_path)
        run = asyncio.ensure_future(Tournament(CFG, store, dispatcher, concurrency=2).run())
        for after, sig in restarts:
            while store.count("t") < after and not run.done():
                await asyncio.sleep(0.05)
            if run.done():
                break
            await served.signal(sig)
            await cm.__aexit__(None, None, None)
            await asyncio.sleep(3.0)  # long enough for the impatient bots to give up
            cm = serve(data, port)
            served = await cm.__aenter__()
        await run
    finally:
        await cm.__aexit__(None, None, None)
    assert left_behind() == []
    return store


@pytest.fixture(scope="module")
def undisturbed(tmp_path_factory):
    """The results of CFG over a server left alone (with the deck key every test of the package shares)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(DECK_KEY_ENV, SHARED_DECK_KEY)
        store = asyncio.run(run_tournament(tmp_path_factory.mktemp("calm"), restarts=[]))
    expected = results(store)
    store.close()
    assert len(expected) == 6 and all(status == "finished" for status, _, _ in expected.values())
    return expected


@pytest.mark.parametrize(("sig", "patience_s"), [(signal.SIGKILL, None), (signal.SIGTERM, None),
                                                 (signal.SIGKILL, 1.0)],
                         ids=["kill-9", "sigterm", "kill-9-past-the-dispatchers-patience"])
def test_a_tournament_through_server_restarts_ends_with_the_results_of_an_undisturbed_one(
        tmp_path, monkeypatch, undisturbed, sig, patience_s):
    """Bots that gave up are started again; with a short patience, the cut-off matches are played again."""
    if patience_s is not None:
        monkeypatch.setattr(server_runner, "SERVER_PATIENCE_S", patience_s, raising=False)
    chaos = asyncio.run(run_tournament(tmp_path, restarts=[(1, sig), (3, sig)]))
    assert results(chaos) == undisturbed
    for spec, outcome in stored_games(chaos, "t"):
        assert verify_record(chaos.record("t", spec.match_id)) is None
        assert outcome.faults == {name: 0 for name in spec.seats}
    chaos.close()


class CountingBot:
    """First legal action; says when it has made ``after`` decisions (the moment to cut its opponent off)."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.made = 0
        self.reached = asyncio.Event()

    def choose_action(self, view: SeatView) -> Action:
        self.made += 1
        if self.made >= self.after:
            self.reached.set()
        return view.legal_actions[0]


async def played_against_a_random_bot_process(data: Path, token_file: Path, *, cut_after: int | None) -> list[Any]:
    """The deals of a game of ``tricktable bot random --seed`` (a process) against :class:`CountingBot`.

    ``cut_after``: once the counting bot has made that many decisions, the random bot's process is killed
    and another one, with the same seed, takes its seat.
    """
    async with serve(data) as served:
        table = await create_table(served.address, game="all_fives", options={"players": 2, "target": 61},
                                   seed="a fixed deck", decision_ms=60_000)
        token_file.write_text(table.tokens[0])
        argv = [*CLI, "bot", "random", "--server", served.address, "--token-file", str(token_file), "--seed", "s1"]
        processes = [await asyncio.create_subprocess_exec(*argv, cwd=ROOT, stderr=asyncio.subprocess.DEVNULL)]
        with killed_at_exit(processes):
            counting = CountingBot(cut_after or 0)
            opponent = asyncio.ensure_future(run_bot_async(counting, served.address, token=table.tokens[1]))
            if cut_after is not None:
                await asyncio.wait([asyncio.ensure_future(counting.reached.wait()), opponent],
                                   return_when=asyncio.FIRST_COMPLETED)
                assert not opponent.done(), "the game ended before the cut"
                processes[0].kill()
                await processes[0].wait()
                processes.append(await asyncio.create_subprocess_exec(*argv, cwd=ROOT,
                                                                      stderr=asyncio.subprocess.DEVNULL))
            await opponent
            assert await asyncio.wait_for(processes[-1].wait(), 60) == 0
        record = json.loads(await get_record(served.address, table.table_id, owner_token=table.owner_token))
    return list(record["deals"])


def test_a_seeded_random_bot_started_again_mid_game_plays_the_moves_of_an_uninterrupted_game(tmp_path):
    """A bot process that gave up on its server, or crashed, is started again with the same seed: it must
    answer the decisions still to come as the first process would have, not draw them again from the start."""
    calm = asyncio.run(played_against_a_random_bot_process(tmp_path / "calm", tmp_path / "t1", cut_after=None))
    cut = asyncio.run(played_against_a_random_bot_process(tmp_path / "cut", tmp_path / "t2", cut_after=20))
    assert cut == calm


def test_a_match_the_server_refuses_while_it_drains_to_stop_is_played_once_it_is_back(tmp_path):
    """A SIGTERM'd server plays its running tables out before it stops and takes no new one meanwhile: the
    tournament's matches wait for the restarted server instead of being given up."""
    cfg = config(games=2)

    async def go() -> TournamentStore:
        data = tmp_path / "server"
        cm = serve(data, 0, "--drain-seconds", "8")
        served = await cm.__aenter__()
        silent: list[asyncio.subprocess.Process] = []
        try:
            with killed_at_exit(silent):
                # A table whose seats never answer keeps the drain going for its whole 8 s.
                holder = await create_table(served.address, game="all_fives", options={"players": 2})
                for seat, token in enumerate(holder.tokens):
                    token_file = tmp_path / f"token-{seat}"
                    token_file.write_text(token)
                    silent.append(await asyncio.create_subprocess_exec(
                        sys.executable, "-m", "tests.tournament.silent_client", served.address, str(token_file),
                        cwd=ROOT))
                async with grpc.aio.insecure_channel(served.address) as channel:
                    stub = table_service_pb2_grpc.TableServiceStub(channel)
                    while holder.table_id not in {t.table_id for t in await running_tables(stub)}:
                        await asyncio.sleep(0.1)
                served.process.send_signal(signal.SIGTERM)
                store = TournamentStore(tmp_path / "tournament.sqlite3")
                dispatcher = await ServerDispatcher.open(cfg, address=served.address, data_dir=tmp_path)
                run = asyncio.ensure_future(Tournament(cfg, store, dispatcher).run())
                await asyncio.wait_for(served.process.wait(), 60)
                assert not run.done() and store.count("t") == 0  # nothing was played while it drained
                await cm.__aexit__(None, None, None)
                cm = serve(data, served.port)
                served = await cm.__aenter__()
                await run
        finally:
            await cm.__aexit__(None, None, None)
        return store

    store = asyncio.run(go())
    assert [status for status, _, _ in results(store).values()] == ["finished", "finished"]
    assert left_behind() == []
    store.close()


def test_a_bot_that_quits_over_a_restart_is_not_charged_a_fault_when_the_server_is_back_before_it_exits(tmp_path):
    """Whether the server was away is not only a question for the moment a bot's exit is noticed: an outage
    during the bot's life excuses it too."""
    note = tmp_path / "quits.txt"
    late = {"name": "late", "command": f"{{python}} -m tests.tournament.late_quitter {{address}} {{seed}} {note}"}
    # Paced: the kill below, as soon as the first table runs, lands in the middle of its game.
    paced = {"name": "paced", "command": "{python} -m tricktable.cli.main bot first-legal --server {address} "
                                         "--token-file {token_file} --delay-ms 50 --wait-for-server 60"}
    cfg = config(entrants=[late, paced], games=2)

    async def go() -> TournamentStore:
        data = tmp_path / "server"
        cm = serve(data)
        served = await cm.__aenter__()
        try:
            store = TournamentStore(tmp_path / "tournament.sqlite3")
            # Plain processes: the late quitter writes down that it quit.
            dispatcher = await ServerDispatcher.open(cfg, address=served.address, data_dir=tmp_path,
                                                     isolation="trusted")
            run = asyncio.ensure_future(Tournament(cfg, store, dispatcher).run())
            async with grpc.aio.insecure_channel(served.address) as channel:
                stub = table_service_pb2_grpc.TableServiceStub(channel)
                while not await running_tables(stub):
                    assert not run.done()
                    await asyncio.sleep(0.05)
            await served.signal(signal.SIGKILL)
            await cm.__aexit__(None, None, None)
            await asyncio.sleep(1.0)
            cm = serve(data, served.port)
            served = await cm.__aenter__()
            await run
        finally:
            await cm.__aexit__(None, None, None)
        return store

    store = asyncio.run(go())
    assert note.read_text().count("quit once the server was back") >= 1
    for _spec, outcome in stored_games(store, "t"):
        assert outcome.status == "finished" and outcome.faults == {"late": 0, "paced": 0}
    assert left_behind() == []
    store.close()


def test_a_bot_that_quits_while_the_server_drains_to_stop_is_not_charged_a_fault(tmp_path):
    """A SIGTERM'd server still answers while it drains, but says it is stopping: a bot that leaves then gave up
    on the restart, and is started again once the server serves again."""
    note = tmp_path / "quits.txt"
    quitter = {"name": "quitter",
               "command": f"{{python}} -m tests.tournament.stopping_quitter {{address}} {{seed}} {note}"}
    paced = {"name": "paced", "command": "{python} -m tricktable.cli.main bot first-legal --server {address} "
                                         "--token-file {token_file} --delay-ms 50 --wait-for-server 60"}
    cfg = config(entrants=[quitter, paced], games=2, match_timeout_s=300)

    async def go() -> TournamentStore:
        data = tmp_path / "server"
        cm = serve(data, 0, "--drain-seconds", "5")
        served = await cm.__aenter__()
        try:
            store = TournamentStore(tmp_path / "tournament.sqlite3")
            # Plain processes: the quitter writes down that it quit.
            dispatcher = await ServerDispatcher.open(cfg, address=served.address, data_dir=tmp_path,
                                                     isolation="trusted")
            run = asyncio.ensure_future(Tournament(cfg, store, dispatcher).run())
            async with grpc.aio.insecure_channel(served.address) as channel:
                stub = table_service_pb2_grpc.TableServiceStub(channel)
                while not await running_tables(stub):
                    assert not run.done()
                    await asyncio.sleep(0.05)
            await served.signal(signal.SIGTERM)
            await cm.__aexit__(None, None, None)
            cm = serve(data, served.port)
            served = await cm.__aenter__()
            await run
        finally:
            await cm.__aexit__(None, None, None)
        return store

    store = asyncio.run(go())
    assert note.read_text().count("quit as the server began to stop") >= 1
    for _spec, outcome in stored_games(store, "t"):
        assert outcome.status == "finished" and outcome.faults == {"quitter": 0, "paced": 0}
    assert left_behind() == []
    store.close()


def test_a_bot_left_running_is_found_however_it_left_its_tournament(tmp_path):
    """The check of the tournaments above finds a bot that detached (``setsid``, a double fork) or runs sandboxed."""
    mark = 4_000_000_123  # no such pid: the mark of a tournament of this test alone
    env = {**os.environ, PARENT_ENV: str(mark)}
    stand_in = tmp_path / "server.sock"
    stand_in.touch()
    sandbox = Sandbox.detect(stand_in)
    commands = [["sleep", "300"], ["sh", "-c", "setsid sleep 301 & exit 0"],
                sandbox.command(["sleep", "302"], visible=(), uid=FIRST_UID)]
    started = [subprocess.Popen(c, env=env, start_new_session=True) for c in commands]
    try:
        deadline = time.monotonic() + GONE_WITHIN_S
        while len({p.command for p in bot_processes(mark)} & {"sleep 300", "sleep 301", "sleep 302"}) < 3:
            assert time.monotonic() < deadline, bot_processes(mark)
            time.sleep(0.1)
    finally:
        for proc in bot_processes(mark):
            with contextlib.suppress(ProcessLookupError):  # it may end between the listing and the kill
                os.kill(proc.pid, signal.SIGKILL)
        for popen in started:
            popen.kill()
            popen.wait()
    deadline = time.monotonic() + GONE_WITHIN_S
    while bot_processes(mark):
        assert time.monotonic() < deadline, bot_processes(mark)
        time.sleep(0.1)


def test_an_unreachable_server_is_never_taken_for_a_table_that_has_not_ended(monkeypatch):
    """While the server is away the dispatcher waits; once it answers, the table's state decides."""
    answers: list[BaseException | None] = [ServerUnreachable("down"), ServerUnreachable("down"), None]

    async def get_record(*args: object, **kwargs: object) -> str:
        answer = answers.pop(0)
        if answer is not None:
            raise answer
        return "{}"

    monkeypatch.setattr(server_runner, "get_record", get_record)
    dispatcher = ServerDispatcher(CFG, "127.0.0.1:1")
    with structlog.testing.capture_logs() as logs:
        assert asyncio.run(dispatcher._has_ended("t1", "owner")) == ("{}", True)
    # The wait says why, once (not at every question asked again).
    waits = [entry for entry in logs if entry["event"] == "tournament server away; waiting"]
    assert len(waits) == 1 and "down" in waits[0]["error"] and waits[0]["server"] == "127.0.0.1:1"


def test_a_server_away_past_the_dispatchers_patience_is_not_stored_and_the_match_is_played_again(tmp_path):
    """A lost connection is not a result: the engine waits for the server and plays the match from its start."""
    cfg = config(games=2)
    played: list[str] = []

    class FlakyDispatcher:
        async def play(self, spec: MatchSpec) -> MatchOutcome:
            played.append(spec.match_id)
            if played.count(spec.match_id) == 1:
                raise server_runner.ServerAway("the server did not answer")
            return MatchOutcome(match_id=spec.match_id, status="finished", winners=(0,), scores=(61, 40))

        async def wait_for_server(self, patience_s: float) -> bool:
            return True

        async def close(self) -> None:
            return None

    store = TournamentStore(tmp_path / "t.sqlite3")
    asyncio.run(Tournament(cfg, store, FlakyDispatcher()).run())
    assert sorted(results(store)) == sorted(set(played)) and len(played) == 4
    assert all(status == "finished" for status, _, _ in results(store).values())
    store.close()


def test_a_resume_plays_again_the_matches_the_machinery_could_not_play(tmp_path):
    cfg = config(games=2)

    class BrokenDispatcher:
        async def play(self, spec: MatchSpec) -> MatchOutcome:
            raise RuntimeError("no workers")

        async def close(self) -> None:
            return None

    class GoodDispatcher(BrokenDispatcher):
        async def play(self, spec: MatchSpec) -> MatchOutcome:
            return MatchOutcome(match_id=spec.match_id, status="finished", winners=(1,), scores=(40, 61))

    store = TournamentStore(tmp_path / "t.sqlite3")
    asyncio.run(Tournament(cfg, store, BrokenDispatcher()).run())
    assert {status for status, _, _ in results(store).values()} == {"error"}
    asyncio.run(Tournament(cfg, store, GoodDispatcher()).run(resume=True))
    assert [status for status, _, _ in results(store).values()] == ["finished", "finished"]
    store.close()
