"""The viewer's HTTP side: pages and JSON for real tables and tournaments, and bad input answered plainly."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import Site
from tests.web.support import play, run_tournament, sse_messages
from tricktable.tournament.config import config_from_mapping
from tricktable.tournament.deck_key import opens
from tricktable.tournament.engine import Tournament, local_dispatcher
from tricktable.tournament.store import TournamentStore
from tricktable.web.app import make_app
from tricktable.web.catalog import FileCatalog
from tricktable.web.replay import replay
from tricktable.web.standings import scheduled_games
from tricktable.web.viewer import WebViewer

UNKNOWN = ["/table/t-nope", "/replay/t-nope", "/replay/cup/r0-d0-g0-a0", "/tournament/nope",
           "/api/tables/t-nope/events", "/api/replay/t-nope", "/api/replay/cup/m", "/api/tournaments/nope",
           "/no/such/page", "/static/nope.js", "/static/../app.py"]


@pytest.mark.parametrize("path", UNKNOWN)
async def test_unknown_table_record_or_tournament_is_404_with_a_one_line_message(site: Site, path: str) -> None:
    async with site.http.get(path) as response:
        text = await response.text()
    assert response.status == 404, text
    assert len(text.splitlines()) == 1 and "Traceback" not in text


async def test_lobby_lists_a_waiting_table_then_it_running_then_ended(site: Site) -> None:
    table, _ = site.server.lobby.create_table(game="all_fives", names=["ann", "bob"], seed="lobby")
    async with site.http.get("/api/tables") as response:
        rows = (await response.json())["tables"]
    assert [(r["id"], r["status"], r["names"], r["url"]) for r in rows] == [
        (table.id, "waiting", ["ann", "bob"], f"/table/{table.id}")]
    for seat in range(2):
        table.connect(seat)
    play(table, 3)
    async with site.http.get("/api/tables") as response:
        assert (await response.json())["tables"][0]["status"] == "running"
    table.abort("test over")
    await site.server.lobby.drain()
    async with site.http.get("/api/tables") as response:
        row = (await response.json())["tables"][0]
    assert (row["status"], row["url"], row["reason"]) == ("aborted", f"/replay/{table.id}", "test over")


async def test_live_stream_sends_the_spectator_log_then_ends_with_the_table(site: Site) -> None:
    table, _ = site.server.lobby.create_table(game="all_fives", seed="stream")
    for seat in range(2):
        table.connect(seat)
    play(table, 4)
    kinds = []
    async with site.http.get(f"/api/tables/{table.id}/events") as response:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        messages = sse_messages(response)
        name, first = await anext(messages)
        assert name == "state" and first["table"]["status"] == "running"
        name, batch = await anext(messages)
        assert [e["seq"] for e in batch["events"]] == [e.seq for e in table._log(None)]
        table.abort("enough")
        async for name, data in messages:
            kinds += [e["kind"] for e in data["events"]]
            if name == "end":
                break
    assert kinds[-1] == "TableEnded"


async def test_live_stream_resumes_after_the_last_event_id(site: Site) -> None:
    table, _ = site.server.lobby.create_table(game="all_fives", seed="resume")
    for seat in range(2):
        table.connect(seat)
    play(table, 4)
    table.abort("done")
    async with site.http.get(f"/api/tables/{table.id}/events", headers={"Last-Event-ID": "3"}) as response:
        seqs = [e["seq"] async for _, data in sse_messages(response) for e in data["events"]]
    assert seqs[0] == 4 and seqs == list(range(4, len(table._log(None)) + 1))


@pytest.mark.parametrize("after", ["x", "1"])
async def test_a_resume_point_that_is_not_a_number_or_beyond_the_log_is_400(site: Site, after: str) -> None:
    table, _ = site.server.lobby.create_table(game="all_fives")  # waiting: no event yet
    async with site.http.get(f"/api/tables/{table.id}/events?after={after}") as response:
        text = await response.text()
    assert response.status == 400 and len(text.splitlines()) == 1 and "Traceback" not in text


async def test_ended_table_page_redirects_to_its_replay_and_the_replay_has_every_step(site: Site) -> None:
    table, _ = site.server.lobby.create_table(game="all_fives", seed="ended")
    for seat in range(2):
        table.connect(seat)
    play(table, 5)
    table.abort("stop")
    await site.server.lobby.drain()
    site.server.lobby._forget(table.id)
    async with site.http.get(f"/table/{table.id}", allow_redirects=False) as response:
        assert (response.status, response.headers["Location"]) == (302, f"/replay/{table.id}")
    async with site.http.get(f"/replay/{table.id}") as response:
        assert response.status == 200 and "replay.js" in await response.text()
    async with site.http.get(f"/api/replay/{table.id}") as response:
        data = await response.json()
    assert len(data["frames"]) == 1 + 5 and data["meta"]["result"]["reason"] == "stop"


async def test_an_unexpected_error_is_500_without_a_traceback(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken() -> list[object]:
        raise RuntimeError("secret detail")

    monkeypatch.setattr(site.viewer.catalog, "tables", broken)
    async with site.http.get("/api/tables") as response:
        text = await response.text()
    assert response.status == 500
    assert "secret detail" not in text and "Traceback" not in text


async def test_tournament_page_reads_the_database_while_the_tournament_runs(site: Site) -> None:
    db = site.server.storage.path
    config = config_from_mapping({"name": "live-cup", "game": "all_fives", "entrants": ["random", "first-legal"],
                                  "games": 4, "seed": "live"})
    store = TournamentStore(db)
    store.begin(config, resume=False)  # registered and running, no game stored yet
    async with site.http.get("/api/tournaments/live-cup") as response:
        page = await response.json()
    assert (page["status"], page["games"], page["scheduled"]) == ("running", 0, scheduled_games(config))
    store.close()
    await run_tournament(db, "web-cup")
    async with site.http.get("/api/tournaments") as response:
        names = [t["name"] for t in (await response.json())["tournaments"]]
    assert names == ["web-cup", "live-cup"]
    async with site.http.get("/api/tournaments/web-cup") as response:
        page = await response.json()
    assert page["status"] == "finished" and page["games"] == page["scheduled"] == len(page["matches"]) == 6
    assert {row["name"] for row in page["leaderboard"]} == {"random", "first-legal", "heuristic"}
    # one deck set per pair: too few for an interval
    assert all((p["deck_sets"], p["ci95_low"], p["ci95_high"], p["ci95_method"]) == (1, None, None, "too few")
               for p in page["pairs"])
    async with site.http.get(page["matches"][0]["replay"].replace("/replay/", "/api/replay/")) as response:
        assert response.status == 200 and (await response.json())["frames"]


async def test_tournament_page_shows_the_deck_key_commitment_while_running_and_the_key_once_ended(site: Site) -> None:
    db = site.server.storage.path
    config = config_from_mapping({"name": "keyed-cup", "game": "all_fives", "entrants": ["random", "first-legal"],
                                  "games": 2, "seed": "keyed"})
    store = TournamentStore(db)
    try:
        store.begin(config, resume=False)
        async with site.http.get("/api/tournaments/keyed-cup") as response:
            running = (await response.json())["deck_key"]
        assert running["commitment"] and (running["key"], running["salt"]) == (None, None)
        await Tournament(config, store, local_dispatcher(config, 1)).run(resume=True)
        key = store.deck_key(config.name)
    finally:
        store.close()
    async with site.http.get("/api/tournaments/keyed-cup") as response:
        ended = (await response.json())["deck_key"]
    assert (ended["commitment"], ended["key"]) == (running["commitment"], key)
    assert opens(ended["commitment"], tournament=config.name, seed=config.seed, salt=ended["salt"], key=key)


async def test_tournament_page_gives_pairs_of_two_deck_sets_an_interval_with_width(site: Site) -> None:
    await run_tournament(site.server.storage.path, "two-decks", games=4)
    async with site.http.get("/api/tournaments/two-decks") as response:
        page = await response.json()
    assert [p["deck_sets"] for p in page["pairs"]] == [2, 2, 2]
    assert all(p["ci95_low"] <= p["paired_mean"] <= p["ci95_high"] and p["ci95_low"] < p["ci95_high"]
               and p["ci95_method"] == "wilson" for p in page["pairs"])


async def test_a_record_that_does_not_replay_is_422(tmp_path: Path) -> None:
    viewer = WebViewer(FileCatalog({"bad": {"format": "tricktable-record/1", "game": "all_fives"}}), port=0)
    await viewer.start()
    try:
        import aiohttp

        async with aiohttp.ClientSession(base_url=viewer.url) as http, http.get("/api/replay/bad") as response:
            text = await response.text()
        assert response.status == 422 and "does not replay" in text and "Traceback" not in text
    finally:
        await viewer.stop()


async def test_a_request_line_over_8_kb_is_a_400_and_one_log_line_without_a_traceback(
        caplog: pytest.LogCaptureFixture) -> None:
    viewer = WebViewer(FileCatalog({}), port=0)
    port = await viewer.start()
    try:
        with caplog.at_level(logging.INFO):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            await writer.drain()
            answer = await asyncio.wait_for(reader.read(200), 30)
            writer.close()
    finally:
        await viewer.stop()
    assert answer.startswith(b"HTTP/1.") and b" 400 " in answer.split(b"\r\n")[0]
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert any("bad HTTP request refused" in r.getMessage() for r in caplog.records)


def test_every_page_is_served_from_package_files_with_no_address_elsewhere() -> None:
    static = Path(make_app.__code__.co_filename).parent / "static"
    for path in static.iterdir():
        text = path.read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text and "//cdn" not in text, path.name


async def test_two_viewers_never_share_a_port_when_given_port_zero() -> None:
    viewers = [WebViewer(FileCatalog({}), port=0) for _ in range(2)]
    ports = await asyncio.gather(*(v.start() for v in viewers))
    try:
        assert ports[0] != ports[1] and all(ports)
    finally:
        for v in viewers:
            await v.stop()


def test_export_folder_pairs_each_game_with_its_record(tmp_path: Path) -> None:
    asyncio.run(run_tournament(tmp_path / "db.sqlite3", "file-cup"))
    from tricktable.tournament.report import export, summarize

    store = TournamentStore(tmp_path / "db.sqlite3")
    config = store.tournaments()[0][1]
    export(summarize(config, store), store, tmp_path / "out")
    store.close()
    catalog = FileCatalog.open(tmp_path / "out")
    assert catalog.export is not None
    rows = catalog.export.page["matches"]
    assert len(rows) == 6 and all(r["replay"] for r in rows)
    for row in rows:
        record = catalog.export.records[row["match_id"]]
        assert [s["name"] for s in record["seats"]] == row["seats"]
        assert record["result"]["scores"] == row["scores"]
    jsonl = tmp_path / "out" / "records.jsonl"
    assert list(FileCatalog.open(jsonl).records) == [str(i) for i in range(1, 7)]
    single = tmp_path / "one.json"
    single.write_text(json.dumps(catalog.export.records[rows[0]["match_id"]]))
    assert list(FileCatalog.open(single).records) == ["one"]


async def test_a_replay_is_built_off_the_event_loop_that_runs_the_tables(site: Site,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from tricktable.web import app as web_app

    table, _ = site.server.lobby.create_table(game="all_fives", seed="thread")
    table.abort("stop")
    await site.server.lobby.drain()
    threads = []

    def spy(record: object) -> dict[str, object]:
        threads.append(threading.current_thread())
        return replay(record)

    monkeypatch.setattr(web_app, "replay", spy)
    async with site.http.get(f"/api/replay/{table.id}") as response:
        assert response.status == 200
    assert threads and threads[0] is not threading.main_thread()


async def test_live_stream_of_a_table_suspended_for_a_restart_ends_cleanly_so_the_browser_resumes(site: Site) -> None:
    table, _ = site.server.lobby.create_table(game="all_fives", seed="suspended")
    for seat in range(2):
        table.connect(seat)
    play(table, 4)
    async with site.http.get(f"/api/tables/{table.id}/events") as response:
        messages = sse_messages(response)
        assert (await anext(messages))[0] == "state"
        assert (await anext(messages))[0] == "batch"
        table.suspend()  # the server is stopping: the table waits in the journal for the next start
        rest = await asyncio.wait_for(_names(messages), 10)  # the stream ends, no error (EventSource reconnects)
    assert "end" not in rest


async def _names(messages: Any) -> list[str]:
    return [name async for name, _ in messages]


async def test_analysis_of_an_ended_game_values_a_seat_s_decisions_as_tricktable_analyse_json(site: Site) -> None:
    table, _ = site.server.lobby.create_table(game="all_fives", options={"target": 11}, seed="analysed")
    for seat in range(2):
        table.connect(seat)
    while not table.is_over:
        play(table, 1)
    await site.server.lobby.drain()
    async with site.http.get(f"/api/analysis/{table.id}?seat=1&sims=2") as response:
        assert response.status == 200
        found = await response.json()
    assert found["seat"] == 1 and found["analyser"] == "search" and found["sims"] == 2
    assert found["decisions"] and all({"played_name", "choice_name", "loss", "costly"} <= set(d)
                                      for d in found["decisions"])
    assert table.record is not None and len(found["loss_per_deal"]) == len(table.record["deals"])


@pytest.mark.parametrize(("query", "status"), [("", 400), ("?seat=x", 400), ("?seat=2", 422), ("?seat=0&sims=0", 422),
                                               ("?seat=0&sims=401", 422)])
async def test_an_analysis_of_no_seat_or_too_many_worlds_is_refused_in_one_line(site: Site, query: str,
                                                                               status: int) -> None:
    table, _ = site.server.lobby.create_table(game="all_fives", seed="refused")
    for seat in range(2):
        table.connect(seat)
    play(table, 2)
    table.abort("enough")
    await site.server.lobby.drain()
    async with site.http.get(f"/api/analysis/{table.id}{query}") as response:
        text = await response.text()
    assert response.status == status and len(text.splitlines()) == 1 and "Traceback" not in text
