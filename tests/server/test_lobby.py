"""The lobby: limits, tokens, seek, storage of ended tables, shutdown."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tricktable.rules.errors import OptionsError
from tricktable.server import lobby as lobby_module
from tricktable.server.clocks import TimeControl
from tricktable.server.errors import (
    BadTokenError,
    ShuttingDownError,
    TableNotFoundError,
    TableNotOverError,
    TooManyTablesError,
)
from tricktable.server.limits import Limits
from tricktable.server.lobby import Lobby
from tricktable.server.storage import Storage, TableMeta
from tricktable.server.tables import TableStatus

CLOCKS = TimeControl(decision_seconds=5.0, bank_seconds=5.0, grace_seconds=5.0, join_seconds=5.0)


@pytest.fixture
async def lobby(tmp_path: Path) -> AsyncIterator[Lobby]:
    lobby = Lobby(Storage(tmp_path).open(), limits=Limits(max_tables=3, max_tables_per_client=2, retain_seconds=60),
                  time_control=CLOCKS)
    yield lobby
    await lobby.shutdown()
    lobby.storage.close()


async def test_tokens_are_unguessable_and_bound_to_one_seat(lobby: Lobby) -> None:
    table, tokens = lobby.create_table(game="toy", options={"players": 3})
    assert len(set(tokens)) == 3 and all(len(t) >= 40 for t in tokens)
    assert [lobby.resolve(t) for t in tokens] == [(table, 0), (table, 1), (table, 2)]
    with pytest.raises(BadTokenError):
        lobby.resolve(tokens[0][:-1] + ("A" if tokens[0][-1] != "A" else "B"))
    with pytest.raises(BadTokenError):
        lobby.resolve("")


async def test_table_limits_per_server_and_per_client(lobby: Lobby) -> None:
    lobby.create_table(game="toy", client="a")
    lobby.create_table(game="toy", client="a")
    with pytest.raises(TooManyTablesError, match="this client"):
        lobby.create_table(game="toy", client="a")
    lobby.create_table(game="toy", client="b")
    with pytest.raises(TooManyTablesError, match="the server"):
        lobby.create_table(game="toy", client="c")


async def test_bad_options_and_unknown_tables(lobby: Lobby) -> None:
    with pytest.raises(OptionsError):
        lobby.create_table(game="toy", options={"players": 9})
    with pytest.raises(OptionsError):
        lobby.create_table(game="no_such_game")
    with pytest.raises(TableNotFoundError):
        lobby.table("t-nope")
    with pytest.raises(TableNotFoundError):
        await lobby.record("t-nope")


async def test_seekers_are_seated_together_when_enough_wait(lobby: Lobby) -> None:
    first = asyncio.ensure_future(lobby.seek(game="toy", players=2, name="one"))
    await asyncio.sleep(0)
    assert lobby.seekers("toy", 2) == 1 and not first.done()
    second = await lobby.seek(game="toy", players=2, name="two")
    one = await first
    assert one.table_id == second.table_id and {one.seat, second.seat} == {0, 1}
    assert lobby.table(one.table_id).names == ["one", "two"] and one.play_address == ""
    assert lobby.seekers("toy", 2) == 0


async def test_a_seeker_who_leaves_is_not_seated(lobby: Lobby) -> None:
    gone = asyncio.ensure_future(lobby.seek(game="toy", players=2))
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.sleep(0)
    assert lobby.seekers("toy", 2) == 0


async def test_shutdown_aborts_open_tables_and_stores_their_records(lobby: Lobby) -> None:
    table, _ = lobby.create_table(game="toy")
    for seat in range(table.players):
        table.connect(seat)
    with pytest.raises(TableNotOverError):
        await lobby.record(table.id)
    await lobby.shutdown()
    assert table.status is TableStatus.ABORTED
    record = await lobby.record(table.id)
    assert record["result"] == {"status": "aborted", "winners": [], "scores": [0, 0], "reason": "server shutdown"}
    with pytest.raises(ShuttingDownError):
        lobby.create_table(game="toy")
    [meta] = await lobby.stored()
    assert meta.id == table.id and meta.status == "aborted" and meta.reason == "server shutdown"


async def test_records_of_tables_ended_together_are_stored_in_one_batch_after_the_store_delay(
        lobby: Lobby, monkeypatch: pytest.MonkeyPatch) -> None:
    batches: list[list[str]] = []
    save_all = lobby.storage.save_all

    def noted(ended: list[tuple[TableMeta, dict[str, object]]]) -> dict[str, Exception]:
        batches.append([meta.id for meta, _ in ended])
        return save_all(ended)

    monkeypatch.setattr(lobby.storage, "save_all", noted)
    tables = [lobby.create_table(game="toy")[0] for _ in range(3)]
    for table in tables:
        table.abort("ended by the test")
    assert lobby.storage.count() == 0  # they wait for the batch ...
    assert (await lobby.record(tables[0].id))["result"]["reason"] == "ended by the test"  # ... served from memory

    while lobby.storage.count() < len(tables):  # the batch's timer; the suite's timeout bounds the wait
        await asyncio.sleep(0.05)
    assert batches == [[t.id for t in tables]]


async def test_draining_stores_the_waiting_records_without_waiting_for_their_batch(
        lobby: Lobby, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lobby_module, "STORE_SECONDS", 3600.0)
    table, _ = lobby.create_table(game="toy")
    table.abort("ended by the test")
    await lobby.drain()
    meta = lobby.storage.meta(table.id)
    assert meta is not None and meta.reason == "ended by the test"
