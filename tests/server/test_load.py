"""Fifty concurrent tables in one server all finish, with valid records."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from tests.server.clients import PlaySeat, by_id, result_of
from tests.server.test_service import record_of
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import game_pb2
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.rules.verify import verify_record
from tricktable.server.app import GameServer

TABLES = 50


async def create(stub: Any, index: int) -> Any:
    game = ("twenty_five", "forty_five", "all_fives")[index % 3]
    options = {"all_fives": {"target": 11}}.get(game, {})
    return await stub.CreateTable(pb.CreateTableRequest(
        game=convert.game_to_proto(game), options=convert.options_to_proto(game, options), seed=f"load-{index}"))


async def play(stub: Any, created: Any, index: int) -> str:
    rng = random.Random(index)
    runs = await asyncio.gather(*(PlaySeat(stub, t.token, choose=by_id(rng)).play() for t in created.seat_tokens))
    result = result_of(runs[0])
    assert result is not None and result.status == game_pb2.RESULT_STATUS_FINISHED, result
    return str(created.table_id)


async def test_fifty_concurrent_tables_finish(server: GameServer, stub: Any) -> None:
    created = await asyncio.gather(*(create(stub, i) for i in range(TABLES)))
    assert len(server.lobby.open_tables()) == TABLES
    table_ids = await asyncio.wait_for(asyncio.gather(*(play(stub, c, i) for i, c in enumerate(created))), 120)
    assert len(set(table_ids)) == TABLES
    await server.lobby.drain()
    for table_id in table_ids:
        assert verify_record(await record_of(stub, table_id)) is None
    assert server.storage.count() == TABLES
    assert not server.lobby.open_tables()
