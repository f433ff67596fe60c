"""A client that joins its seat and then never answers (not even through the SDK's safety net).

``python -m tests.tournament.silent_client ADDRESS TOKEN_FILE``: the server's clock plays for it.
"""

from __future__ import annotations

import asyncio
import sys

import grpc

from tricktable.protocol.generated.tricktable.v1 import table_service_pb2, table_service_pb2_grpc


async def main(address: str, token: str) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        call = table_service_pb2_grpc.TableServiceStub(channel).Play()  # type: ignore[call-arg]  # aio: no iterator
        await call.write(table_service_pb2.PlayRequest(join=table_service_pb2.Join(token=token)))
        while await call.read() is not grpc.aio.EOF:  # type: ignore[attr-defined]
            pass


if __name__ == "__main__":
    with open(sys.argv[2]) as handle:  # the seat's token, on a descriptor handed in
        asyncio.run(main(sys.argv[1], handle.read().strip()))
