"""gRPC server reflection under both names clients ask for, with the protocol's comments.

grpcio-reflection serves only ``grpc.reflection.v1alpha.ServerReflection``; grpcurl, Postman
and newer clients ask for ``grpc.reflection.v1.ServerReflection`` first. The two services are
the same messages under two package names (v1 was made by renaming v1alpha, every field number
kept), so the one servicer answers both, registered a second time under the v1 name with the
v1alpha messages' serializers.

The Python code protoc generates carries descriptors without their comments, so reflection
from it would show a client author bare names. ``protos/generate.py`` also writes the three
files' descriptors with their source info (``tricktable_v1.binpb``, beside the generated
code), and the servicer answers with those for our files: a client that reflects sees the same
comments the ``.proto`` files hold.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import grpc
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection, reflection_pb2
from grpc_reflection.v1alpha._async import ReflectionServicer

#: The reflection services this server answers, newest first.
V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"
SERVICE_NAMES = (V1_SERVICE_NAME, reflection.SERVICE_NAME)
#: The documented descriptors of the protocol's files, written by protos/generate.py.
DESCRIPTOR_SET = "tricktable_v1.binpb"


def documented_files() -> dict[str, bytes]:
    """File name -> serialized ``FileDescriptorProto`` with source info (comments), for our .proto files."""
    data = resources.files("tricktable.protocol.generated.tricktable.v1").joinpath(DESCRIPTOR_SET).read_bytes()
    files = descriptor_pb2.FileDescriptorSet.FromString(data).file
    return {f.name: f.SerializeToString() for f in files}


class DocumentedReflection(ReflectionServicer):  # type: ignore[misc]
    """The aio reflection servicer, answering with the documented descriptor where one exists."""

    def __init__(self, service_names: tuple[str, ...], documented: dict[str, bytes]) -> None:
        super().__init__(service_names)
        self._documented = documented

    def _response(self, file: Any, request: reflection_pb2.ServerReflectionRequest,
                  ) -> reflection_pb2.ServerReflectionResponse:
        """``file`` and every file it imports, each documented where we have its comments."""
        seen: dict[str, Any] = {}
        pending = [file]
        while pending:
            current = pending.pop()
            if current.name not in seen:
                seen[current.name] = current
                pending.extend(current.dependencies)
        serialized = []
        for name, descriptor in seen.items():
            if name in self._documented:
                serialized.append(self._documented[name])
            else:
                proto = descriptor_pb2.FileDescriptorProto()
                descriptor.CopyToProto(proto)
                serialized.append(proto.SerializeToString())
        return reflection_pb2.ServerReflectionResponse(
            file_descriptor_response=reflection_pb2.FileDescriptorResponse(file_descriptor_proto=serialized),
            original_request=request)

    def _file_by_filename(self, request: reflection_pb2.ServerReflectionRequest,
                          filename: str) -> reflection_pb2.ServerReflectionResponse:
        try:
            file = self._pool.FindFileByName(filename)
        except KeyError:
            return super()._file_by_filename(request, filename)  # its NOT_FOUND answer
        return self._response(file, request)

    def _file_containing_symbol(self, request: reflection_pb2.ServerReflectionRequest,
                                fully_qualified_name: str) -> reflection_pb2.ServerReflectionResponse:
        try:
            file = self._pool.FindFileContainingSymbol(fully_qualified_name)
        except KeyError:
            return super()._file_containing_symbol(request, fully_qualified_name)
        return self._response(file, request)


def enable_reflection(server: grpc.aio.Server, service_names: tuple[str, ...]) -> None:
    """Serve reflection of ``service_names`` (and of itself) under the v1 and v1alpha names."""
    servicer = DocumentedReflection((*service_names, *SERVICE_NAMES), documented_files())
    handlers = {name: grpc.method_handlers_generic_handler(name, {
        "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
            servicer.ServerReflectionInfo,
            request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
            response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString),
    }) for name in SERVICE_NAMES}
    server.add_generic_rpc_handlers(tuple(handlers.values()))
