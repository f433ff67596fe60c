"""The viewer's commands as processes: ``tricktable serve`` with and without it, ``tricktable view FILE``."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp

from tests.web.support import run_tournament
from tricktable.rules.registry import new_match

CLI = [sys.executable, "-m", "tricktable.cli.main"]
ROOT = Path(__file__).resolve().parents[2]


@asynccontextmanager
async def command(*args: str) -> AsyncIterator[asyncio.subprocess.Process]:
    process = await asyncio.create_subprocess_exec(*CLI, *args, cwd=ROOT, stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.PIPE)
    try:
        yield process
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def line(process: asyncio.subprocess.Process) -> str:
    assert process.stdout is not None
    return (await asyncio.wait_for(process.stdout.readline(), 60)).decode().strip()


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(url) as response:
        return response.status, await response.text()


async def test_serve_prints_the_viewer_address_after_the_grpc_one_and_serves_the_lobby(tmp_path: Path) -> None:
    async with command("serve", "--port", "0", "--http-port", "0", "--data-dir", str(tmp_path)) as process:
        assert (await line(process)).startswith("listening on 127.0.0.1:")
        viewer = await line(process)
        assert viewer.startswith("web viewer on http://127.0.0.1:")
        url = viewer.removeprefix("web viewer on ")
        status, body = await get(url + "api/tables")
        assert status == 200 and json.loads(body) == {"live": True, "organiser": False, "tables": []}
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 30) == 0


async def test_serve_no_http_serves_no_viewer(tmp_path: Path) -> None:
    async with command("serve", "--port", "0", "--no-http", "--data-dir", str(tmp_path)) as process:
        assert (await line(process)).startswith("listening on ")
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 30) == 0
        assert process.stdout is not None and await process.stdout.read() == b""


async def test_view_serves_a_record_file_and_opens_on_its_replay(tmp_path: Path) -> None:
    match = new_match("all_fives", {"players": 2}, seed="view")
    while not match.is_over:
        match = match.apply(match.legal_actions()[0])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(match.to_record(seed="view")))
    async with command("view", str(path), "--port", "0") as process:
        first = await line(process)
        assert first.startswith("viewer on http://127.0.0.1:") and first.endswith("/replay/game (Ctrl-C to stop)")
        page = first.removeprefix("viewer on ").removesuffix(" (Ctrl-C to stop)")
        status, _ = await get(page)
        assert status == 200
        status, body = await get(page.replace("/replay/", "/api/replay/"))
        assert status == 200 and json.loads(body)["meta"]["names"] == ["seat-0", "seat-1"]
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 30) == 0


async def test_view_of_a_missing_or_bad_file_exits_2_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[not json")
    for path in (tmp_path / "missing.json", bad):
        async with command("view", str(path), "--port", "0") as process:
            _out, err = await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode == 2
        assert err.decode().startswith("error: cannot read") and len(err.decode().strip().splitlines()) == 1


async def test_view_of_a_database_shows_its_tournaments_as_they_are_stored(tmp_path: Path) -> None:
    db = tmp_path / "tricktable.sqlite3"
    await run_tournament(db, "db-cup")
    async with command("view", str(db), "--port", "0") as process:
        first = await line(process)
        url = first.removeprefix("viewer on ").removesuffix(" (Ctrl-C to stop)")
        status, body = await get(url + "api/tournaments")
        assert status == 200 and [t["name"] for t in json.loads(body)["tournaments"]] == ["db-cup"]
        status, body = await get(url + "api/tournaments/db-cup")
        page = json.loads(body)
        assert page["games"] == len(page["matches"]) == 6
        status, _ = await get(url + page["matches"][0]["replay"].lstrip("/"))
        assert status == 200
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 30) == 0


async def test_view_of_a_file_that_is_not_a_database_exits_2(tmp_path: Path) -> None:
    fake = tmp_path / "fake.sqlite3"
    fake.write_text("not a database, just text that is long enough to have a header" * 10)
    async with command("view", str(fake), "--port", "0") as process:
        _out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 2 and "not a Tricktable database" in err.decode()
