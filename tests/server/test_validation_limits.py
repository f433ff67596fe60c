"""Every limit on a request, as docs/protocol.md section 15 lists it: refused with INVALID_ARGUMENT and a
message naming the field as the protos name it; values at the edges are accepted."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from tricktable.protocol.generated.tricktable.v1 import game_pb2
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb

ALL_FIVES = game_pb2.GAME_ALL_FIVES


def _request(**fields: Any) -> pb.CreateTableRequest:
    clocks = {k: fields.pop(k) for k in ("decision_ms", "bank_ms") if k in fields}
    return pb.CreateTableRequest(game=ALL_FIVES, time_control=pb.TimeControl(**clocks), **fields)


@pytest.mark.parametrize(("fields", "named"), [
    ({"decision_ms": 9}, "time_control.decision_ms must be 10 to 3600000 milliseconds, not 9"),
    ({"decision_ms": 3_600_001}, "time_control.decision_ms must be 10 to 3600000 milliseconds"),
    ({"bank_ms": -1}, "time_control.bank_ms must be 0 to 86400000 milliseconds, not -1"),
    ({"bank_ms": 86_400_001}, "time_control.bank_ms"),
    ({"seed": ""}, "seed must be 1 to 256 characters when set"),
    ({"seed": "s" * 257}, "seed must be 1 to 256 characters when set"),
    ({"seat_names": ["a", "b", "c"]}, "seat_names has 3 names for a 2-player table"),
], ids=["decision_ms-low", "decision_ms-high", "bank_ms-low", "bank_ms-high", "seed-empty", "seed-long",
        "seat_names-extra"])
async def test_a_value_out_of_its_limits_is_invalid_argument_naming_the_field(stub: Any, fields: dict[str, Any],
                                                                              named: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.CreateTable(_request(**fields))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert named in (caught.value.details() or "")
    listed = await stub.ListTables(pb.ListTablesRequest())
    assert not listed.tables  # nothing was created


async def test_values_at_the_edges_of_the_limits_are_accepted(stub: Any) -> None:
    for fields in ({"decision_ms": 10, "bank_ms": 0}, {"decision_ms": 3_600_000, "bank_ms": 86_400_000},
                   {"seed": "s"}, {"seed": "s" * 256}, {"seat_names": ["a", "b"]}, {"seat_names": ["a"]}):
        created = await stub.CreateTable(_request(**fields))
        assert created.table_id


async def test_names_are_cut_to_64_printable_characters_and_empty_ones_default(stub: Any) -> None:
    created = await stub.CreateTable(_request(seat_names=["x" * 100 + "\u0007", ""]))
    assert [s.name for s in created.table.seats] == ["x" * 64, "seat-1"]


async def test_seek_errors_end_the_stream_with_a_status_and_no_message(stub: Any) -> None:
    received = []
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        async for response in stub.SeekGame(pb.SeekGameRequest(game=ALL_FIVES, players=9)):
            received.append(response)
    assert received == []
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "players must be 2 or 3" in (caught.value.details() or "")


@pytest.mark.parametrize(("request_", "named"), [
    (pb.CreateTableRequest(), "game must be one of GAME_TWENTY_FIVE, GAME_FORTY_FIVE, GAME_ALL_FIVES, "
                              "GAME_CINQ_CENTS, not 0"),
    (pb.CreateTableRequest(game=game_pb2.GAME_TWENTY_FIVE,
                           options=game_pb2.TableOptions(all_fives=game_pb2.AllFivesOptions())),
     "options.all_fives was given for a twenty_five table"),
], ids=["no-game", "options-of-another-game"])
async def test_a_bad_game_or_options_case_is_refused_naming_the_field(stub: Any, request_: pb.CreateTableRequest,
                                                                      named: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.CreateTable(request_)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert named in (caught.value.details() or "")
