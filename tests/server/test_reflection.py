"""Server reflection answers under v1 and v1alpha, and carries the protocol's comments.

Tried as grpcurl does: the v1 service first (an UNIMPLEMENTED there would send it back to
v1alpha, or fail), then the file that defines ``tricktable.v1.TableService``, whose descriptor
must hold the comments a client author reads in the .proto files.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2

from tricktable.server.app import GameServer
from tricktable.server.shards import SERVICE_NAME

METHODS = {"v1": "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
           "v1alpha": "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"}


async def _ask(server: GameServer, version: str,
               request: reflection_pb2.ServerReflectionRequest) -> reflection_pb2.ServerReflectionResponse:
    async with grpc.aio.insecure_channel(server.address) as channel:
        call = channel.stream_stream(METHODS[version],
                                     request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                                     response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)

        async def one() -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
            yield request

        async for reply in call(one()):
            return reply
    raise AssertionError("no reflection answer")


@pytest.mark.parametrize("version", sorted(METHODS))
async def test_reflection_lists_the_services_under_both_names(server: GameServer, version: str) -> None:
    reply = await _ask(server, version, reflection_pb2.ServerReflectionRequest(list_services=""))
    names = {s.name for s in reply.list_services_response.service}
    assert {SERVICE_NAME, "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection"} <= names


@pytest.mark.parametrize("version", sorted(METHODS))
async def test_reflected_descriptors_carry_the_protos_comments(server: GameServer, version: str) -> None:
    reply = await _ask(server, version, reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE_NAME))
    files = {f.name: f for f in map(descriptor_pb2.FileDescriptorProto.FromString,
                                     reply.file_descriptor_response.file_descriptor_proto)}
    assert set(files) >= {"tricktable/v1/table_service.proto", "tricktable/v1/game.proto",
                          "tricktable/v1/events.proto"}
    comments = " ".join(text for location in files["tricktable/v1/game.proto"].source_code_info.location
                        for text in (location.leading_comments, *location.leading_detached_comments))
    assert "Design note" in comments
    assert files["tricktable/v1/game.proto"].options.go_package.endswith(";tricktablev1")


async def test_an_unknown_symbol_is_not_found(server: GameServer) -> None:
    reply = await _ask(server, "v1", reflection_pb2.ServerReflectionRequest(file_containing_symbol="no.Such"))
    assert reply.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]
