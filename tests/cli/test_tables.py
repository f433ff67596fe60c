"""``tricktable tables``, ``watch`` and ``record`` against a real server."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from tests.live_server import running_server
from tricktable.bots.first_legal import FirstLegalBot
from tricktable.client_sdk.runner import create_table, run_bot_async
from tricktable.server.clocks import TimeControl

ROOT = Path(__file__).resolve().parents[2]


async def cli(*args: str, timeout: float = 60) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "tricktable.cli.main", *args, cwd=ROOT,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), timeout)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_tables_watch_and_record_show_a_played_table(tmp_path: Path) -> None:
    clocks = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=5.0, join_seconds=20.0)
    async with running_server(tmp_path / "data", clocks) as server:
        address = server.address
        table = await create_table(address, game="all_fives", options={"target": 11}, seed="cli-tables",
                                   seat_names=["north", "south"])
        waiting = await cli("tables", "--server", address)
        await asyncio.wait_for(asyncio.gather(*(run_bot_async(FirstLegalBot(), address, token=t)
                                                for t in table.tokens)), 60)
        listed = await cli("tables", "--server", address, "--game", "all_fives")
        watched = await cli("watch", table.table_id, "--server", address)
        printed = await cli("record", table.table_id, "--server", address)
        written = await cli("record", table.table_id, "--server", address, "--out", str(tmp_path / "r.json"))
        unknown = await cli("record", "t-nope", "--server", address)
    assert waiting[0] == 0, waiting[2]
    assert f"{table.table_id}  all_fives  waiting" in waiting[1]
    assert listed[0] == 0, listed[2]
    assert f"{table.table_id}  all_fives  finished" in listed[1] and "north" in listed[1]
    assert watched[0] == 0, watched[2]
    assert "deal 1" in watched[1] and watched[1].splitlines()[-1].startswith("finished: winning side(s)")
    assert printed[0] == 0, printed[2]
    assert json.loads(printed[1])["seed"] == "cli-tables"
    assert written[0] == 0 and json.loads((tmp_path / "r.json").read_text()) == json.loads(printed[1])
    verified = await cli("verify", str(tmp_path / "r.json"))
    assert verified[0] == 0, verified
    assert unknown[0] == 2 and unknown[2].count("\n") == 1 and unknown[2].startswith("error: ")


async def test_tables_on_an_unreachable_server_is_one_line() -> None:
    code, out, err = await cli("tables", "--server", "127.0.0.1:1")
    assert code == 2 and out == "" and err.startswith("error: cannot connect to 127.0.0.1:1")
