"""A tournament over the real server as its organiser watches it: every table bound to the tournament's one
owner token, each deck set withheld from the public until all its games are over, the token kept in a file."""

from __future__ import annotations

import asyncio
import json
import secrets
import stat
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest

from tests.live_server import running_server
from tests.tournament.helpers import config
from tricktable.bots.first_legal import FirstLegalBot
from tricktable.cli.owner import write_owner_token
from tricktable.client_sdk.runner import create_table, run_bot_async
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.server.clocks import TimeControl
from tricktable.server.seats import token_digest
from tricktable.tournament.engine import Tournament, stored_games
from tricktable.tournament.runner import MatchOutcome
from tricktable.tournament.schedule import MatchSpec, deck_set_index, tables_per_deck_set
from tricktable.tournament.server_runner import ServerDispatcher
from tricktable.tournament.store import TournamentStore

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).resolve().parents[2]


class WithheldWhenStored:
    """A progress sink noting, as each game is stored, whether the server still withholds its table."""

    def __init__(self, lobby: Any) -> None:
        self.lobby = lobby
        self.seen: list[tuple[str, bool]] = []

    def start(self, total: int, done: int) -> None:
        pass

    def advance(self, spec: MatchSpec, outcome: MatchOutcome) -> None:
        assert outcome.table_id is not None
        table = self.lobby.find(outcome.table_id)
        assert table is not None  # ended moments ago: still in memory
        self.seen.append((outcome.table_id, bool(self.lobby.withheld(table))))


async def test_tournament_tables_share_its_owner_token_and_open_once_their_deck_set_is_over(tmp_path: Path) -> None:
    cfg = config(entrants=["random", "first-legal", {"name": "random-2", "bot": "random"}], games=2)
    clocks = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=5.0, join_seconds=30.0)
    async with running_server(tmp_path / "data", clocks) as server:
        store = TournamentStore(server.storage.path)
        dispatcher = await ServerDispatcher.open(cfg, address=server.address, data_dir=tmp_path)
        progress = WithheldWhenStored(server.lobby)
        await Tournament(cfg, store, dispatcher, concurrency=1, progress=progress).run()
        organiser = store.owner_token("t")
        games = stored_games(store, "t")
        ids = [outcome.table_id or "" for _, outcome in games]
        assert len(games) == tables_per_deck_set(cfg) == 6  # one deck set: three pairs, both directions
        assert [withheld for _, withheld in progress.seen] == [True] * 5 + [False]
        tables = [server.lobby.find(table_id) for table_id in ids]
        assert all(t is not None and t.owner_digest == token_digest(organiser) for t in tables)
        assert sorted(t.deck_set.index for t in tables if t is not None and t.deck_set is not None) == list(range(6))
        assert {deck_set_index(cfg, spec) for spec, _ in games} == set(range(6))
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = table_service_pb2_grpc.TableServiceStub(channel)
            for table_id in ids:  # the deck set is over: every record is public
                await stub.GetRecord(pb.GetRecordRequest(table_id=table_id))
        store.close()


async def test_tournament_command_keeps_its_organiser_token_in_a_file_only_its_user_reads(tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tricktable.cli.main", "tournament", "--game", "all_fives", "--bots",
        "random,first-legal", "--games", "2", "--runner", "local", "--no-progress", "--name", "kept",
        "--data-dir", str(tmp_path), cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode == 0, err.decode()
    path = tmp_path / "organiser" / "kept.token"
    assert f"organisertoken:{path}" in "".join(out.decode().split())  # the console wraps long lines
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    store = TournamentStore(tmp_path / "tricktable.sqlite3")
    try:
        assert path.read_text().strip() == store.owner_token("kept") and len(store.owner_token("kept")) >= 32
    finally:
        store.close()


async def cli(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "tricktable.cli.main", *args, cwd=ROOT,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_watch_with_the_organisers_token_file_follows_a_sealed_running_table(tmp_path: Path) -> None:
    organiser = secrets.token_urlsafe(32)
    token_file = tmp_path / "organiser.token"
    write_owner_token(token_file, organiser)
    clocks = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=5.0, join_seconds=60.0)
    async with running_server(tmp_path / "data", clocks) as server:
        address = server.address
        table = await create_table(address, game="all_fives", options={"target": 11}, seed="sealed-watch",
                                   seat_names=["north", "south"], sealed=True, deck_set=(2, 0), owner_token=organiser)
        refused = await cli("watch", table.table_id, "--server", address)
        watching = asyncio.ensure_future(cli("watch", table.table_id, "--server", address,
                                             "--token-file", str(token_file)))
        deadline = asyncio.get_running_loop().time() + 60
        while not server.lobby._spectators[table.table_id]:  # the organiser's watch is following the table
            assert asyncio.get_running_loop().time() < deadline and not watching.done()
            await asyncio.sleep(0.05)
        await asyncio.wait_for(asyncio.gather(*(run_bot_async(FirstLegalBot(), address, token=t)
                                                for t in table.tokens)), 60)
        watched = await watching
        public_record = await cli("record", table.table_id, "--server", address)
        own_record = await cli("record", table.table_id, "--server", address, "--token-file", str(token_file))
    assert refused[0] == 2 and "withheld" in refused[2] and refused[1] == ""
    assert watched[0] == 0, watched[2]
    assert "deal 1" in watched[1] and watched[1].splitlines()[-1].startswith("finished: winning side(s)")
    assert public_record[0] == 2 and "withheld" in public_record[2]
    assert own_record[0] == 0 and json.loads(own_record[1])["seed"] == "sealed-watch"
    assert organiser not in " ".join((*refused[1:], *watched[1:], *own_record[1:]))  # never printed
