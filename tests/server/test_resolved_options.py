"""The resolved options say the same everywhere: ``first_dealer`` drawn from the seed is the seat drawn.

docs/protocol.md section 4: TableInfo (CreateTable, Joined, GetTable), ``table_started`` and every
view carry the drawn first dealer; the record writes it too.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tests.server.clients import PlaySeat, create
from tests.server.test_service import record_of
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.rules.registry import new_match


def test_the_drawn_first_dealer_is_in_the_options_of_every_view_and_of_the_record() -> None:
    match = new_match("all_fives", {}, seed="drawn")
    drawn = match.first_dealer
    assert all(match.view(seat).options["first_dealer"] == drawn for seat in range(2))
    assert match.to_record(seed="drawn")["options"]["first_dealer"] == drawn
    assert match.view(0).dealer == drawn


async def test_table_info_table_started_and_views_name_the_same_drawn_first_dealer(stub: Any) -> None:
    created = await create(stub, "all_fives", seed="drawn-dealer", options={"target": 5})
    drawn = created.table.options.all_fives
    assert drawn.HasField("first_dealer")
    seats = [PlaySeat(stub, t.token) for t in created.seat_tokens]
    runs = await asyncio.wait_for(asyncio.gather(*(s.play() for s in seats)), 30)
    joined = runs[0].of("joined")[0]
    started = next(e.table_started for e in runs[0].events if e.WhichOneof("kind") == "table_started")
    decisions = [d for run in runs for d in run.of("decision")]
    seen = [joined.table.options, joined.view.options, started.options, *(d.view.options for d in decisions)]
    got = await stub.GetTable(pb.GetTableRequest(table_id=created.table_id))
    seen.append(got.table.options)
    assert all(o.all_fives.HasField("first_dealer") and o.all_fives.first_dealer == drawn.first_dealer for o in seen)
    assert joined.view.dealer == drawn.first_dealer
    record = await record_of(stub, created.table_id)
    assert record["options"]["first_dealer"] == drawn.first_dealer
