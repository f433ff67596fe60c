"""Many machines on one: a lobby and three game processes (real ``tricktable serve`` processes on their own ports,
standing in for pods) sharing one real PostgreSQL database.

Seekers meet at the lobby and are seated on a game process; tables created
at the lobby are placed round robin; SDK bots in a process of their own play
every seat through the lobby's address (which relays each stream to the
table's game process); a spectator follows a table through the lobby. Then a
game process is killed (SIGKILL) mid-play and restarted on its port and data
directory, and the lobby is stopped and started again: every table finishes
with the record of an uninterrupted game, readable through every process.

Two lobbies over the same database both place tables and forward calls, a
seeker at each is matched with the other, and when one is killed (SIGKILL)
the other goes on seating, placing and relaying; their game processes claim
their indexes from the directory, as pods without an ordinal do.

Every process reads the same forwarding secret from a file.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import signal
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc

from tests.server.clients import create
from tests.server.restarts import (
    Served,
    fleet_outcomes,
    killed_at_exit,
    opened,
    serve,
    start_fleet,
    uninterrupted_record,
)
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.rules.verify import verify_record
from tricktable.server.shard_ids import shard_of_table

GAMES = 3
#: Tables created at the lobby (All Fives, two seats: 130-310 first-legal moves each), two per game process.
CREATED = 6
#: Reconnect attempts of each seat (about 130 s of patience): a seat rides out a process's restart however long the
#: loaded machine takes to start it.
ATTEMPTS = 30
#: The seat counters a reconnect changes (a stream relayed by a restarted lobby is a disconnect of the seat).
SEAT_COUNTERS = ("disconnects",)


def free_port() -> int:
    with contextlib.closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def secret_file(tmp_path: Path) -> Path:
    """The forwarding secret every process of the test's server reads (as a mounted Kubernetes Secret would be)."""
    path = tmp_path / "forwarding-secret"
    if not path.exists():
        path.write_text(secrets.token_hex(32) + "\n")
    return path


def role_flags(role: str, url: str, tmp_path: Path, index: int | None = None, games: int = GAMES) -> tuple[str, ...]:
    """The flags of a process of ``role``; a game process without ``index`` claims one from the directory."""
    game = ("--game-index", str(index)) if index is not None else ("--claim-game-index",) if role == "game" else ()
    return ("--role", role, "--games", str(games), "--database-url", url,
            "--forwarding-secret-file", str(secret_file(tmp_path)), *game)


@contextlib.asynccontextmanager
async def game_process(tmp_path: Path, index: int, port: int, url: str, games: int = GAMES,
                       claimed: bool = False) -> AsyncIterator[Served]:
    """Game process ``index`` (``claimed``: it claims its index from the directory, started after the lower ones)."""
    flags = role_flags("game", url, tmp_path, None if claimed else index, games)
    async with serve(tmp_path / f"game-{index}", port, *flags) as served:
        yield served


def stub_of(channel: grpc.aio.Channel) -> Any:
    return table_service_pb2_grpc.TableServiceStub(channel)


async def seek_pair(address: str, other: str | None = None) -> list[pb.SeekSeated]:
    """Two seekers of a two-seat All Fives, at ``address`` and at ``other`` (the same when not given), seated."""
    async def seek(at: str) -> pb.SeekSeated:
        async with grpc.aio.insecure_channel(at) as channel:
            request = pb.SeekGameRequest(game=convert.game_to_proto("all_fives"), players=2)
            async for update in stub_of(channel).SeekGame(request):
                if update.WhichOneof("kind") == "seated":
                    seated: pb.SeekSeated = update.seated
                    return seated
        raise AssertionError("the seek ended unseated")

    return list(await asyncio.wait_for(asyncio.gather(seek(address), seek(other or address)), 60))


async def deal_number(stub: Any, table_id: str) -> int:
    answer = await stub.GetTable(pb.GetTableRequest(table_id=table_id))
    return int(answer.table.deal_number)


async def reached(stub: Any, table_id: str) -> int:
    """The deal number of ``table_id`` once its game process answers through ``stub`` (UNAVAILABLE until then)."""
    async with asyncio.timeout(60):
        while True:
            try:
                return await deal_number(stub, table_id)
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
            await asyncio.sleep(0.1)


def without_counters(record: dict[str, Any]) -> dict[str, Any]:
    return {**record, "seats": [{k: v for k, v in seat.items() if k not in SEAT_COUNTERS} for seat in record["seats"]]}


async def test_a_lobby_and_three_game_processes_seat_place_play_and_survive_a_kill_and_a_lobby_restart(
        database_url: str, tmp_path: Path) -> None:
    ports = [free_port() for _ in range(GAMES)]
    lobby_port = free_port()
    fleets: list[asyncio.subprocess.Process] = []
    seeds: dict[str, str] = {}
    with killed_at_exit(fleets):
        async with contextlib.AsyncExitStack() as games:
            game = [await games.enter_async_context(game_process(tmp_path, k, ports[k], database_url))
                    for k in range(GAMES)]
            async with serve(tmp_path / "lobby", lobby_port, *role_flags("lobby", database_url, tmp_path)) as lobby, \
                    grpc.aio.insecure_channel(lobby.address) as channel:
                stub = stub_of(channel)
                tokens: list[str] = []
                for index in range(CREATED):
                    seed = f"topology-{index}"
                    created = await create(stub, "all_fives", seed=seed)
                    seeds[created.table_id] = seed
                    shard = shard_of_table(created.table_id)
                    assert shard is not None and created.play_address == game[shard].address
                    tokens += [t.token for t in created.seat_tokens]
                fleets.append(await start_fleet(lobby.address, tokens, ATTEMPTS))  # every stream relayed by the lobby
                assert {shard_of_table(t) for t in seeds} == set(range(GAMES))  # placed on every game process

                seated = await seek_pair(lobby.address)
                assert seated[0].table_id == seated[1].table_id and {s.seat for s in seated} == {0, 1}
                sought = seated[0].table_id
                assert seated[0].play_address == game[shard_of_table(sought) or 0].address
                fleets.append(await start_fleet(seated[0].play_address, [s.token for s in seated], ATTEMPTS))

                spectated = [r async for r in _first_events(stub, next(iter(seeds)), 5)]
                assert len(spectated) == 5

                victim = 1
                on_victim = [t for t in seeds if shard_of_table(t) == victim]
                async with asyncio.timeout(120):  # mid-play: past their first deal (All Fives: 3-24 deals)
                    while min([await deal_number(stub, t) for t in on_victim]) < 2:
                        await asyncio.sleep(0.05)
                assert await game[victim].signal(signal.SIGKILL) == -signal.SIGKILL
                game[victim] = await games.enter_async_context(game_process(tmp_path, victim, ports[victim],
                                                                            database_url))
                for table_id in on_victim:  # resumed, and reached through the lobby again
                    assert await reached(stub, table_id) >= 2
                assert await lobby.signal(signal.SIGTERM) == 0
            async with serve(tmp_path / "lobby", lobby_port, *role_flags("lobby", database_url, tmp_path)) as lobby:
                outcomes = [o for fleet in fleets for o in await fleet_outcomes(fleet)]
                assert len(outcomes) == 2 * (CREATED + 1)
                assert all(o.get("status") == "finished" for o in outcomes), outcomes
                ids = [*seeds, sought]
                by_process = {}
                for process in (lobby, *game):
                    async with grpc.aio.insecure_channel(process.address) as channel:
                        by_process[process.address] = {
                            t: json.loads((await stub_of(channel).GetRecord(pb.GetRecordRequest(table_id=t)))
                                          .record_json) for t in ids}
                        listed = await stub_of(channel).ListTables(pb.ListTablesRequest())
                        assert set(ids) <= {t.table_id for t in listed.tables}
    records = by_process[lobby.address]
    assert all(seen == records for seen in by_process.values())  # the same records through every process
    for table_id, seed in seeds.items():
        expected = uninterrupted_record("all_fives", {}, seed)
        assert without_counters(opened(records[table_id])) == without_counters(expected), table_id
    assert all(verify_record(record) is None for record in records.values())


async def test_two_lobbies_place_forward_and_match_seekers_together_and_one_serves_on_when_the_other_is_killed(
        database_url: str, tmp_path: Path) -> None:
    games = 2
    fleets: list[asyncio.subprocess.Process] = []
    with killed_at_exit(fleets):
        async with contextlib.AsyncExitStack() as stack:
            game = [await stack.enter_async_context(game_process(tmp_path, k, free_port(), database_url, games,
                                                                 claimed=True))
                    for k in range(games)]  # as an Agones Fleet's pods: each claims the lowest free index
            first, second = [await stack.enter_async_context(serve(
                tmp_path / name, 0, *role_flags("lobby", database_url, tmp_path, games=games)))
                for name in ("lobby-a", "lobby-b")]
            channel_a = await stack.enter_async_context(grpc.aio.insecure_channel(first.address))
            channel_b = await stack.enter_async_context(grpc.aio.insecure_channel(second.address))
            stub_a, stub_b = stub_of(channel_a), stub_of(channel_b)
            created = [await create(stub_a, "all_fives"), await create(stub_b, "all_fives")]
            for table, through in zip(created, (stub_b, stub_a), strict=True):  # placed by one, read through the other
                shard = shard_of_table(table.table_id)
                assert shard is not None and table.play_address == game[shard].address
                assert (await through.GetTable(pb.GetTableRequest(table_id=table.table_id))).table.table_id \
                    == table.table_id
            together = await seek_pair(first.address, second.address)  # a seeker at each lobby: they meet
            assert together[0].table_id == together[1].table_id and {s.seat for s in together} == {0, 1}
            tokens = [t.token for c in created for t in c.seat_tokens] + [s.token for s in together]
            fleets.append(await start_fleet(second.address, tokens, ATTEMPTS))  # every stream through lobby b

            assert await first.signal(signal.SIGKILL) == -signal.SIGKILL  # the lobby that matched
            after = await seek_pair(second.address, second.address)
            assert after[0].table_id == after[1].table_id
            late = await create(stub_b, "all_fives")
            fleets.append(await start_fleet(second.address, [s.token for s in after] +
                                            [t.token for t in late.seat_tokens], ATTEMPTS))
            outcomes = [o for fleet in fleets for o in await fleet_outcomes(fleet)]
            assert len(outcomes) == 2 * 5
            assert all(o.get("status") == "finished" for o in outcomes), outcomes
            ids = [c.table_id for c in created] + [together[0].table_id, after[0].table_id, late.table_id]
            for process in (second, *game):
                async with grpc.aio.insecure_channel(process.address) as channel:
                    for table_id in ids:
                        record = json.loads((await stub_of(channel).GetRecord(
                            pb.GetRecordRequest(table_id=table_id))).record_json)
                        assert verify_record(record) is None, table_id


async def _first_events(stub: Any, table_id: str, count: int) -> AsyncIterator[pb.SpectateResponse]:
    call = stub.Spectate(pb.SpectateRequest(table_id=table_id))
    seen = 0
    async for response in call:
        yield response
        seen += 1
        if seen == count:
            call.cancel()
            return
