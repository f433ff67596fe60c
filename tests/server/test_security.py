"""Transport limits and security: streams per client, message size, TLS, the 127.0.0.1 default."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path
from typing import Any

import grpc
import pytest

from tricktable.protocol.generated.tricktable.v1 import game_pb2, table_service_pb2_grpc
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.server.app import MAX_RECEIVE_BYTES, GameServer, ServerConfig
from tricktable.server.limits import Limits


def test_the_server_binds_127_0_0_1_by_default() -> None:
    assert ServerConfig().host == "127.0.0.1"


async def test_streams_per_client_are_limited(tmp_path: Path) -> None:
    server = GameServer(ServerConfig(port=0, data_dir=tmp_path, limits=Limits(max_streams_per_client=2),
                                     stop_grace=0.5))
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = table_service_pb2_grpc.TableServiceStub(channel)
            created = await stub.CreateTable(pb.CreateTableRequest(game=game_pb2.GAME_ALL_FIVES))
            open_calls: list[Any] = [stub.Spectate(pb.SpectateRequest(table_id=created.table_id)) for _ in range(2)]
            for call in open_calls:
                assert (await call.read()).WhichOneof("kind") == "started"
            third = stub.Spectate(pb.SpectateRequest(table_id=created.table_id))
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await third.read()
            assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "limit of 2 open streams" in (caught.value.details() or "")
            open_calls[0].cancel()
            await asyncio.sleep(0.1)
            fourth: Any = stub.Spectate(pb.SpectateRequest(table_id=created.table_id))
            assert (await fourth.read()).WhichOneof("kind") == "started"  # a closed stream frees its place
            fourth.cancel()
            open_calls[1].cancel()
    finally:
        await server.stop()


async def test_one_greedy_connection_meets_its_own_limit_before_it_locks_out_its_address(tmp_path: Path) -> None:
    """Every bot of a local tournament shares 127.0.0.1: a connection's streams are limited below the address's."""
    limits = Limits(max_streams_per_client=6, max_streams_per_connection=3)
    server = GameServer(ServerConfig(port=0, data_dir=tmp_path, limits=limits, stop_grace=0.5))
    await server.start()
    own_connection = [("grpc.use_local_subchannel_pool", 1)]
    try:
        async with grpc.aio.insecure_channel(server.address, options=own_connection) as greedy, \
                grpc.aio.insecure_channel(server.address, options=own_connection) as other:
            stub, neighbour = (table_service_pb2_grpc.TableServiceStub(c) for c in (greedy, other))
            created = await stub.CreateTable(pb.CreateTableRequest(game=game_pb2.GAME_ALL_FIVES))
            request = pb.SpectateRequest(table_id=created.table_id)
            held: list[Any] = [stub.Spectate(request) for _ in range(3)]
            for call in held:
                assert (await call.read()).WhichOneof("kind") == "started"
            one_more = stub.Spectate(request)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await one_more.read()
            assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "this connection holds its limit of 3" in (caught.value.details() or "")
            others: list[Any] = [neighbour.Spectate(request) for _ in range(3)]
            for call in others:  # the same address, another connection: still let in
                assert (await call.read()).WhichOneof("kind") == "started"
            for call in held + others:
                call.cancel()
    finally:
        await server.stop()


async def test_an_oversized_message_is_refused(stub: Any) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.CreateTable(pb.CreateTableRequest(game=game_pb2.GAME_ALL_FIVES,
                                                     seat_names=["x" * (MAX_RECEIVE_BYTES + 10)]))
    assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_long_seat_names_are_cut(stub: Any) -> None:
    created = await stub.CreateTable(pb.CreateTableRequest(game=game_pb2.GAME_ALL_FIVES,
                                                           seat_names=["n" * 500, "ok\x00\x1b"]))
    names = [s.name for s in created.table.seats]
    assert names == ["n" * 64, "ok"]


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make a certificate")
async def test_tls_when_a_certificate_and_key_are_given(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    server = GameServer(ServerConfig(port=0, data_dir=tmp_path / "data", tls_cert=cert, tls_key=key, stop_grace=0.5))
    await server.start()
    try:
        credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        async with grpc.aio.secure_channel(server.address, credentials) as channel:
            stub = table_service_pb2_grpc.TableServiceStub(channel)
            created = await stub.CreateTable(pb.CreateTableRequest(game=game_pb2.GAME_TWENTY_FIVE))
            assert len(created.seat_tokens) == 4
        async with grpc.aio.insecure_channel(server.address) as plain:
            stub = table_service_pb2_grpc.TableServiceStub(plain)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.CreateTable(pb.CreateTableRequest(game=game_pb2.GAME_TWENTY_FIVE), timeout=5)
            assert caught.value.code() is grpc.StatusCode.UNAVAILABLE
    finally:
        await server.stop()
