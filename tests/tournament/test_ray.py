"""Matches as Ray tasks on a local Ray instance (skipped when the ``ray`` extra is not installed)."""

from __future__ import annotations

import asyncio

import pytest

from tests.tournament.helpers import config
from tricktable.rules.verify import verify_record
from tricktable.tournament.engine import Tournament, local_dispatcher, stored_games
from tricktable.tournament.store import TournamentStore

ray = pytest.importorskip("ray", reason="the optional extra tricktable[ray] is not installed")

pytestmark = pytest.mark.timeout(180)


def test_ray_tasks_play_the_same_matches_as_a_local_run(tmp_path):
    from tricktable.tournament.ray_runner import RayDispatcher

    cfg = config(games=4)

    async def on_ray():
        dispatcher = RayDispatcher.connect(cfg, "local", local=True)
        store = TournamentStore(tmp_path / "ray.sqlite3")
        await Tournament(cfg, store, dispatcher, concurrency=dispatcher.slots).run()
        return store

    store = asyncio.run(on_ray())
    assert not ray.is_initialized()  # the dispatcher stopped the instance it started
    local = TournamentStore(tmp_path / "local.sqlite3")
    asyncio.run(Tournament(cfg, local, local_dispatcher(cfg, 1)).run())
    on_ray_games = stored_games(store, "t")
    assert [(s.match_id, o.winners, o.scores) for s, o in on_ray_games] == [
        (s.match_id, o.winners, o.scores) for s, o in stored_games(local, "t")]
    for spec, _ in on_ray_games:
        assert verify_record(store.record("t", spec.match_id)) is None
    store.close()
    local.close()
