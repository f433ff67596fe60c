"""Batches (``Join.accept_batches``): the same messages in the same order, in fewer writes.

Two tables from the same seed are played by first-legal raw clients, one
with every seat opted in to batches and one without; each seat must see the
same events and decision requests in the same order, the batched run in
fewer messages, with the next seat's decision packed after the action event.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from tests.server.clients import comparable
from tests.server.test_service import create_game
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb

_EOF: object = grpc.aio.EOF  # type: ignore[attr-defined]


async def _play(stub: Any, token: str, *, batches: bool) -> tuple[list[pb.PlayResponse], list[pb.PlayResponse]]:
    """Play a seat to the end answering first-legal; the messages as received, and flattened."""
    call = stub.Play()
    received: list[pb.PlayResponse] = []
    flat: list[pb.PlayResponse] = []
    await call.write(pb.PlayRequest(join=pb.Join(token=token, accept_batches=batches)))
    while (message := await call.read()) is not _EOF:
        assert isinstance(message, pb.PlayResponse)
        received.append(message)
        items = list(message.batch.messages) if message.WhichOneof("kind") == "batch" else [message]
        for item in items:
            assert item.WhichOneof("kind") not in ("batch", "joined") or item is message
            flat.append(item)
            if item.WhichOneof("kind") == "decision":
                decision = item.decision
                await call.write(pb.PlayRequest(decide=pb.Decide(decision_id=decision.decision_id,
                                                                 action_id=decision.legal_actions[0].id)))
    return received, flat


async def _run(stub: Any, game: str, *, batches: bool) -> list[tuple[list[pb.PlayResponse], list[pb.PlayResponse]]]:
    created = await create_game(stub, game, seed=f"batches-{game}")
    return list(await asyncio.gather(*(_play(stub, t.token, batches=batches) for t in created.seat_tokens)))


@pytest.mark.parametrize("game", ["twenty_five", "all_fives"])
async def test_batched_seats_get_the_same_messages_in_fewer_writes(stub: Any, game: str) -> None:
    plain = await _run(stub, game, batches=False)
    batched = await _run(stub, game, batches=True)
    for (plain_received, plain_flat), (received, flat) in zip(plain, batched, strict=True):
        assert not any(m.WhichOneof("kind") == "batch" for m in plain_received)
        assert [c for m in flat if (c := comparable(m))] == [c for m in plain_flat if (c := comparable(m))]
        kinds = [m.WhichOneof("kind") for m in flat]
        assert kinds.count("accepted") == kinds.count("decision") > 0
        assert "rejection" not in kinds and kinds[0] == "joined" and kinds[-1] in ("event", "accepted")
        assert len(received) < len(plain_received)
    decisions_after_an_event = sum(
        1 for received, _ in batched for m in received if m.WhichOneof("kind") == "batch"
        and m.batch.messages[-1].WhichOneof("kind") == "decision"
        and m.batch.messages[0].WhichOneof("kind") == "event")
    assert decisions_after_an_event > 0
