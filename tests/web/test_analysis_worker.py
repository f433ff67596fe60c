"""On-demand analyses run away from the tables: in a worker process at the lowest priority, bounded, time limited.

Real HTTP against the real viewer beside a real game server; the worker pool is the real
one (spawned processes), given jobs a test can hold so that no verdict waits on speed.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp

from tests.live_server import running_server
from tests.web import analysis_jobs
from tests.web.conftest import CLOCKS
from tests.web.support import play
from tricktable.server.app import GameServer
from tricktable.server.tables import Table
from tricktable.web.analysed import Analyses, analysis
from tricktable.web.catalog import ServerCatalog
from tricktable.web.viewer import WebViewer

#: Seconds at most a test waits for a condition (a spawned worker starts within it even on a loaded machine).
DEADLINE = 60.0


@asynccontextmanager
async def viewer_with(tmp_path: Path, analyses: Analyses) -> AsyncIterator[tuple[GameServer, aiohttp.ClientSession]]:
    async with running_server(tmp_path / "data", CLOCKS) as server:
        viewer = WebViewer(ServerCatalog(server.lobby, server.storage.path), port=0, analyses=analyses)
        await viewer.start()
        try:
            async with aiohttp.ClientSession(base_url=viewer.url) as http:
                yield server, http
        finally:
            await viewer.stop()


async def _ended_table(server: GameServer, seed: str) -> Table:
    table, _ = server.lobby.create_table(game="all_fives", options={"target": 11}, seed=seed)
    for seat in range(2):
        table.connect(seat)
    while not table.is_over:
        play(table, 1)
    await server.lobby.drain()
    return table


async def _until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(DEADLINE):
        while not condition():
            await asyncio.sleep(0.02)


async def _get(http: aiohttp.ClientSession, path: str) -> tuple[int, str, dict[str, str]]:
    async with http.get(path) as response:
        return response.status, await response.text(), dict(response.headers)


async def test_an_analysis_runs_in_a_worker_process_at_the_lowest_priority(tmp_path: Path) -> None:
    async with viewer_with(tmp_path, Analyses(job=analysis_jobs.where)) as (server, http):
        table = await _ended_table(server, "elsewhere")
        async with http.get(f"/api/analysis/{table.id}?seat=1&sims=2") as response:
            assert response.status == 200
            found: dict[str, Any] = await response.json()
    ran_in = found.pop("ran_in")
    assert ran_in["pid"] != os.getpid()  # not the process of the server's tables
    assert ran_in["nice"] == 19 and ran_in["policy"] == os.SCHED_IDLE
    assert table.record is not None and found == analysis(table.record, 1, 2)  # the analysis itself, unchanged


async def test_a_full_queue_is_refused_with_503_and_a_clear_message_until_a_worker_is_free(tmp_path: Path) -> None:
    gate = tmp_path / "go"
    analyses = Analyses(workers=1, queued=1, job=functools.partial(analysis_jobs.held, gate))
    async with viewer_with(tmp_path, analyses) as (server, http):
        table = await _ended_table(server, "queued")
        path = f"/api/analysis/{table.id}"
        first, second = (asyncio.ensure_future(_get(http, f"{path}?seat={seat}&sims=5")) for seat in (0, 1))
        await _until(lambda: analyses.pending == 2)  # one running, one waiting: the most this viewer takes
        status, text, headers = await _get(http, f"{path}?seat=0&sims=6")
        assert status == 503 and headers["Retry-After"] == "30"
        assert text == ("503: the viewer is busy: 2 analyses are running or waiting, the most it takes "
                        "(1 at once, 1 waiting); ask again in a while")
        again = asyncio.ensure_future(_get(http, f"{path}?seat=0&sims=5"))  # the same one: joins the running one
        await asyncio.sleep(0.1)
        assert analyses.pending == 2 and not again.done()
        gate.touch()
        assert [(await call)[0] for call in (first, second, again)] == [200, 200, 200]
        assert (await _get(http, f"{path}?seat=0&sims=6"))[0] == 200  # a free worker takes it


async def test_an_analysis_past_its_time_limit_is_stopped_and_the_next_one_runs(tmp_path: Path) -> None:
    gate = tmp_path / "never-yet"
    analyses = Analyses(time_limit=3.0, job=functools.partial(analysis_jobs.held, gate))
    async with viewer_with(tmp_path, analyses) as (server, http):
        table = await _ended_table(server, "stopped")
        status, text, _ = await _get(http, f"/api/analysis/{table.id}?seat=0&sims=5")
        assert status == 503
        assert text == "503: the analysis ran past its limit of 3 s and was stopped; ask for fewer worlds (sims)"
        assert analyses.pending == 0
        gate.touch()
        assert (await _get(http, f"/api/analysis/{table.id}?seat=1&sims=5"))[0] == 200
