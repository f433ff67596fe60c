"""``/metrics``, ``/healthz`` and ``/readyz`` of a running server, read after real games over gRPC.

The games include a refused answer and a seat that lets its clock run out, so every counter
has something to count; then the whole exposition is searched, as a curious scraper would,
for the run's tokens, its seed and any card: none may appear.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.server.clients import PlaySeat, create, first_legal
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.server.app import GameServer
from tricktable.web.catalog import ServerCatalog
from tricktable.web.viewer import WebViewer

SEED = "metrics-test-secret-seed"
CARD = re.compile(r"^(?:[2-9TJQKA][CDHS]|JK[BF])$")


@pytest.fixture
async def ops(server: GameServer) -> AsyncIterator[str]:
    """The operator endpoints alone on a free port (``serve --no-viewer``): their base address."""
    viewer = WebViewer(ServerCatalog(server.lobby, server.storage.path), port=0, pages=False)
    await viewer.start()
    try:
        yield viewer.url
    finally:
        await viewer.stop()


async def _get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def _value(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return sum(v for (n, ls), v in samples.items() if n == name and set(labels.items()) <= set(ls))


async def test_metrics_count_the_games_clocks_and_refusals_and_carry_no_secret(
        server: GameServer, stub: object, ops: str) -> None:
    created = await create(stub, "all_fives", seed=SEED, decision_ms=50, bank_ms=0, names=["alpha-0", "beta-1"])
    refused = {"done": False}

    def wrong_once(decision: pb.DecisionRequest) -> pb.Decide:
        if not refused["done"]:
            refused["done"] = True
            return pb.Decide(decision_id=decision.decision_id, action_id="no-such-action")
        return first_legal(decision)

    slept = {"done": False}

    def silent_once(decision: pb.DecisionRequest) -> pb.Decide | None:
        if not slept["done"]:
            slept["done"] = True
            return None  # its clock runs out: the server plays the default
        return first_legal(decision)

    tokens = [t.token for t in created.seat_tokens]
    seats = [PlaySeat(stub, tokens[0], choose=wrong_once), PlaySeat(stub, tokens[1], choose=silent_once)]
    await asyncio.wait_for(asyncio.gather(*(seat.play() for seat in seats)), 120)

    async def stored() -> str:
        while True:
            status, text = await _get(f"{ops}metrics")
            assert status == 200
            if _value(_samples(text), "tricktable_records_stored_total") >= 1:
                return text
            await asyncio.sleep(0.05)

    text = await asyncio.wait_for(stored(), 60)
    samples = _samples(text)
    assert _value(samples, "tricktable_moves_total", game="all_fives") > 10
    assert _value(samples, "tricktable_bot_think_seconds_count", bot="alpha") > 0
    assert _value(samples, "tricktable_bot_think_seconds_count", bot="beta") > 0
    assert _value(samples, "tricktable_move_step_seconds_count") > 0
    assert _value(samples, "tricktable_rejections_total", reason="unknown_action_id") >= 1
    assert _value(samples, "tricktable_timeouts_total", game="all_fives") >= 1
    assert _value(samples, "tricktable_default_actions_total", game="all_fives", reason="timeout") >= 1
    assert _value(samples, "tricktable_bot_faults_total", bot="alpha") >= 1
    assert _value(samples, "tricktable_bot_faults_total", bot="beta") >= 1
    assert _value(samples, "tricktable_journal_commit_seconds_count") > 0
    assert _value(samples, "tricktable_tables", game="all_fives") >= 1
    assert ("tricktable_streams", ()) in samples and ("tricktable_spectators", ()) in samples

    secrets = [SEED, *tokens, created.owner_token]
    assert [s for s in secrets if s and s in text] == []
    labels = {value for _, ls in samples for _, value in ls}
    assert [v for v in labels if CARD.match(v)] == []


async def test_health_and_readiness_follow_the_server(server: GameServer, ops: str) -> None:
    assert (await _get(f"{ops}healthz"))[0] == 200
    assert (await _get(f"{ops}readyz"))[0] == 200
    server.lobby.closing = True  # what a drain sets: no new tables
    status, body = await _get(f"{ops}readyz")
    assert status == 503 and "draining" in body
    assert (await _get(f"{ops}healthz"))[0] == 200


async def test_without_the_viewer_only_the_operator_endpoints_answer(ops: str) -> None:
    assert (await _get(f"{ops}api/tables"))[0] == 404
    assert (await _get(ops))[0] == 404
