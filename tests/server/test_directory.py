"""The directory's placement by load and its choice of the matchmaking lobby, over a real SQLite store.

The game processes' words are written into the store as game processes
write them (:meth:`RecordStore.advertise`); a word made old is written back
with an earlier time, as a process that stopped speaking leaves it.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from tricktable.server.directory import STALE_SECONDS, DirectoryShards, claim_game_index
from tricktable.server.errors import ShardUnavailableError
from tricktable.server.forwarding import Forwarding
from tricktable.server.shards import LOBBY
from tricktable.server.storage import DB_NAME, Storage

SECRET = b"directory-test-forwarding-secret-0123456789"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Storage]:
    opened = Storage(tmp_path).open()
    yield opened
    opened.close()


def lobby(store: Storage, games: int = 3) -> DirectoryShards:
    return DirectoryShards(LOBBY, games, store, Forwarding(SECRET))


def silenced(path: Path, table: str, column: str, where: str) -> None:
    """Make a process's last word older than :data:`STALE_SECONDS` (it stopped speaking)."""
    with closing(sqlite3.connect(path / DB_NAME)) as db, db:
        db.execute(f"UPDATE {table} SET {column} = ? WHERE {where}", (time.time() - 2 * STALE_SECONDS,))


async def test_a_table_goes_to_the_least_loaded_game_process_that_takes_tables(store: Storage) -> None:
    store.advertise(0, "g0:1", tables=5)
    store.advertise(1, "g1:1", tables=2)
    store.advertise(2, "g2:1", tables=0, taking=False)  # draining
    assert await lobby(store).place() == 1


async def test_a_burst_is_spread_by_the_tables_placed_since_each_game_process_last_spoke(store: Storage) -> None:
    store.advertise(0, "g0:1", tables=3)
    store.advertise(1, "g1:1", tables=0)
    store.advertise(2, "g2:1", tables=1)
    shards = lobby(store)
    placed = [await shards.place() for _ in range(6)]
    assert [placed.count(k) for k in range(3)] == [1, 3, 2]  # each at 4 or 3 tables: the fairest share of 10
    await asyncio.sleep(0.05)  # its word below comes after those placements, whatever the clocks' resolution
    store.advertise(1, "g1:1", tables=1)  # two of its three new tables ended: its word counts what it has
    await shards.refresh(now=True)
    assert await shards.place() == 1  # 1 (not 1 + 3 placed before it spoke) against 3 + 1 and 1 + 2


async def test_a_game_process_not_heard_from_lately_gets_no_table(store: Storage, tmp_path: Path) -> None:
    store.advertise(0, "g0:1", tables=0)
    store.advertise(1, "g1:1", tables=9)
    silenced(tmp_path, "game_processes", "advertised_at", "shard = 0")
    assert await lobby(store, 2).place() == 1


async def test_no_game_process_taking_tables_is_unavailable(store: Storage) -> None:
    store.advertise(0, "g0:1", taking=False)
    with pytest.raises(ShardUnavailableError, match="no game process takes tables now"):
        await lobby(store, 1).place()


async def test_the_oldest_lobby_heard_from_matches_and_the_next_takes_over_when_it_falls_silent(
        store: Storage, tmp_path: Path) -> None:
    first, second = lobby(store), lobby(store)
    store.advertise_lobby(first.lobby_id, "l0:1")
    store.advertise_lobby(second.lobby_id, "l1:1")
    for shards in (first, second):
        await shards.refresh(now=True)
        found = shards.matchmaker()
        assert found is not None and found.id == first.lobby_id
    assert await first.matchmaker_stub() is None  # it matches its own seekers
    assert await second.matchmaker_stub() is not None  # it relays them
    silenced(tmp_path, "lobby_processes", "seen_at", f"id = '{first.lobby_id}'")
    await second.refresh(now=True)
    found = second.matchmaker()
    assert found is not None and found.id == second.lobby_id
    assert await second.matchmaker_stub() is None
    await first.close()
    await second.close()


def test_a_claimed_game_index_is_remembered_in_the_data_directory_for_a_restart(store: Storage,
                                                                                tmp_path: Path) -> None:
    first = claim_game_index(store, 3, tmp_path / "game-a")
    other = claim_game_index(store, 3, tmp_path / "game-b")
    assert first[0] != other[0]
    assert claim_game_index(store, 3, tmp_path / "game-a") == first  # the same process, restarted: its own back
    claim_game_index(store, 3, tmp_path / "game-c")
    with pytest.raises(RuntimeError, match="all 3 game indexes are held by running game processes"):
        claim_game_index(store, 3, tmp_path / "game-d")
