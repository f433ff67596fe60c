"""The viewer beside a server with ``--database-url`` shows the tournaments kept in that PostgreSQL database."""

from __future__ import annotations

from pathlib import Path

import aiohttp

from tests.live_server import running_server
from tests.web.conftest import CLOCKS
from tricktable.tournament.config import config_from_mapping
from tricktable.tournament.engine import Tournament, local_dispatcher
from tricktable.tournament.store import tournament_store
from tricktable.web.viewer import WebViewer, beside_server


async def test_the_viewer_of_a_server_on_postgresql_reads_its_tournaments_there(database_url: str,
                                                                              tmp_path: Path) -> None:
    config = config_from_mapping({"name": "pg-cup", "game": "all_fives", "entrants": ["random", "first-legal"],
                                  "games": 2, "seed": "pg"})
    store = tournament_store(tmp_path / "unused.sqlite3", database_url)
    try:
        await Tournament(config, store, local_dispatcher(config, 1)).run()
    finally:
        store.close()
    notes: list[str] = []
    async with running_server(tmp_path / "data", CLOCKS, database_url=database_url) as server, \
            beside_server("127.0.0.1", 0, announce=notes.append)(server) as viewer:
        assert isinstance(viewer, WebViewer), notes
        async with aiohttp.ClientSession(base_url=viewer.url) as http:
            async with http.get("/api/tournaments") as response:
                listed = (await response.json())["tournaments"]
            async with http.get("/api/tournaments/pg-cup") as response:
                page = await response.json()
            async with http.get(page["matches"][0]["replay"].replace("/replay/", "/api/replay/")) as response:
                replay = await response.json()
    assert [(t["name"], t["status"], t["games"]) for t in listed] == [("pg-cup", "finished", 2)]
    assert page["games"] == page["scheduled"] == len(page["matches"]) == 2 and replay["frames"]
    assert not (tmp_path / "unused.sqlite3").exists() and not (tmp_path / "data" / "tricktable.sqlite3").exists()
