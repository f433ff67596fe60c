"""The gRPC service against a real grpc.aio server on 127.0.0.1 (port 0)."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from tests.server.clients import PlaySeat, by_id, create, first_legal, result_of, spectate
from tricktable.protocol.generated.tricktable.v1 import game_pb2, table_service_pb2_grpc
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.rules.verify import verify_record
from tricktable.server.app import GameServer, ServerConfig
from tricktable.server.clocks import AWAY_AFTER_TIMEOUTS, TimeControl
from tricktable.server.limits import Limits
from tricktable.server.shards import SERVICE_NAME

#: Options that keep the long games short in tests.
SHORT = {"twenty_five": {}, "forty_five": {}, "all_fives": {"target": 21}, "cinq_cents": {"target": 200}}


async def create_game(stub: Any, game: str, *, seed: str | None = None, decision_ms: int | None = None,
                      bank_ms: int | None = None) -> pb.CreateTableResponse:
    """A table of ``game`` with the short match options above."""
    return await create(stub, game, seed=seed, decision_ms=decision_ms, bank_ms=bank_ms, options=SHORT[game])


async def record_of(stub: Any, table_id: str) -> dict[str, Any]:
    for _ in range(100):  # the record is stored just after the streams end
        try:
            response = await stub.GetRecord(pb.GetRecordRequest(table_id=table_id))
            record: dict[str, Any] = json.loads(response.record_json)
            return record
        except grpc.aio.AioRpcError as error:
            if error.code() is not grpc.StatusCode.FAILED_PRECONDITION:
                raise
            await asyncio.sleep(0.02)
    raise AssertionError("the record never came")


@pytest.mark.parametrize("game", ["twenty_five", "forty_five", "all_fives", "cinq_cents"])
async def test_complete_game_over_bidirectional_streams_has_a_valid_record(stub: Any, game: str) -> None:
    created = await create_game(stub, game, seed=f"seed-{game}")
    assert len(created.seed_sha256) == 64
    rng = random.Random(game)
    # Random Cinq Cents bidding can drive both sides below zero for ever (docs/games.md 3.6 has no floor), so
    # there every seat plays first-legal: the auction climbs to a contract and the defenders' tricks end it.
    seats = [PlaySeat(stub, t.token, name=f"bot-{t.seat}",
                      choose=by_id(rng) if t.seat % 2 and game != "cinq_cents" else first_legal)
             for t in created.seat_tokens]
    watching = asyncio.ensure_future(spectate(stub, created.table_id))
    runs = await asyncio.wait_for(asyncio.gather(*(s.play() for s in seats)), 60)
    watched = await asyncio.wait_for(watching, 10)
    results = [result_of(run) for run in runs]
    assert results[0] is not None and results[0].status == game_pb2.RESULT_STATUS_FINISHED
    assert all(r == results[0] for r in results)
    assert all(not run.of("rejection") for run in runs)
    record = await record_of(stub, created.table_id)
    assert verify_record(record) is None
    assert record["seed"] == f"seed-{game}"
    assert [s["name"] for s in record["seats"]] == [f"bot-{i}" for i in range(len(seats))]
    assert list(record["result"]["scores"]) == list(results[0].scores)
    assert watched[0].WhichOneof("kind") == "started" and not watched[0].started.view.hand
    assert watched[-1].event.WhichOneof("kind") == "game_ended"
    sequences = [r.event.sequence for r in watched[1:]]
    assert sequences == list(range(watched[0].started.sequence + 1, sequences[-1] + 1))
    first_events = [r.event for r in watched if r.WhichOneof("kind") == "event"]
    assert first_events[0].WhichOneof("kind") == "table_started"
    assert first_events[0].table_started.seed_sha256 == created.seed_sha256


async def test_watch_and_submit_play_a_whole_game(stub: Any) -> None:
    created = await create_game(stub, "twenty_five")

    async def seat(token: str) -> list[pb.WatchResponse]:
        seen = []
        async for response in stub.Watch(pb.WatchRequest(token=token)):
            seen.append(response)
            if response.WhichOneof("kind") == "decision":
                decision = response.decision
                answer = await stub.SubmitAction(pb.SubmitActionRequest(
                    token=token, decide=pb.Decide(decision_id=decision.decision_id,
                                                  action_id=decision.legal_actions[-1].id)))
                assert answer.WhichOneof("outcome") == "accepted"
        return seen

    runs = await asyncio.wait_for(asyncio.gather(*(seat(t.token) for t in created.seat_tokens)), 60)
    assert runs[0][-1].event.game_ended.result.status == game_pb2.RESULT_STATUS_FINISHED
    assert verify_record(await record_of(stub, created.table_id)) is None


async def test_in_band_rejections_keep_the_stream_open_and_change_nothing(stub: Any) -> None:
    created = await create_game(stub, "twenty_five", seed="rejections")
    seats = [PlaySeat(stub, t.token) for t in created.seat_tokens]
    tasks = []
    decisions: dict[int, pb.DecisionRequest] = {}

    def watcher(i: int) -> Any:
        def stop(response: pb.PlayResponse) -> bool:
            if response.WhichOneof("kind") == "decision":
                decisions[i] = response.decision
            return False
        return stop

    for i, s in enumerate(seats):
        tasks.append(asyncio.ensure_future(s.play(stop=watcher(i), answer=False)))
    for _ in range(500):
        if decisions:
            break
        await asyncio.sleep(0.01)
    [(actor, decision)] = decisions.items()
    seat = seats[actor]
    hand = set(decision.view.hand)
    other = next(c for c in ("2C", "3C", "4C", "5C", "6C", "7C") if c not in hand)
    probes = [
        (pb.Decide(decision_id=decision.decision_id, action=game_pb2.Action(play=game_pb2.Action.Play(card=other))),
         "REJECTION_REASON_CARD_NOT_IN_HAND"),
        (pb.Decide(decision_id=decision.decision_id, action=game_pb2.Action()), "REJECTION_REASON_MALFORMED_ACTION"),
        (pb.Decide(decision_id=decision.decision_id,
                   action=game_pb2.Action(play=game_pb2.Action.Play(card="ZZ"))), "REJECTION_REASON_MALFORMED_ACTION"),
        (pb.Decide(decision_id=decision.decision_id, action_id="play-XX"), "REJECTION_REASON_UNKNOWN_ACTION_ID"),
        # An id the server did not send is read as a notation: the rules say why that action is refused.
        (pb.Decide(decision_id=decision.decision_id, action_id=f"play-{other}"), "REJECTION_REASON_CARD_NOT_IN_HAND"),
        (pb.Decide(decision_id="999", action=decision.legal_actions[0].action), "REJECTION_REASON_STALE_DECISION"),
        (pb.Decide(decision_id="not-a-number", action=decision.legal_actions[0].action),
         "REJECTION_REASON_STALE_DECISION"),
    ]
    for decide, reason in probes:
        seat.send(pb.PlayRequest(decide=decide))
        rejection = await seat.next("rejection")
        assert pb.RejectionReason.Name(rejection.reason) == reason, rejection
        assert rejection.message
    seat.send(pb.PlayRequest(join=pb.Join(token=created.seat_tokens[actor].token)))
    rejection = await seat.next("rejection")
    assert pb.RejectionReason.Name(rejection.reason) == "REJECTION_REASON_ALREADY_JOINED"
    bystander = seats[(actor + 1) % 4]
    bystander.send(pb.PlayRequest(decide=pb.Decide(decision_id=decision.decision_id,
                                                   action=decision.legal_actions[0].action)))
    rejection = await bystander.next("rejection")
    assert pb.RejectionReason.Name(rejection.reason) == "REJECTION_REASON_NOT_YOUR_TURN"
    bystander.send(pb.PlayRequest(decide=pb.Decide(decision_id=decision.decision_id,
                                                   action_id=decision.legal_actions[0].id)))
    rejection = await bystander.next("rejection")
    assert pb.RejectionReason.Name(rejection.reason) == "REJECTION_REASON_NOT_YOUR_TURN"
    # Nothing changed: the table still waits on the same decision, then plays it once.
    table = await stub.GetTable(pb.GetTableRequest(table_id=created.table_id))
    assert table.table.status == pb.TABLE_STATUS_RUNNING
    good = pb.Decide(decision_id=decision.decision_id, action_id=decision.legal_actions[0].id)
    seat.send(pb.PlayRequest(decide=good))
    accepted = await seat.next("accepted")
    assert accepted.decision_id == decision.decision_id and not accepted.duplicate
    seat.send(pb.PlayRequest(decide=good))
    again = await seat.next("accepted")
    assert again.duplicate
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def test_decide_before_join_is_rejected_in_band(stub: Any) -> None:
    async def requests() -> Any:
        yield pb.PlayRequest(decide=pb.Decide(decision_id="1", action_id="pass"))

    call = stub.Play(requests())
    first = await call.read()
    assert pb.RejectionReason.Name(first.rejection.reason) == "REJECTION_REASON_NOT_JOINED"
    call.cancel()


async def test_reconnect_mid_game_resumes_with_view_and_pending_decision(stub: Any) -> None:
    created = await create_game(stub, "forty_five", seed="reconnect")
    tokens = [t.token for t in created.seat_tokens]
    others = [asyncio.ensure_future(PlaySeat(stub, t).play()) for t in tokens[1:]]
    played = 0

    def stop_after_three(response: pb.PlayResponse) -> bool:
        nonlocal played
        if response.WhichOneof("kind") == "decision":
            played += 1
        return played > 3  # leave with the fourth decision unanswered

    first = PlaySeat(stub, tokens[0])
    await asyncio.wait_for(first.play(stop=stop_after_three), 30)
    pending = first.run.of("decision")[-1]
    last_seen = max(e.sequence for e in first.run.events)
    for _ in range(500):  # the server notices the dropped stream (the seat shows disconnected)
        described = await stub.GetTable(pb.GetTableRequest(table_id=created.table_id))
        if not described.table.seats[0].connected:
            break
        await asyncio.sleep(0.01)
    assert not described.table.seats[0].connected and described.table.seats[0].joined
    again = PlaySeat(stub, tokens[0], last_seen=last_seen)
    run = await asyncio.wait_for(again.play(), 60)
    joined = run.responses[0].joined
    assert joined.seat == 0 and list(joined.view.hand) == list(pending.view.hand)
    assert joined.view.to_act == 0
    resent = next(r.decision for r in run.responses if r.WhichOneof("kind") == "decision")
    assert resent.decision_id == pending.decision_id
    missed = [e.sequence for e in run.events]
    assert missed[0] == last_seen + 1 and missed == list(range(missed[0], missed[0] + len(missed)))
    assert result_of(run) is not None
    await asyncio.wait_for(asyncio.gather(*others), 30)
    record = await record_of(stub, created.table_id)
    assert verify_record(record) is None
    assert record["seats"][0]["disconnects"] == 1 and record["seats"][0]["timeouts"] == 0


async def test_silent_seat_is_timed_out_and_the_game_finishes(stub: Any) -> None:
    created = await create_game(stub, "twenty_five", decision_ms=20, bank_ms=30)
    tokens = [t.token for t in created.seat_tokens]
    silent = PlaySeat(stub, tokens[2])
    silent_task = asyncio.ensure_future(silent.play(answer=False))
    runs = await asyncio.wait_for(asyncio.gather(*(PlaySeat(stub, t).play() for t in tokens[:2] + tokens[3:])), 60)
    await asyncio.wait_for(silent_task, 10)
    result = result_of(runs[0])
    assert result is not None and result.status == game_pb2.RESULT_STATUS_FINISHED
    timed_out = [e for e in runs[0].events if e.WhichOneof("kind") == "action_timed_out"]
    assert timed_out and {e.action_timed_out.seat for e in timed_out} == {2}
    record = await record_of(stub, created.table_id)
    assert verify_record(record) is None
    # Every default is announced; two timeouts in a row make the seat away, and the rest come at once.
    assert record["seats"][2]["default_actions"] == len(timed_out) > AWAY_AFTER_TIMEOUTS
    assert record["seats"][2]["timeouts"] == AWAY_AFTER_TIMEOUTS
    assert all(record["seats"][s]["timeouts"] == 0 for s in (0, 1, 3))


async def test_table_lists_and_describes(stub: Any) -> None:
    created = await create_game(stub, "all_fives")
    listed = await stub.ListTables(pb.ListTablesRequest())
    assert created.table_id in [t.table_id for t in listed.tables]
    waiting = await stub.ListTables(pb.ListTablesRequest(status=pb.TABLE_STATUS_WAITING))
    assert [t.table_id for t in waiting.tables] == [created.table_id]
    described = await stub.GetTable(pb.GetTableRequest(table_id=created.table_id))
    assert described.table.status == pb.TABLE_STATUS_WAITING and len(described.table.seats) == 2
    assert described.table.seed_sha256 == created.seed_sha256


@pytest.mark.parametrize(("call", "code"), [
    ("record", grpc.StatusCode.NOT_FOUND),
    ("table", grpc.StatusCode.NOT_FOUND),
    ("spectate", grpc.StatusCode.NOT_FOUND),
    ("watch", grpc.StatusCode.UNAUTHENTICATED),
    ("submit", grpc.StatusCode.UNAUTHENTICATED),
    ("play", grpc.StatusCode.UNAUTHENTICATED),
    ("no_game", grpc.StatusCode.INVALID_ARGUMENT),
    ("bad_options", grpc.StatusCode.INVALID_ARGUMENT),
    ("wrong_game_options", grpc.StatusCode.INVALID_ARGUMENT),
    ("bad_clock", grpc.StatusCode.INVALID_ARGUMENT),
    ("seek_bad_players", grpc.StatusCode.INVALID_ARGUMENT),
])
async def test_bad_input_gets_a_clear_status(stub: Any, call: str, code: grpc.StatusCode) -> None:
    async def run() -> None:
        if call == "record":
            await stub.GetRecord(pb.GetRecordRequest(table_id="t-missing"))
        elif call == "table":
            await stub.GetTable(pb.GetTableRequest(table_id="t-missing"))
        elif call == "spectate":
            [_ async for _ in stub.Spectate(pb.SpectateRequest(table_id="t-missing"))]
        elif call == "watch":
            [_ async for _ in stub.Watch(pb.WatchRequest(token="forged"))]
        elif call == "submit":
            await stub.SubmitAction(pb.SubmitActionRequest(token="forged", decide=pb.Decide(decision_id="1")))
        elif call == "play":
            await PlaySeat(stub, "forged").play()
        elif call == "no_game":
            await stub.CreateTable(pb.CreateTableRequest())
        elif call == "bad_options":
            await stub.CreateTable(pb.CreateTableRequest(
                game=game_pb2.GAME_TWENTY_FIVE,
                options=game_pb2.TableOptions(twenty_five=game_pb2.TwentyFiveOptions(players=7))))
        elif call == "wrong_game_options":
            await stub.CreateTable(pb.CreateTableRequest(
                game=game_pb2.GAME_TWENTY_FIVE, options=game_pb2.TableOptions(all_fives=game_pb2.AllFivesOptions())))
        elif call == "bad_clock":
            await stub.CreateTable(pb.CreateTableRequest(game=game_pb2.GAME_TWENTY_FIVE,
                                                         time_control=pb.TimeControl(decision_ms=-5)))
        elif call == "seek_bad_players":
            [_ async for _ in stub.SeekGame(pb.SeekGameRequest(game=game_pb2.GAME_ALL_FIVES, players=9))]

    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await run()
    assert caught.value.code() is code
    assert caught.value.details()


async def test_seekers_are_seated_and_play(stub: Any) -> None:
    async def seek(name: str) -> Any:
        seated = None
        async for response in stub.SeekGame(pb.SeekGameRequest(game=game_pb2.GAME_ALL_FIVES, name=name)):
            if response.WhichOneof("kind") == "seated":
                seated = response.seated
        assert seated is not None
        return seated

    a, b = await asyncio.wait_for(asyncio.gather(seek("alpha"), seek("beta")), 10)
    assert a.table_id == b.table_id and {a.seat, b.seat} == {0, 1}
    runs = await asyncio.wait_for(asyncio.gather(PlaySeat(stub, a.token).play(), PlaySeat(stub, b.token).play()), 60)
    assert result_of(runs[0]) is not None
    record = await record_of(stub, a.table_id)
    assert sorted(s["name"] for s in record["seats"]) == ["alpha", "beta"]


async def test_health_and_reflection_are_registered(server: GameServer) -> None:
    async with grpc.aio.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for name in ("", SERVICE_NAME, "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"):
            reply = await health.Check(health_pb2.HealthCheckRequest(service=name))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        reflect = reflection_pb2_grpc.ServerReflectionStub(channel)

        async def ask() -> Any:
            yield reflection_pb2.ServerReflectionRequest(list_services="")

        names = []
        async for reply in reflect.ServerReflectionInfo(ask()):
            names = [s.name for s in reply.list_services_response.service]
            break
        assert SERVICE_NAME in names and "grpc.health.v1.Health" in names


async def test_too_many_tables_is_resource_exhausted(tmp_path: Path) -> None:
    config = ServerConfig(port=0, data_dir=tmp_path, limits=Limits(max_tables=1), stop_grace=0.5)
    server = GameServer(config)
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = table_service_pb2_grpc.TableServiceStub(channel)
            await create_game(stub, "twenty_five")
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await create_game(stub, "twenty_five")
            assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "limit of 1 open tables" in (caught.value.details() or "")
    finally:
        await server.stop()


async def test_a_seat_that_never_joins_gets_the_table_cancelled(tmp_path: Path) -> None:
    clocks = TimeControl(decision_seconds=5, bank_seconds=5, grace_seconds=5, join_seconds=0.3)
    server = GameServer(ServerConfig(port=0, data_dir=tmp_path, time_control=clocks, stop_grace=0.5))
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = table_service_pb2_grpc.TableServiceStub(channel)
            created = await create_game(stub, "all_fives")
            run = await asyncio.wait_for(PlaySeat(stub, created.seat_tokens[0].token).play(), 10)
            result = result_of(run)
            assert result is not None and result.status == game_pb2.RESULT_STATUS_ABORTED
            assert "seat(s) 1 did not join" in result.reason
            record = await record_of(stub, created.table_id)
            assert record["result"]["status"] == "aborted" and verify_record(record) is None
    finally:
        await server.stop()


async def test_stopping_a_server_without_a_journal_mid_game_aborts_and_stores_the_records(tmp_path: Path) -> None:
    server = GameServer(ServerConfig(port=0, data_dir=tmp_path, stop_grace=0.5, journal=False))
    await server.start()
    async with grpc.aio.insecure_channel(server.address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        created = await create_game(stub, "cinq_cents")
        decided = 0

        def stop(response: pb.PlayResponse) -> bool:
            nonlocal decided
            decided += response.WhichOneof("kind") == "decision"
            return False

        seats = [asyncio.ensure_future(PlaySeat(stub, t.token).play(stop=stop)) for t in created.seat_tokens]
        while decided < 20:
            await asyncio.sleep(0.01)
        await server.stop()
        runs = await asyncio.wait_for(asyncio.gather(*seats, return_exceptions=True), 10)
    ended = [result_of(r) for r in runs if not isinstance(r, BaseException)]
    assert ended and all(e is not None and e.reason == "server shutdown" for e in ended)
    from tricktable.server.storage import Storage

    storage = Storage(tmp_path).open()
    record = storage.record(created.table_id)
    assert record is not None and record["result"]["reason"] == "server shutdown"
    assert verify_record(record) is None
    assert sum(len(d["actions"]) for d in record["deals"]) >= 19  # the 20th decision may still be pending


async def test_ended_tables_are_listed_and_described_from_storage(tmp_path: Path) -> None:
    server = GameServer(ServerConfig(port=0, data_dir=tmp_path, limits=Limits(retain_seconds=0.01), stop_grace=0.5))
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = table_service_pb2_grpc.TableServiceStub(channel)
            created = await create_game(stub, "twenty_five")
            runs = await asyncio.gather(*(PlaySeat(stub, t.token).play() for t in created.seat_tokens))
            assert result_of(runs[0]) is not None
            await server.lobby.drain()
            await asyncio.sleep(0.1)
            assert server.lobby.find(created.table_id) is None  # gone from memory, kept in storage
            described = (await stub.GetTable(pb.GetTableRequest(table_id=created.table_id))).table
            assert described.status == pb.TABLE_STATUS_FINISHED and described.seed_sha256 == created.seed_sha256
            assert described.result.reason == "target reached"
            listed = await stub.ListTables(pb.ListTablesRequest(status=pb.TABLE_STATUS_FINISHED))
            assert [t.table_id for t in listed.tables] == [created.table_id]
            assert verify_record(await record_of(stub, created.table_id)) is None
            with pytest.raises(grpc.aio.AioRpcError) as caught:  # its tokens died with it
                await stub.SubmitAction(pb.SubmitActionRequest(token=created.seat_tokens[0].token,
                                                               decide=pb.Decide(decision_id="1")))
            assert caught.value.code() is grpc.StatusCode.UNAUTHENTICATED
    finally:
        await server.stop()


async def test_a_seeker_hears_how_many_wait_until_it_is_seated(stub: Any) -> None:
    first: list[Any] = []

    async def seek(into: list[Any] | None = None) -> Any:
        request = pb.SeekGameRequest(game=game_pb2.GAME_FORTY_FIVE, players=3)
        async for response in stub.SeekGame(request):
            if into is not None:
                into.append(response)
            if response.WhichOneof("kind") == "seated":
                return response.seated
        return None

    leader = asyncio.ensure_future(seek(first))
    while not first:
        await asyncio.sleep(0.01)
    second = asyncio.ensure_future(seek())
    while len(first) < 2:
        await asyncio.sleep(0.01)
    seated = await asyncio.wait_for(asyncio.gather(leader, second, seek()), 10)
    assert [(r.waiting.waiting, r.waiting.needed) for r in first[:2]] == [(1, 3), (2, 3)]
    assert first[-1].WhichOneof("kind") == "seated"
    assert len({s.table_id for s in seated}) == 1 and sorted(s.seat for s in seated) == [0, 1, 2]
    await asyncio.gather(*(PlaySeat(stub, s.token).play() for s in seated))
