"""The yardstick of the server benchmark: a raw gRPC bidirectional ping-pong on this machine.

A minimal ``grpc.aio`` echo service, defined with a generic handler over raw
bytes (identity serializers), so no proto is compiled or committed: every
message a client writes on the ``/bench.Echo/PingPong`` stream comes straight
back. The client, in another process, writes one message, waits for its echo,
and times each round trip with the monotonic clock.

Run as two processes (what :mod:`bench.server_bench` does)::

    python -m bench.server_echo serve            # prints "listening on 127.0.0.1:PORT"
    python -m bench.server_echo ping ADDR --count 2000 --size 64
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections.abc import AsyncIterator, Coroutine
from typing import Any, TypeVar

import grpc

from bench import cli

METHOD = "/bench.Echo/PingPong"

#: The event loops a bench client process can run (``--loop``): a loop's gain on the bots' side is read
#: against the round trip of an echo client on the same loop.
LOOPS = ("asyncio", "uvloop")

T = TypeVar("T")


def run_on(loop: str, main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` on the event loop named ``loop`` (one of :data:`LOOPS`; uvloop is the ``fast`` extra)."""
    if loop == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)


def _identity(data: bytes) -> bytes:
    return data


async def _echo(requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext[bytes, bytes]
                ) -> AsyncIterator[bytes]:
    async for message in requests:
        yield message


async def serve(host: str = "127.0.0.1", port: int = 0) -> None:
    """Serve the echo stream until the process is stopped; print the bound address first."""
    server = grpc.aio.server()
    handler = grpc.stream_stream_rpc_method_handler(
        _echo, request_deserializer=_identity, response_serializer=_identity)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Echo", {"PingPong": handler}),))
    bound = server.add_insecure_port(f"{host}:{port}")
    await server.start()
    print(f"listening on {host}:{bound}", flush=True)
    await server.wait_for_termination()


async def ping(address: str, *, count: int, size: int, warmup: int = 200) -> dict[str, Any]:
    """``count`` timed round trips of ``size``-byte messages on one stream (after ``warmup`` untimed ones).

    Returns the round trips in microseconds, in order.
    """
    payload = b"x" * size
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(METHOD, request_serializer=_identity, response_deserializer=_identity)()  # type: ignore[call-arg]
        samples: list[float] = []
        clock = time.perf_counter_ns
        for i in range(warmup + count):
            t0 = clock()
            await call.write(payload)
            echo = await call.read()
            t1 = clock()
            if echo != payload:
                raise RuntimeError(f"echo mismatch at round trip {i}")
            if i >= warmup:
                samples.append((t1 - t0) / 1000)
        await call.done_writing()
        call.cancel()
    return {"size_bytes": size, "round_trips_us": samples}


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("bench.server_echo", __doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="run the echo server")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=0)
    p = sub.add_parser("ping", help="time round trips against an echo server; JSON on stdout")
    p.add_argument("address")
    p.add_argument("--count", type=int, default=2000)
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--loop", choices=LOOPS, default="asyncio", help="the client's event loop")
    args = parser.parse_args(argv)
    if args.command == "serve":
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve(args.host, args.port))
        return 0
    result = run_on(args.loop, ping(args.address, count=args.count, size=args.size, warmup=args.warmup))
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
