"""A first-legal bot that quits as soon as its server says it is stopping (its health: NOT_SERVING).

``python -m tests.tournament.stopping_quitter ADDRESS SEED NOTE`` (token on ``$TRICKTABLE_TOKEN_FD``): appends
a line to the file NOTE and exits 1 the moment the server starts to drain, while the server still answers
every other call; the tournament must start it again without a fault once the server serves again.
"""

from __future__ import annotations

import asyncio
import sys

from grpc_health.v1 import health_pb2, health_pb2_grpc

from tricktable.bots import make_bot
from tricktable.client_sdk.handoff import handed_token
from tricktable.client_sdk.runner import open_channel, run_bot_async


async def until_stopping(address: str) -> None:
    channel = open_channel(address)
    try:
        stub = health_pb2_grpc.HealthStub(channel)
        while (await stub.Check(health_pb2.HealthCheckRequest())).status == health_pb2.HealthCheckResponse.SERVING:
            await asyncio.sleep(0.05)
    finally:
        await channel.close(None)


async def main(address: str, seed: str, note: str, token: str) -> int:
    play = asyncio.ensure_future(run_bot_async(make_bot("first-legal", seed), address, token=token))
    stopping = asyncio.ensure_future(until_stopping(address))
    await asyncio.wait([play, stopping], return_when=asyncio.FIRST_COMPLETED)
    if play.done():
        stopping.cancel()
        return 0 if play.result().status == "finished" else 1
    play.cancel()
    with open(note, "a") as handle:
        handle.write("quit as the server began to stop\n")
    return 1


if __name__ == "__main__":
    handed = handed_token()
    address, seed, note = sys.argv[1:4]
    sys.exit(2 if handed is None else asyncio.run(main(address, seed, note, handed)))
