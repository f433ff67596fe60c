"""A tournament over a ``tricktable serve`` process that is killed and restarted under it ends as if undisturbed."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from tests.server.restarts import serve
from tests.tournament.conftest import SHARED_DECK_KEY
from tests.tournament.helpers import config
from tricktable.client_sdk.errors import ServerUnreachable
from tricktable.rules.verify import verify_record
from tricktable.tournament import server_runner
from tricktable.tournament.engine import Tournament, stored_games
from tricktable.tournament.runner import MatchOutcome
from tricktable.tournament.schedule import MatchSpec
from tricktable.tournament.server_runner import ServerDispatcher
from tricktable.tournament.store import DECK_KEY_ENV, TournamentStore

pytestmark = pytest.mark.timeout(600)

IMPATIENT = {"name": "impatient", "command": "{python} -m tests.tournament.impatient_client {address} {seed}"}
CFG = config(entrants=[IMPATIENT, "heuristic"], games=6)


def results(store: TournamentStore) -> dict[str, tuple[str, tuple[int, ...], tuple[int, ...]]]:
    return {spec.match_id: (o.status, o.winners, o.scores) for spec, o in stored_games(store, "t")}


async def run_tournament(tmp_path: Path, *, restarts: list[tuple[int, signal.Signals]]) -> TournamentStore:
    """Play CFG over a served process; after the n-th stored match of each ``(n, sig)``, signal it and restart it."""
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
    assert asyncio.run(dispatcher._has_ended("t1", "owner")) == ("{}", True)


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
