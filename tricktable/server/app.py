"""Build, start and stop the grpc.aio server.

Registered: ``tricktable.v1.TableService``, health checking (every service
SERVING; NOT_SERVING while stopping, and while the journal or the record
store can not write: :mod:`tricktable.server.store_health`) and reflection. Binds 127.0.0.1 by
default; TLS when a certificate and key are given.

Crash survival (``ServerConfig.journal``, on by default): every table is
journaled in the data directory (:mod:`tricktable.server.journal`), and a start
resumes the journaled tables before it binds, so a seat that reconnects
finds its table. A clean stop (SIGTERM or SIGINT) drains: no new tables or
seekers, the running tables play on for up to ``drain_seconds``, then the
rest are suspended in the journal for the next start and the server stops.
Without the journal a stop aborts them with reason "server shutdown".
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path

import grpc
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer

from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
from tricktable.server.call_rate import CallRates, Rate
from tricktable.server.clocks import TimeControl
from tricktable.server.directory import DirectoryShards, claim_game_index, shards_for
from tricktable.server.forwarding import Forwarding
from tricktable.server.interceptors import (
    AccessLogInterceptor,
    CallRateInterceptor,
    ErrorInterceptor,
    ForwardingInterceptor,
    StreamLimitInterceptor,
)
from tricktable.server.journal import Journal
from tricktable.server.limits import Limits
from tricktable.server.lobby import Lobby
from tricktable.server.record_store import record_store
from tricktable.server.reflection import SERVICE_NAMES as REFLECTION_SERVICES
from tricktable.server.reflection import enable_reflection
from tricktable.server.service import TableService
from tricktable.server.shards import SERVICE_NAME, ShardedTableService, Shards
from tricktable.server.storage import resolve_data_dir

log = structlog.get_logger("tricktable.server")

#: Clients send small messages; records and views going out may be larger.
MAX_RECEIVE_BYTES = 256 * 1024
MAX_SEND_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerConfig:
    """Everything ``tricktable serve`` can set."""

    host: str = "127.0.0.1"
    port: int = 50051
    data_dir: Path = field(default_factory=resolve_data_dir)
    #: Where ended tables are stored: a PostgreSQL URL (``postgresql://...``), else None for the SQLite file in
    #: ``data_dir`` (:func:`tricktable.server.record_store.record_store`).
    database_url: str | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    limits: Limits = field(default_factory=Limits)
    time_control: TimeControl = field(default_factory=TimeControl)
    #: Seconds in-flight calls get to finish when the server stops.
    stop_grace: float = 5.0
    #: Keep a journal of running tables, resumed on the next start (else a stop aborts them).
    journal: bool = True
    #: On a stop, seconds the running tables get to finish before they are left in the journal.
    drain_seconds: float = 0.0
    #: This process's shard and the number of shards (``serve --shards``, :mod:`server.shards`); None: unsharded.
    shard: int | None = None
    shard_count: int = 1
    #: Also listen on this Unix domain socket (``unix:PATH``, no TLS), open to every local user: how sandboxed
    #: bots, which have no network, reach the server (:mod:`tricktable.tournament.sandbox`).
    unix_socket: Path | None = None
    #: Many machines (:mod:`tricktable.server.directory`): "game" runs tables as game process ``shard`` of
    #: ``shard_count`` and advertises ``advertise_address`` (else the address it bound) in the shared database;
    #: "lobby" runs no table and places them on the game processes. None: one server (or ``--shards``).
    role: str | None = None
    advertise_address: str | None = None
    #: Count the metrics served on ``/metrics`` (False: count nothing, :meth:`Metrics.switch_off`).
    metrics: bool = True
    #: The secret the processes of one server sign their forwarded calls with (:mod:`tricktable.server.forwarding`):
    #: needed by every process of several (``role``, ``shard``); never shown.
    forwarding_secret: bytes | None = field(default=None, repr=False)
    #: With ``role`` "game": take a free game index from the directory instead of ``shard`` (pods without an
    #: ordinal); ``game_holder`` is the claim's id once taken (:func:`tricktable.server.directory.claim_game_index`).
    claim_game_index: bool = False
    game_holder: str = ""


class GameServer:
    """One server process: storage, lobby, gRPC server."""

    def __init__(self, config: ServerConfig, *, clock: Callable[[], float] = time.monotonic) -> None:
        """``clock``: the monotonic seconds the call rates are measured in (a test gives a fake one)."""
        self.config = config
        self.storage = record_store(config.data_dir, config.database_url)
        #: A shard journals apart (its own folder in the shared data directory): it resumes only its own tables.
        journal_dir = config.data_dir if config.shard is None else config.data_dir / f"shard-{config.shard}"
        lobby_role = config.role == "lobby"  # runs no table: nothing to journal, no shard of its own
        self.journal = Journal(journal_dir) if config.journal and not lobby_role else None
        self.lobby = Lobby(self.storage, limits=config.limits, time_control=config.time_control, journal=self.journal,
                           shard=None if lobby_role else config.shard)
        if not config.metrics:
            self.lobby.metrics.switch_off()
        limits = config.limits
        self.call_rates = CallRates(Rate(limits.call_burst_per_token, limits.call_rate_per_token),
                                    Rate(limits.call_burst_per_connection, limits.call_rate_per_connection), clock)
        #: Where the other shards are (None: unsharded); their addresses are set once every shard listens, or read
        #: from the shared database's game directory (``role``).
        self.forwarding = Forwarding(config.forwarding_secret)
        self.shards: Shards | None = None
        if (config.role is not None or config.shard is not None) and config.forwarding_secret is None:
            raise ValueError("a server of several processes needs a forwarding secret (--forwarding-secret-file)")
        if config.role is not None:
            self.shards = shards_for(config.role, config.shard, config.shard_count, self.storage, self.forwarding,
                                     config.game_holder)
        elif config.shard is not None:
            self.shards = Shards(config.shard, config.shard_count, self.forwarding)
        self.health = HealthServicer()
        #: Health updates in flight (the storage's state changed), held until done.
        self._health_updates: set[asyncio.Task[None]] = set()
        self.port = 0
        self._services: tuple[str, ...] = ("",)
        self._server: grpc.aio.Server | None = None
        self._stopped = asyncio.Event()

    @property
    def address(self) -> str:
        """host:port the server listens on."""
        return f"{self.config.host}:{self.port}"

    async def start(self) -> int:
        """Open storage and the journal, resume the journaled tables, bind, start serving; return the bound port.

        Raises:
            RuntimeError: when the address can not be bound.
        """
        self.storage.open()
        if self.journal is not None:
            try:
                self.journal.open()
            except BaseException:
                self.storage.close()
                raise
            self.lobby.resume()
        server = grpc.aio.server(
            interceptors=[ForwardingInterceptor(self.forwarding),
                          CallRateInterceptor(self.call_rates, self.lobby.metrics), AccessLogInterceptor(),
                          ErrorInterceptor(), StreamLimitInterceptor(self.lobby.client_streams)],
            options=[("grpc.max_receive_message_length", MAX_RECEIVE_BYTES),
                     ("grpc.max_send_message_length", MAX_SEND_BYTES),
                     ("grpc.so_reuseport", 0)])
        service = TableService(self.lobby) if self.shards is None else ShardedTableService(self.lobby, self.shards)
        table_service_pb2_grpc.add_TableServiceServicer_to_server(service, server)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, server)
        services = (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, *REFLECTION_SERVICES)
        enable_reflection(server, services)
        target = f"{self.config.host}:{self.config.port}"
        if self.config.tls_cert and self.config.tls_key:
            credentials = grpc.ssl_server_credentials(
                [(self.config.tls_key.read_bytes(), self.config.tls_cert.read_bytes())])
            self.port = server.add_secure_port(target, credentials)
        else:
            self.port = server.add_insecure_port(target)
        if not self.port:
            raise RuntimeError(f"could not bind {target}")
        if self.config.unix_socket is not None and not server.add_insecure_port(f"unix:{self.config.unix_socket}"):
            raise RuntimeError(f"could not bind unix:{self.config.unix_socket}")
        await server.start()
        if self.config.unix_socket is not None:
            self.config.unix_socket.chmod(0o666)  # a sandboxed bot runs as a user of its own
        if isinstance(self.shards, DirectoryShards):
            await self.shards.advertise(self.config.advertise_address or self.address, self._load)
        self._services = ("", *services)  # "" is the server as a whole
        await self._publish_health()
        self.lobby.health.on_change(self._storage_changed)
        self.lobby.keep_storage()
        self._server = server
        log.info("server started", address=self.address, data_dir=str(self.config.data_dir),
                 tls=bool(self.config.tls_cert))
        return self.port

    def _load(self) -> tuple[int, bool]:
        """This game process's tables not over yet, and whether it takes new ones (what the directory records)."""
        tables = len(self.lobby.open_tables())
        taking = (not self._stopped.is_set() and not self.lobby.closing and self.lobby.health.writable
                  and tables < self.config.limits.max_tables)
        return tables, taking

    def _storage_changed(self) -> None:
        task = asyncio.get_running_loop().create_task(self._publish_health())
        self._health_updates.add(task)
        task.add_done_callback(self._health_updates.discard)

    async def _publish_health(self) -> None:
        """Every service SERVING while storage writes, NOT_SERVING while it fails (ignored once stopping)."""
        serving = self.lobby.health.writable
        status = health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
        for name in self._services:
            await self.health.set(name, status)

    async def stop(self, reason: str = "server shutdown") -> None:
        """Stop accepting tables, drain, leave the rest in the journal (or abort them with ``reason``), stop serving."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        log.info("server stopping", open_tables=len(self.lobby.open_tables()), drain_seconds=self.config.drain_seconds)
        if isinstance(self.shards, DirectoryShards):
            await self.shards.say_now(self._load)  # the lobbies place no more tables here from now on
        await self.health.enter_graceful_shutdown()
        await self.lobby.shutdown(reason, drain_seconds=self.config.drain_seconds)
        if self._server is not None:
            await self._server.stop(self.config.stop_grace)
        if self.journal is not None:
            self.journal.close()
        if self.shards is not None:
            await self.shards.close()
        self.storage.close()
        log.info("server stopped")

    async def wait(self) -> None:
        """Return once :meth:`stop` has begun and the server has terminated."""
        await self._stopped.wait()
        if self._server is not None:
            await self._server.wait_for_termination()


def claimed(config: ServerConfig) -> ServerConfig:
    """``config`` with the game index it claimed in the directory (``claim_game_index``).

    Raises:
        RuntimeError: every index is held.
        StorageUnavailableError: the database can not be reached.
    """
    store = record_store(config.data_dir, config.database_url).open()
    try:
        index, holder = claim_game_index(store, config.shard_count, config.data_dir)
    finally:
        store.close()
    return replace(config, shard=index, game_holder=holder)


#: Something that runs beside the server in its event loop (the web viewer): entered once the server
#: listens, exited once it has stopped (so its open pages see the tables end).
Companion = Callable[["GameServer"], AbstractAsyncContextManager[object]]


async def serve(config: ServerConfig, *, on_ready: Callable[[GameServer], None] | None = None,
                companions: Sequence[Companion] = ()) -> None:
    """Run a server until SIGTERM or SIGINT, then stop it cleanly (``on_ready`` is called once it listens)."""
    if config.claim_game_index and config.role == "game":
        config = await asyncio.to_thread(claimed, config)
    server = GameServer(config)
    await server.start()
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[None]] = []

    def on_signal() -> None:
        if not stopping:
            stopping.append(loop.create_task(server.stop()))

    async with contextlib.AsyncExitStack() as beside:
        try:
            for companion in companions:
                await beside.enter_async_context(companion(server))
        except BaseException:
            await server.stop()
            raise
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, on_signal)
        if on_ready is not None:
            on_ready(server)
        await server.wait()
        for task in stopping:
            await task
