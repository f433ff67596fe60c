"""Run one server as N shard processes on this machine (``tricktable serve --shards N``).

This process is shard 0 and listens on the public address; it starts shards
1..N-1 as child processes (``multiprocessing`` spawn: a fresh interpreter
each, nothing inherited but the config), each on a free port of the same
host. Once every shard listens, each is told every shard's address (shard k
at index k) and this process reports ``on_ready``. SIGTERM or SIGINT stops
every shard cleanly (each aborts its running tables and stores their
records); a child that dies on its own is logged, and its tables are lost
with it (their calls then fail UNAVAILABLE). Placement and routing between
the shards are in :mod:`tricktable.server.shards`.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from typing import Any

import structlog

from tricktable.server import runtime
from tricktable.server.app import Companion, GameServer, ServerConfig
from tricktable.server.forwarding import new_secret
from tricktable.server.logging import configure
from tricktable.server.shards import Shards

log = structlog.get_logger("tricktable.sharded")

#: Seconds a shard process gets to start listening, and to stop after SIGTERM.
START_TIMEOUT = 60.0


def shard_count(requested: int) -> int:
    """``--shards``: 0 means one shard per core."""
    if requested < 0:
        raise ValueError(f"--shards must be 0 (one per core) or more, not {requested}")
    return requested or (os.cpu_count() or 1)


@dataclass(frozen=True, slots=True)
class Shard:
    """A running shard: its index, process id and address."""

    index: int
    pid: int
    address: str


def _shards_of(server: GameServer) -> Shards:
    """The shard directory of a server started with a shard number, as every server here is."""
    if server.shards is None:
        raise RuntimeError("a sharded server was started without its shard number")
    return server.shards


def _child(config: ServerConfig, logging: dict[str, Any], pipe: Connection) -> None:
    """A child shard's process: serve until SIGTERM (the address goes up the pipe, the shard list comes down)."""
    configure(**logging)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C reaches the whole group: shard 0 stops us
    runtime.run(_serve_child(config, pipe))


async def _serve_child(config: ServerConfig, pipe: Connection) -> None:
    server = GameServer(config)
    await server.start()
    pipe.send(server.address)
    addresses = await asyncio.to_thread(pipe.recv)
    _shards_of(server).set_addresses(addresses)
    runtime.settle_collector()
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[None]] = []

    def stop() -> None:
        if not stopping:
            stopping.append(loop.create_task(server.stop()))

    loop.add_signal_handler(signal.SIGTERM, stop)
    orphan_watch = loop.create_task(_stop_when_orphaned(os.getppid(), stop))
    await server.wait()
    orphan_watch.cancel()
    for task in stopping:
        await task


async def _stop_when_orphaned(parent: int, stop: Callable[[], None]) -> None:
    """Stop this shard if shard 0 dies without stopping it (killed): no shard outlives its server."""
    while os.getppid() == parent:
        await asyncio.sleep(1.0)
    log.error("shard 0 is gone; stopping this shard", parent=parent)
    stop()


async def serve_sharded(config: ServerConfig, count: int, *, logging: dict[str, Any],
                        on_ready: Callable[[GameServer, list[Shard]], None] | None = None,
                        companions: Sequence[Companion] = ()) -> None:
    """Serve as ``count`` shards until SIGTERM or SIGINT: this process is shard 0, the others are children.

    ``companions`` (the web viewer) run beside shard 0, as beside an unsharded server.
    """
    spawn = multiprocessing.get_context("spawn")
    if config.forwarding_secret is None:  # the shards share one in memory: it reaches the children pickled, not on
        config = replace(config, forwarding_secret=new_secret())  # a command line
    server = GameServer(replace(config, shard=0, shard_count=count))
    await server.start()
    children: list[tuple[Any, Connection]] = []
    try:
        for index in range(1, count):
            ours, theirs = spawn.Pipe()
            child_config = replace(config, port=0, shard=index, shard_count=count)
            process = spawn.Process(target=_child, args=(child_config, logging, theirs),
                                    name=f"tricktable-shard-{index}")
            process.start()
            children.append((process, ours))
        addresses = [server.address]
        for index, (_, pipe) in enumerate(children, start=1):
            if not await asyncio.to_thread(pipe.poll, START_TIMEOUT):
                raise RuntimeError(f"shard {index} did not start listening within {START_TIMEOUT:g}s")
            addresses.append(pipe.recv())
        for _, pipe in children:
            pipe.send(addresses)
        _shards_of(server).set_addresses(addresses)
        shards = [Shard(0, os.getpid(), addresses[0]),
                  *(Shard(i, p.pid, addresses[i]) for i, (p, _) in enumerate(children, start=1))]
        log.info("shards started", shards=count, addresses=addresses)
        loop = asyncio.get_running_loop()
        stopping: list[asyncio.Task[None]] = []

        def on_signal() -> None:
            if not stopping:
                stopping.append(loop.create_task(server.stop()))

        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, on_signal)
        watch = loop.create_task(_watch_children(children))
        async with contextlib.AsyncExitStack() as beside:
            for companion in companions:
                await beside.enter_async_context(companion(server))
            if on_ready is not None:
                on_ready(server, shards)
            await server.wait()
            watch.cancel()
            for task in stopping:
                await task
    finally:
        await _stop_children(children)
        await server.stop()  # once only: a no-op after a signal's stop


async def _watch_children(children: list[tuple[Any, Connection]]) -> None:
    """Log a shard process that ends while the server runs (its tables went with it)."""
    alive = {p.pid: p for p, _ in children}
    while alive:
        await asyncio.sleep(1.0)
        for pid, process in list(alive.items()):
            if not process.is_alive():
                log.error("shard process ended", pid=pid, exit_code=process.exitcode, shard=process.name)
                del alive[pid]


async def _stop_children(children: list[tuple[Any, Connection]]) -> None:
    """SIGTERM every child shard, wait for it to store its records, kill what outlives the timeout."""
    for process, _ in children:
        if process.is_alive():
            process.terminate()
    for process, pipe in children:
        await asyncio.to_thread(process.join, START_TIMEOUT)
        if process.is_alive():
            log.error("shard process did not stop; killing it", pid=process.pid)
            process.kill()
            await asyncio.to_thread(process.join)
        pipe.close()
