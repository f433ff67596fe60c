"""Annotations are withheld from everyone until the table ends, and shown after it (record, replay page data).

Probed as a cheating client would: the other seat's stream, a spectator
(with the creator's owner token, so nothing else withholds the table),
GetRecord, GetTable and ListTables, every page and API of the web viewer
while the table runs, and the finished twin of a running table (same seed).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import grpc
import pytest

from tests.server.test_annotations import annotated_moves
from tests.web.conftest import Site
from tests.web.support import sse_messages
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.server.tables import Table

SECRET = "SECRET-NOTE"


async def drain(stream: Any, quiet: float = 0.5) -> list[str]:
    """Every message a server stream sends until it is quiet for ``quiet`` seconds, as text."""
    seen: list[str] = []
    iterator = stream.__aiter__()
    while True:
        try:
            seen.append(str(await asyncio.wait_for(iterator.__anext__(), quiet)))
        except (TimeoutError, StopAsyncIteration):
            stream.cancel()
            return seen


async def grpc_probes(address: str, table: Table, token: str) -> list[str]:
    """What the other seat, a spectator with the owner token, and the table calls show while the table runs."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        seen = await drain(stub.Watch(pb.WatchRequest(token=token, last_seen_sequence=0)))
        seen += await drain(stub.Spectate(pb.SpectateRequest(table_id=table.id, last_seen_sequence=0,
                                                             owner_token=table.owner_token)))
        seen.append(str(await stub.GetTable(pb.GetTableRequest(table_id=table.id))))
        seen.append(str(await stub.ListTables(pb.ListTablesRequest())))
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.GetRecord(pb.GetRecordRequest(table_id=table.id, owner_token=table.owner_token))
        seen.append(str(refused.value.details()))
    return seen


async def web_probes(site: Site, table_id: str) -> list[str]:
    """Every viewer page and API about the table while it runs."""
    seen: list[str] = []
    for path in ("/api/tables", f"/table/{table_id}", f"/api/replay/{table_id}", f"/replay/{table_id}"):
        async with site.http.get(path) as response:
            seen.append(await response.text())
    async with site.http.get(f"/api/tables/{table_id}/events") as response:
        messages = sse_messages(response)
        seen += [json.dumps(await anext(messages)), json.dumps(await anext(messages))]
    return seen


async def test_annotations_are_withheld_from_every_audience_until_the_end_and_in_the_record_after(site: Site) -> None:
    lobby = site.server.lobby
    table, tokens = lobby.create_table(game="all_fives", options={"players": 2, "target": 11}, seed="noted-twins")
    twin, _ = lobby.create_table(game="all_fives", options={"players": 2, "target": 11}, seed="noted-twins")
    for t in (table, twin):
        for seat in range(2):
            t.connect(seat)
    annotated_moves(table, 12, SECRET)
    annotated_moves(twin, None, tag="TWIN-" + SECRET)  # the twin ends while the table still runs
    assert twin.is_over and not table.is_over
    await lobby.drain()

    seen = await grpc_probes(site.server.address, table, tokens[1])
    seen += await web_probes(site, table.id)
    async with grpc.aio.insecure_channel(site.server.address) as channel:  # the finished twin, without its owner
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.GetRecord(pb.GetRecordRequest(table_id=twin.id))
        assert refused.value.code() is grpc.StatusCode.PERMISSION_DENIED
    for path in (f"/api/replay/{twin.id}", f"/replay/{twin.id}"):
        async with site.http.get(path) as response:
            seen.append(await response.text())
    assert len(seen) > 8 and any("card_played" in s for s in seen)  # the probes did see the game
    leaked = [s[:200] for s in seen if SECRET in s]
    assert leaked == []

    annotated_moves(table, None, SECRET)
    await lobby.drain()
    async with grpc.aio.insecure_channel(site.server.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        got = await stub.GetRecord(pb.GetRecordRequest(table_id=table.id, owner_token=table.owner_token))
    record = json.loads(got.record_json)
    actions = [a for d in record["deals"] for a in d["actions"]]
    notes = [a["annotation"]["note"] for a in actions]
    assert notes == [f"{SECRET} {n} by seat {a['seat']}" for n, a in enumerate(actions)]
    async with site.http.get(f"/api/replay/{table.id}") as page:
        frames = (await page.json())["frames"]
    shown = [f["annotation"]["note"] for f in frames if f.get("annotation")]
    assert shown == notes  # the replay shows each note beside its move
