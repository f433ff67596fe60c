"""Matches over the real server: CreateTable with the deck seed, a bot process per seat, GetRecord.

For each match the dispatcher creates a table on the server (the match's
deck seed, so the same deck set deals the same cards wherever it is played;
the entrants' names as seat names), hands every seat's token to a bot
process of its own, waits for the game to end and fetches the record. A bot
entrant's process is long-lived (:mod:`tricktable.tournament.long_lived`: it
plays many matches, never two tables of one deck set); a command entrant's
is started per match unless it opts in. The server is one started in this
process on a free port (its database is the tournament's, so its ``tables``
and the tournament's rows sit side by side), or ``--server ADDR``.

Faults (counted by kind against ``forfeit_after``: :class:`tricktable.tournament.faults.FaultTally`,
as in an in-process run): a bot's process reports each decision its bot got
wrong on its control descriptor as it happens (garbage, an illegal id, a late
answer, a raise: :mod:`tricktable.tournament.control`; a bot entrant's
process always has one, a long-lived one's or one started for the seat); a
bot process that exits before its game has ended (whatever its exit status),
or a long-lived one that answers for its seat before then, is one fault, and
the seat is handed again with the same token (a new process, or another
long-lived one, rejoins it where it was); timeouts come from the record's
per-seat counters (the server played the default action). At
``forfeit_after`` faults the entrant forfeits the match, with the reason
recorded; its bot is stopped and an in-process first-legal bot plays the
seat out so the table ends at once (the same action the server's clock would
default to). What each entrant's processes wrote to stderr while they held
its seats is kept with the match (its end: :func:`written`). A table the
server stops at its deal limit (``max_deals``) is adjudicated to the side(s)
ahead, as the in-process runner does.

A server that cannot be reached, takes no new table yet (restarting, or
draining before it stops) or says it is not serving (its health) is waited
for (:data:`SERVER_PATIENCE_S`): it is never taken for a table that has not
ended, nor its refusal for a match that could not be played; once it
answers, the table's record decides. A bot that exits while the server is
away is started again without a fault (it gave up on the server, it did not
crash), and so is one that exits once the server is back after an outage of
its lifetime (it may have given up on it). A server away for longer raises
:class:`ServerAway`, which the tournament does not store as a result: it
waits for the server and plays the match again from its start, so a run
through restarts ends with the results of an undisturbed one.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import math
import os
import re
import shlex
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tricktable.bots.first_legal import FirstLegalBot
from tricktable.bots.stderr import STDERR_TAIL_BYTES
from tricktable.client_sdk.errors import ConnectionLost, LimitExceeded, SdkError, TableNotPlayable
from tricktable.client_sdk.handoff import CONTROL_FD_ENV, TOKEN_FD_ENV, control_pair, token_descriptor
from tricktable.client_sdk.runner import connect, create_table, get_record, open_channel, play_target, run_bot_async
from tricktable.tournament.bot_output import StderrTail
from tricktable.tournament.config import TournamentConfig
from tricktable.tournament.control import MAX_LINE_BYTES
from tricktable.tournament.entrants import EntrantSpec
from tricktable.tournament.faults import FaultTally, describe
from tricktable.tournament.long_lived import DeckSet, EntrantPool, EntrantProcess, OnFault
from tricktable.tournament.relay import SocketRelay, webhook_relays
from tricktable.tournament.runner import MatchOutcome, bot_seed, forfeit_winners
from tricktable.tournament.sandbox import (
    SANDBOX_WEBHOOK_SOCKET,
    Isolation,
    Sandbox,
    bound_to_this_process,
    entrant_paths,
    runtime_paths,
    trusted_environment,
    user_ids,
)
from tricktable.tournament.schedule import MatchSpec, deck_set_index, tables_per_deck_set
from tricktable.tournament.seat import LIFELINE_ENV, PARENT_ENV, WEBHOOK_SOCKET_ENV

#: How much of a crashed bot's stderr goes into the reason (the end of it is stored with the match).
STDERR_IN_REASON = 400
log = structlog.get_logger("tricktable.tournament")

#: The server's reason for a table cancelled because seats did not join (server/tables.py).
_JOIN_MISSED = re.compile(r"cancelled: seat\(s\) ([\d, ]+) did not join")
#: What :meth:`_Seat.finished` says of a seat whose entrant made the faults that forfeit the match.
FAULTS_REACHED = "made the faults that forfeit the match"
#: Seconds bots get to exit once their table has ended.
END_GRACE_S = 5.0
#: Longest pause between two polls of a table's record while it is played.
RECORD_POLL_S = 1.0
#: Seconds the dispatcher waits for an unreachable server before the match is given up (and played again).
SERVER_PATIENCE_S = 120.0
#: Seconds a health check of the server may take.
HEALTH_TIMEOUT_S = 5.0


#: The lifeline's ends, made once per process: every bot inherits the read end, which reads as ended once this
#: process is gone (:mod:`tricktable.tournament.seat`); the write end is never handed to a child.
_LIFELINE, _LIFELINE_WRITE = os.pipe()


class ServerAway(ConnectionLost):
    """The server did not answer within :data:`SERVER_PATIENCE_S`: the match is played again, never stored."""


class _Patience:
    """How the dispatcher asks an away server again: at most a second apart, for :data:`SERVER_PATIENCE_S` in all.

    The first wait is logged (a warning, with what the server answered), so a tournament that waits, for
    a server restarting or one whose disk is full, says why instead of going quiet.
    """

    def __init__(self, address: str) -> None:
        self.address = address
        self.give_up = asyncio.get_running_loop().time() + SERVER_PATIENCE_S
        self.delay = 0.1
        self.said = False

    async def wait(self, exc: SdkError) -> None:
        """Wait before the next question.

        Raises:
            ServerAway: the patience has run out (``exc`` was the last answer).
        """
        if not self.said:
            self.said = True
            log.warning("tournament server away; waiting", server=self.address, error=str(exc),
                        gives_up_in_s=SERVER_PATIENCE_S)
        if asyncio.get_running_loop().time() >= self.give_up:
            raise ServerAway(f"the server at {self.address} did not answer for {SERVER_PATIENCE_S:g} s: "
                             f"{exc}") from exc
        await asyncio.sleep(self.delay)
        self.delay = min(1.0, self.delay * 2)


def bot_argv(entrant: EntrantSpec, *, address: str, token_fd: int, seat: int, seed: str,
             tls_ca: Path | None = None) -> list[str]:
    """The command line of one seat's bot: the entrant's template filled in, or a built-in bot.

    No secret is on it: the seat's token is on descriptor ``token_fd`` (``{token_file}`` is its ``/dev/fd``
    path). A built-in bot runs as :mod:`tricktable.tournament.seat` (``tricktable bot NAME``'s client,
    started lean).
    """
    if entrant.command is not None:
        values = {"address": address, "token_file": f"/dev/fd/{token_fd}", "token_fd": str(token_fd),
                  "seat": str(seat), "name": entrant.name, "seed": seed, "python": sys.executable,
                  "tls_ca": "" if tls_ca is None else str(tls_ca)}
        return [part.format(**values) for part in shlex.split(entrant.command)]
    if entrant.bot is None:
        raise ValueError(f"entrant {entrant.name!r} has neither a command nor a bot")
    argv = [sys.executable, "-m", "tricktable.tournament.seat", entrant.bot, address, seed, entrant.name]
    return argv if tls_ca is None else [*argv, str(tls_ca)]


def serve_argv(entrant: EntrantSpec, *, address: str, control_fd: int, tls_ca: Path | None = None) -> list[str]:
    """The command line of a long-lived bot process: no seat on it, each comes on descriptor ``control_fd``."""
    if entrant.command is not None:
        values = {"address": address, "control_fd": str(control_fd), "name": entrant.name,
                  "python": sys.executable, "tls_ca": "" if tls_ca is None else str(tls_ca)}
        return [part.format(**values) for part in shlex.split(entrant.command)]
    if entrant.bot is None:
        raise ValueError(f"entrant {entrant.name!r} has neither a command nor a bot")
    argv = [sys.executable, "-m", "tricktable.tournament.seat", "--serve", entrant.bot, address, entrant.name]
    return argv if tls_ca is None else [*argv, str(tls_ca)]


def entrants_named(record: Mapping[str, Any], spec: MatchSpec) -> dict[str, Any]:
    """The record with each seat named after its entrant, whatever name its bot joined with.

    Why: a joining client may rename its seat (``Join.name``), and an entrant's command is free to. The
    tournament's records say who played for the tournament: an audit pairs each record with its game by seed
    and seat names, and no entrant may appear under another's name.
    """
    seats = [{**entry, "name": spec.seats[entry["seat"]]} if 0 <= entry.get("seat", -1) < len(spec.seats)
             else dict(entry) for entry in record.get("seats", [])]
    return {**record, "seats": seats} if "seats" in record else dict(record)


@dataclass(slots=True)
class _Seat:
    seat: int
    entrant: EntrantSpec
    token: str
    seed: str
    #: The seat's table and its deck set (a long-lived process plays one table of a deck set at most).
    table_id: str = ""
    deck_set: DeckSet = (0, 0)
    process: asyncio.subprocess.Process | None = None
    stderr: StderrTail | None = None
    #: The long-lived process holding the seat, and its answer for it.
    lease: EntrantProcess | None = None
    answer: asyncio.Future[str] | None = None
    crashes: list[str] = field(default_factory=list)
    #: Told each fault its bot's process reports (the fault lines on its control descriptor).
    report: OnFault | None = None
    #: Set once the seat's entrant has made the faults that forfeit the match (the bot is stopped then).
    limit: asyncio.Future[str] | None = None
    #: Where the stderr of the process holding the seat stood when it got the seat, and what its processes
    #: wrote while they held it (one piece per process).
    mark: int = 0
    written: list[str] = field(default_factory=list)

    @property
    def running(self) -> bool:
        """A bot process was started or handed the seat."""
        return self.process is not None or self.answer is not None

    async def finished(self) -> str:
        """How the seat's bot was through with it: ``exit N`` (a process's exit), a long-lived one's answer, or
        :data:`FAULTS_REACHED`."""
        if self.limit is None:
            return await self._through()
        through = asyncio.ensure_future(self._through())
        try:
            await asyncio.wait([through, self.limit], return_when=asyncio.FIRST_COMPLETED)
            return FAULTS_REACHED if self.limit.done() else through.result()
        finally:  # also when this wait is given up: nothing is left waiting for the seat
            through.cancel()

    async def _through(self) -> str:
        if self.answer is not None:
            return await asyncio.shield(self.answer)
        if self.process is None:
            raise RuntimeError("no bot was started for this seat")
        return f"exit {await self.process.wait()}"

    async def keep_stderr(self, *, settle_s: float) -> None:
        """Keep what the process holding the seat wrote to stderr since it got the seat (before it is let go)."""
        if self.stderr is not None:
            text = await self.stderr.text(settle_s=settle_s, since=self.mark)
            if text:
                self.written.append(text)


@dataclass(frozen=True, slots=True)
class _Launcher:
    """How this tournament starts a seat's bot: sandboxed (the default) or, trusted, as a plain process.

    With a ``pool``, long-lived entrants' seats go to its processes (:mod:`tricktable.tournament.long_lived`).
    """

    address: str
    tls_ca: Path | None
    sandbox: Sandbox | None
    uids: Iterator[int]
    pool: EntrantPool | None = None
    #: Each webhook entrant's relay to its URL (sandboxed only), bound into its sandboxes and nobody else's.
    webhook_sockets: Mapping[str, Path] = field(default_factory=dict)

    async def _exec(self, entrant: EntrantSpec, inner_argv: Callable[[str], list[str]], fd: int,
                    extra: Mapping[str, str]) -> tuple[asyncio.subprocess.Process, StderrTail] | str:
        """Start ``inner_argv(address)`` for ``entrant``, sandboxed or plain, inheriting ``fd``; or why not."""
        # The tournament names itself: its bots watch it (:mod:`tricktable.tournament.seat`), and an
        # organiser can tell them apart.
        extra = {**extra, PARENT_ENV: str(os.getpid()), LIFELINE_ENV: str(_LIFELINE)}
        if self.sandbox is None:
            argv = inner = inner_argv(self.address)
            env = trusted_environment(extra)
        else:
            inner = inner_argv(self.sandbox.address)
            visible = [*runtime_paths(), Path.cwd(), *entrant_paths(inner, entrant.files, entrant.bot)]
            webhook = self.webhook_sockets.get(entrant.name)
            if webhook is not None:
                extra = {**extra, WEBHOOK_SOCKET_ENV: SANDBOX_WEBHOOK_SOCKET}
            argv = self.sandbox.command(inner, visible=visible, uid=next(self.uids), webhook_socket=webhook)
            env = self.sandbox.environment(extra)
        if shutil.which(inner[0]) is None:  # said here: started through a wrapper, it would be an exit status
            return f"could not start {inner[0]!r}: no such program"
        argv = bound_to_this_process(argv)
        try:
            process = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE, start_new_session=True, env=env, pass_fds=(fd, _LIFELINE))
        except OSError as exc:
            return f"could not start {argv[0]!r}: {exc}"
        stream = process.stderr
        if stream is None:  # started with stderr=PIPE above, so asyncio always gives a reader
            raise RuntimeError(f"{argv[0]!r} started without a stderr pipe")
        return process, StderrTail(stream)

    async def start(self, seat: _Seat) -> str | None:
        """Start the seat's bot, its token on a descriptor of its own; returns why it could not start, or None.

        A long-lived entrant's seat is handed to a process of the pool instead (its token on the process's
        control descriptor); a bot entrant's that is not long-lived to a process of its own, started for the
        seat and stopped after it, on the same descriptor (so that it reports its bot's faults the same way).
        """
        if self.pool is not None and seat.entrant.lives_long():
            return await self._hand(self.pool, seat)
        if seat.entrant.bot is not None:
            return await self._hand_alone(seat)
        fd = token_descriptor(seat.token)
        try:
            started = await self._exec(seat.entrant, lambda address: bot_argv(
                seat.entrant, address=address, token_fd=fd, seat=seat.seat, seed=seat.seed,
                tls_ca=self.tls_ca if self.sandbox is None else None), fd, {TOKEN_FD_ENV: str(fd)})
        finally:
            os.close(fd)  # the bot holds its own copy
        if isinstance(started, str):
            return started
        (seat.process, seat.stderr), seat.mark = started, 0
        return None

    async def _hand_alone(self, seat: _Seat) -> str | None:
        if seat.lease is not None:  # handed again after a fault: a new process, as for a command
            await seat.lease.stop()
            seat.lease = seat.answer = None
        process = await self.spawn(seat.entrant)
        if isinstance(process, str):
            return process
        seat.lease, seat.stderr, seat.mark = process, process.stderr, 0
        seat.answer = await process.hand(seat.deck_set, seat.table_id, token=seat.token, seat=seat.seat,
                                         seed=seat.seed, address=self.address, on_fault=seat.report)
        return None

    async def _hand(self, pool: EntrantPool, seat: _Seat) -> str | None:
        if seat.lease is not None:  # handed again after a fault: the process it had (if alive) may take it back
            pool.release(seat.lease)
            seat.lease = seat.answer = None
        lease = await pool.lease(seat.entrant, seat.deck_set, seat.table_id)
        if isinstance(lease, str):
            return lease
        seat.lease, seat.stderr, seat.mark = lease, lease.stderr, lease.stderr.mark()
        seat.answer = await lease.hand(seat.deck_set, seat.table_id, token=seat.token, seat=seat.seat,
                                       seed=seat.seed, address=self.address, on_fault=seat.report)
        return None

    async def spawn(self, entrant: EntrantSpec) -> EntrantProcess | str:
        """Start a long-lived process of ``entrant``, its control descriptor its only way to get seats."""
        ours, fd = control_pair()
        try:
            started = await self._exec(entrant, lambda address: serve_argv(
                entrant, address=address, control_fd=fd, tls_ca=self.tls_ca if self.sandbox is None else None),
                fd, {CONTROL_FD_ENV: str(fd)})
        finally:
            os.close(fd)  # the process holds its own copy
        if isinstance(started, str):
            ours.close()
            return started
        reader, writer = await asyncio.open_unix_connection(sock=ours, limit=MAX_LINE_BYTES)
        return EntrantProcess(entrant=entrant.name, process=started[0], stderr=started[1], reader=reader,
                              writer=writer)

    async def stop(self, seat: _Seat) -> None:
        """The match is over: a per-match bot is stopped; a long-lived one goes back to the pool.

        A long-lived process that has not answered for its seat by now (its table ended) is stopped: it cannot
        be trusted to be idle.
        """
        if seat.lease is not None:
            own = self.pool is None or not seat.entrant.lives_long()  # a process started for this seat alone
            lives_on = not own and seat.answer is not None and seat.answer.done()
            if not lives_on:  # killed first, so that all it wrote until then is read and kept
                await seat.lease.kill()
            # A process that lives on has no end of its output to wait for.
            await seat.keep_stderr(settle_s=0.0 if lives_on else 1.0)
            if own:
                await seat.lease.stop()
            elif lives_on and self.pool is not None:
                self.pool.release(seat.lease)
            elif self.pool is not None:
                await self.pool.discard(seat.lease)
            seat.lease = seat.answer = seat.stderr = None
            return
        proc = seat.process
        if proc is not None:
            # The bot runs in a session of its own: stop its whole process group (a shell's children too).
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(TimeoutError):  # never hang on a reaped or unreapable child
                await asyncio.wait_for(proc.wait(), timeout=5.0)
        if seat.stderr is not None:
            await seat.keep_stderr(settle_s=1.0)
            await seat.stderr.close()
            seat.stderr = None


async def check_reachable(address: str, root_certificates: bytes | None = None, *, patience_s: float = 0.0) -> None:
    """Connect to ``address``: a tournament against a server that is not there stops before its first game.

    ``patience_s``: seconds to keep trying (a server restarting); 0 fails at the first failed attempt.

    Raises:
        ServerUnreachable: the connection failed.
    """
    channel = open_channel(address, root_certificates=root_certificates)
    try:
        await connect(channel, address, wait_for_server=patience_s)
    finally:
        await channel.close(None)


async def _start_server(config: TournamentConfig, data_dir: Path, *, unix_socket: Path | None,
                        database_url: str | None = None) -> tuple[str, Any]:
    """A server in this process on a free port over ``data_dir`` (and ``unix_socket``): its address and itself.

    ``database_url``: its records go to that PostgreSQL database (the tournament's), not to ``data_dir``'s file.

    The server logs through structlog as configured by the caller (the command line keeps it to warnings).
    """
    from tricktable.server.app import GameServer, ServerConfig
    from tricktable.server.clocks import TimeControl
    from tricktable.server.limits import Limits

    bank = 60.0 if config.bank_ms is None else config.bank_ms / 1000.0
    control = TimeControl(decision_seconds=(config.decision_ms or 10_000) / 1000.0, bank_seconds=bank,
                          grace_seconds=5.0, join_seconds=60.0)
    limits = Limits(max_tables_per_client=100_000, max_tables=100_000, retain_seconds=5.0,
                    max_streams_per_client=100_000, max_streams_per_connection=100_000, max_deals=config.max_deals)
    # No journal: the entrants' bots end with this process, so a table left over could not be resumed.
    server = GameServer(ServerConfig(port=0, data_dir=data_dir, time_control=control, limits=limits,
                                     journal=False, unix_socket=unix_socket, database_url=database_url))
    await server.start()
    return server.address, server


class ServerDispatcher:
    """Plays matches on a gRPC server, each bot a process (see the module docstring)."""

    def __init__(self, config: TournamentConfig, address: str, server: Any = None, *,
                 tls_ca: Path | None = None, sandbox: Sandbox | None = None, relay: SocketRelay | None = None,
                 socket_folder: Path | None = None, long_lived: bool = True,
                 webhooks: Mapping[str, tuple[Path, SocketRelay]] | None = None) -> None:
        self.config = config
        self.address = address
        #: The CA file to reach ``address`` over TLS (a remote ``--server``), handed to unsandboxed bots too.
        self.tls_ca = tls_ca
        self.root_certificates = None if tls_ca is None else tls_ca.read_bytes()
        self.entrants = {e.name: e for e in config.entrants}
        self._server = server
        #: The relay to a remote server for sandboxed bots, and the folder of its socket (removed at close).
        self._relay = relay
        self._socket_folder = socket_folder
        self.end_grace_s = END_GRACE_S
        #: What the entrants run in, for the organiser (the summary and the log say it).
        self.isolation = "trusted entrants: plain processes, not sandboxed" if sandbox is None else sandbox.describe()
        #: The webhook entrants' relays to their URLs (sandboxed: the seats have no network), closed at close.
        self._webhooks = dict(webhooks or {})
        launcher = _Launcher(address=address if sandbox is None else sandbox.address,
                             tls_ca=None if sandbox else tls_ca, sandbox=sandbox, uids=user_ids(),
                             webhook_sockets={name: path for name, (path, _) in self._webhooks.items()})
        #: The long-lived entrant processes (None: every bot started per match, ``long_lived=False``).
        self.pool = EntrantPool(launcher.spawn) if long_lived else None
        self._launcher = dataclasses.replace(launcher, pool=self.pool)
        #: The tournament's organiser credential, the owner token of every table created (set by the engine
        #: from its store, :class:`tricktable.tournament.engine.CreatesTables`); empty: one per table.
        self.owner_token = ""
        #: When (event-loop time) a call of this dispatcher last found the server away: a bot that exits after
        #: an outage of its lifetime may have given up on it, even if the server is back by the time it exits.
        self._last_away = -math.inf

    @classmethod
    async def open(cls, config: TournamentConfig, *, address: str | None, data_dir: Path,
                   tls_ca: Path | None = None, isolation: Isolation = "sandbox",
                   hidden: Sequence[Path] = (), long_lived: bool = True,
                   database_url: str | None = None) -> ServerDispatcher:
        """Use the server at ``address``, or start one in this process on a free port over ``data_dir``.

        ``isolation``: ``sandbox`` seals every bot process off (:mod:`tricktable.tournament.sandbox`); it
        reaches the server through a Unix socket only (the in-process server's own, the ``unix:`` address
        given, or a relay to a TCP one). ``hidden``: more directories no bot may read (``data_dir`` always).
        ``long_lived``: long-lived entrants' processes play many matches (False: every bot per match).
        ``database_url``: the server started here keeps its records in that PostgreSQL database.

        Raises:
            ServerUnreachable: nothing answers at ``address`` (checked before the first match).
            SandboxUnavailable: ``sandbox`` was asked for and this host cannot build one.
        """
        if address is not None:
            await check_reachable(address, None if tls_ca is None else tls_ca.read_bytes())
            if isolation == "trusted":
                return cls(config, address, tls_ca=tls_ca, long_lived=long_lived)
        elif isolation == "trusted":
            return cls(config, *await _start_server(config, data_dir, unix_socket=None, database_url=database_url),
                       long_lived=long_lived)
        folder = Path(tempfile.mkdtemp(prefix="tricktable-socket-"))
        secret = (data_dir.resolve(), *(p.resolve() for p in hidden))
        relay = None
        webhooks: dict[str, tuple[Path, SocketRelay]] = {}
        try:
            if address is not None and address.startswith("unix:"):
                socket_path = Path(address.removeprefix("unix:").removeprefix("//"))
            else:
                socket_path = folder / "server.sock"
            sandbox = Sandbox.detect(socket_path, secret)
            webhooks = await webhook_relays(config.entrants, folder)
            if address is None:
                started = await _start_server(config, data_dir, unix_socket=socket_path, database_url=database_url)
                return cls(config, *started, sandbox=sandbox, socket_folder=folder, long_lived=long_lived,
                           webhooks=webhooks)
            if not address.startswith("unix:"):
                relay = await SocketRelay.start(socket_path, address, tls_ca)
            return cls(config, address, tls_ca=tls_ca, sandbox=sandbox, relay=relay, socket_folder=folder,
                       long_lived=long_lived, webhooks=webhooks)
        except BaseException:
            for _, webhook in webhooks.values():
                await webhook.close()
            if relay is not None:
                await relay.close()
            shutil.rmtree(folder, ignore_errors=True)
            raise

    async def close(self) -> None:
        """Stop the long-lived bots, the in-process server if this dispatcher started one, and any relay."""
        if self.pool is not None:
            await self.pool.close()
        if self._server is not None:
            await self._server.stop("tournament over")
            self._server = None
        if self._relay is not None:
            await self._relay.close()
            self._relay = None
        webhooks, self._webhooks = self._webhooks, {}
        for _, webhook in webhooks.values():
            await webhook.close()
        if self._socket_folder is not None:
            shutil.rmtree(self._socket_folder, ignore_errors=True)
            self._socket_folder = None

    async def play(self, spec: MatchSpec) -> MatchOutcome:
        """Play one match on the server; bots' faults become faults and forfeits, never exceptions."""
        try:
            return await asyncio.wait_for(self._play(spec), timeout=self.config.match_timeout_s)
        except TimeoutError:
            return MatchOutcome(match_id=spec.match_id, status="error", winners=(), scores=(),
                                reason=f"no end within {self.config.match_timeout_s:g} s")

    async def _play(self, spec: MatchSpec) -> MatchOutcome:
        started = time.perf_counter()
        # Sealed: the record and the table's progress are the organiser's alone (its owner token) until every
        # table of the deck set has ended, since the others may start later and deal the same cards.
        patience = _Patience(self.address)
        while True:  # a server that is restarting, or draining before it stops, accepts no table yet
            try:
                table = await create_table(
                    self.address, game=spec.game, options=spec.options, seed=spec.seed,
                    decision_ms=self.config.decision_ms, bank_ms=self.config.bank_ms, seat_names=list(spec.seats),
                    sealed=True, deck_set=(tables_per_deck_set(self.config), deck_set_index(self.config, spec)),
                    owner_token=self.owner_token, root_certificates=self.root_certificates)
                break
            except ConnectionLost as exc:
                self._last_away = asyncio.get_running_loop().time()
                await patience.wait(exc)
        if table.play_address and self._launcher.sandbox is None:
            launcher = dataclasses.replace(self._launcher, address=play_target(self.address, table.play_address))
        else:  # a sandboxed bot reaches the server through its socket only (see docs/tournament.md for shards)
            launcher = self._launcher
        seats = [_Seat(seat=s, entrant=self.entrants[name], token=table.tokens[s], seed=bot_seed(spec, s),
                       table_id=table.table_id, deck_set=(spec.round, spec.deck_set),
                       limit=asyncio.get_running_loop().create_future())
                 for s, name in enumerate(spec.seats)]
        faults = FaultTally(spec.seats, self.config.forfeit_after)
        #: Each seat's last fault reported, for the forfeit's reason.
        last_fault: dict[int, str] = {}
        forfeit: tuple[str, str] | None = None
        substitutes: list[asyncio.Task[Any]] = []
        ended = asyncio.ensure_future(self._wait_record(table.table_id, table.owner_token))
        #: The record as soon as it is known: a bot through with its seat is the first to know the game ended.
        record: dict[str, Any] | None = None

        def substitute(seat: _Seat) -> None:
            substitutes.append(asyncio.ensure_future(run_bot_async(
                FirstLegalBot(), self.address, token=seat.token, name=f"{seat.entrant.name} (forfeit)",
                root_certificates=self.root_certificates)))

        launched: dict[int, float] = {}  # seat -> when its bot was last started (event-loop time)

        def reporter(seat: _Seat) -> OnFault:
            def report(kind: str, message: str) -> None:
                if seat.limit is None or seat.limit.done():  # forfeited: what it does until it is stopped is moot
                    return
                last_fault[seat.seat] = message if kind in message else f"{kind}: {message}" if message else kind
                if faults.count(seat.entrant.name, kind):  # every seat of the entrant is through (both of a side)
                    for each in seats:
                        if each.entrant.name == seat.entrant.name and each.limit is not None and not each.limit.done():
                            each.limit.set_result(kind)

            return report

        for seat in seats:
            seat.report = reporter(seat)

        async def launch(seat: _Seat) -> bool:
            nonlocal forfeit
            launched[seat.seat] = asyncio.get_running_loop().time()
            problem = await launcher.start(seat)
            if problem is None:
                return True
            name = seat.entrant.name
            faults.reach_limit(name, "could_not_start")
            if forfeit is None:
                forfeit = (name, f"forfeit: {name} (seat {seat.seat}) {problem}")
            substitute(seat)
            return False

        try:
            running = {seat.seat: seat for seat in seats if await launch(seat)}
            while running:
                waits = {asyncio.ensure_future(s.finished()): s for s in running.values() if s.running}
                finished, _ = await asyncio.wait([*waits, ended], return_when=asyncio.FIRST_COMPLETED)
                for task in waits:
                    if task not in finished:
                        task.cancel()
                if ended in finished:
                    # The table is over: bots still running get a moment to exit, then are stopped (no fault).
                    exits = [asyncio.ensure_future(s.finished()) for s in running.values() if s.running]
                    if exits:
                        await asyncio.wait(exits, timeout=self.end_grace_s)
                    break
                for task in [t for t in waits if t in finished]:
                    seat = waits[task]
                    how = task.result()
                    name = seat.entrant.name
                    if how == FAULTS_REACHED:
                        # Its faults forfeit the match, as in a local run: its bot is stopped and a substitute
                        # plays the seat out.
                        kinds = faults.kinds().get(name, {})
                        what = (f"{name} (seat {seat.seat}) made {faults.total(name)} faults ({describe(kinds)}); "
                                f"last: {last_fault.get(seat.seat, '')}")
                        if forfeit is None:
                            forfeit = (name, f"forfeit: {what}")
                        elif forfeit[0] != name:
                            forfeit = (forfeit[0], f"{forfeit[1]}; also {what}")
                        await launcher.stop(seat)
                        del running[seat.seat]
                        substitute(seat)
                        continue
                    alive = seat.lease is not None and seat.lease.alive  # its output is not over: do not wait for it
                    settle = 0.0 if alive else 1.0
                    stderr = "" if seat.stderr is None else await seat.stderr.text(settle_s=settle, since=seat.mark)
                    record_text, server_was_away = await self._has_ended(table.table_id, table.owner_token)
                    if record_text is not None:
                        record = record or dict(json.loads(record_text))
                        # Its game is over (the server writes the record before it tells the seats).
                        del running[seat.seat]
                        continue
                    await self._let_go(seat, stderr)
                    if server_was_away or self._last_away >= launched[seat.seat]:
                        # The bot gave up on a server that was (or had been, since it started) away: not its
                        # fault; it rejoins its seat.
                        if not await launch(seat):
                            del running[seat.seat]
                        continue
                    tail = stderr.strip()[-STDERR_IN_REASON:]
                    status = f"{how} before the game ended"
                    seat.crashes.append(f"{status}: {tail}" if tail else status)
                    last_fault[seat.seat] = f"process_exit: {seat.crashes[-1]}"
                    if faults.count(name, "process_exit"):
                        # Out of restarts: a substitute plays the seat out. The first entrant to get here
                        # forfeits; a second one is named in the reason (the match has one forfeit).
                        what = (f"{name} (seat {seat.seat}) crashed {len(seat.crashes)} times ({faults.total(name)} "
                                f"faults); last: {seat.crashes[-1]}")
                        forfeit = (name, f"forfeit: {what}") if forfeit is None else (
                            forfeit[0], f"{forfeit[1]}; also {what}")
                        del running[seat.seat]
                        substitute(seat)
                    elif not await launch(seat):
                        del running[seat.seat]
            for sub in substitutes:
                with contextlib.suppress(SdkError):
                    await sub
            # Bots that quit early leave their seats to the server's clock and default actions; the match
            # timeout bounds the wait.
            if record is None:
                record = await ended
        finally:
            for seat in seats:
                await launcher.stop(seat)
            for sub in substitutes:
                sub.cancel()
            ended.cancel()
        return self._outcome(spec, table.table_id, record, faults, forfeit, started, stderr=written(seats))

    @staticmethod
    async def _let_go(seat: _Seat, stderr: str) -> None:
        """A seat's process is through with it before its game ended: keep what it wrote, stop reading a dead one.

        ``stderr``: what it wrote since it got the seat (read already). A long-lived process's reader is its
        pool's.
        """
        if stderr:
            seat.written.append(stderr)
        if seat.lease is None and seat.stderr is not None:
            await seat.stderr.close()
        seat.stderr = None

    async def _has_ended(self, table_id: str, owner_token: str) -> tuple[str | None, bool]:
        """The table's record if it has ended (None if not), and whether the server was unreachable when asked.

        An away server is waited for, never taken for "not ended".

        Raises:
            ServerAway: no answer within :data:`SERVER_PATIENCE_S`.
        """
        patience = _Patience(self.address)
        away = False
        while True:
            try:
                record = await get_record(self.address, table_id, owner_token=owner_token,
                                          root_certificates=self.root_certificates)
            except TableNotPlayable:
                if await self._serving():
                    return None, away
                # Stopping (draining its tables, then journaling them) or unable to store: it answers, but
                # its seats cannot play on until it is back, so a bot that gave up on it is not to blame.
                away = True
                self._last_away = asyncio.get_running_loop().time()
                await patience.wait(ConnectionLost(f"the server at {self.address} is not serving"))
                continue
            except SdkError as exc:  # unreachable, restarting or loaded: ask again until it answers
                away = True
                self._last_away = asyncio.get_running_loop().time()
                await patience.wait(exc)
                continue
            return record, away

    async def _serving(self) -> bool:
        """Whether the server's health says it serves (a server without the health service is taken to)."""
        channel = open_channel(self.address, root_certificates=self.root_certificates)
        try:
            answer = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(),
                                                                      timeout=HEALTH_TIMEOUT_S)
        except grpc.aio.AioRpcError as exc:
            return exc.code() is grpc.StatusCode.UNIMPLEMENTED
        finally:
            await channel.close(None)
        return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)

    async def wait_for_server(self, patience_s: float) -> bool:
        """Whether the server answers within ``patience_s`` seconds."""
        try:
            await check_reachable(self.address, self.root_certificates, patience_s=patience_s)
        except ConnectionLost:
            return False
        return True

    async def _wait_record(self, table_id: str, owner_token: str) -> dict[str, Any]:
        """The table's record once it has ended (polled: the bots may hang or die after the end).

        Polled ever more slowly, up to :data:`RECORD_POLL_S`: a bot through with its seat has the record
        fetched at once (:meth:`_has_ended`), so this poll only catches bots that outlive their game, and a
        fast one would cost the server (in this process) more than the game.
        """
        delay = 0.05
        while True:
            try:
                return dict(json.loads(await get_record(self.address, table_id, owner_token=owner_token,
                                                        root_certificates=self.root_certificates)))
            except TableNotPlayable:  # still being played
                await asyncio.sleep(delay)
                delay = min(RECORD_POLL_S, delay * 1.5)
            except (ConnectionLost, LimitExceeded) as exc:  # transient: the match timeout bounds the retries
                if isinstance(exc, ConnectionLost):
                    self._last_away = asyncio.get_running_loop().time()
                await asyncio.sleep(delay)
                delay = min(1.0, delay * 2)

    def _outcome(self, spec: MatchSpec, table_id: str, record: Mapping[str, Any], faults: FaultTally,
                 forfeit: tuple[str, str] | None, started: float,
                 stderr: Mapping[str, str] | None = None) -> MatchOutcome:
        stderr = stderr or {}
        record = entrants_named(record, spec)
        result = record.get("result") or {}
        timeouts: dict[str, int] = {}
        for entry in record.get("seats", []):
            name = spec.seats[entry["seat"]]
            timeouts[name] = timeouts.get(name, 0) + int(entry.get("timeouts", 0))
            faults.count(name, "timeout", int(entry.get("timeouts", 0)))
        if forfeit is None and timeouts:
            # The entrant with the most faults forfeits (seat order breaks a tie).
            worst = max(timeouts, key=lambda n: (faults.total(n), -spec.seats.index(n)))
            if faults.reached(worst):  # by its timeouts, or by faults reached as the table ended
                timed_out = f"timed out {timeouts[worst]} times; " if timeouts[worst] else ""
                forfeit = (worst, f"forfeit: {worst} {timed_out}made {faults.total(worst)} faults "
                                  f"({describe(faults.kinds()[worst])})")
        scores = tuple(result.get("scores", ()))
        duration = time.perf_counter() - started
        missing = _JOIN_MISSED.match(str(result.get("reason", "")))
        if forfeit is None and missing:
            absent = {spec.seats[int(seat)] for seat in missing.group(1).split(", ") if seat.strip().isdigit()}
            if len(absent) == 1:  # one entrant never joined: it forfeits (several: nobody to credit)
                name = absent.pop()
                faults.reach_limit(name, "could_not_start")
                forfeit = (name, f"forfeit: {name} never joined ({result['reason']})")
        if forfeit is not None:
            return MatchOutcome(match_id=spec.match_id, status="forfeit", winners=forfeit_winners(spec, forfeit[0]),
                                scores=scores, reason=forfeit[1], forfeit_by=forfeit[0], faults=faults.totals(),
                                fault_kinds=faults.kinds(), stderr=stderr, record=record, table_id=table_id,
                                duration_s=duration)
        status = "finished" if result.get("status") == "finished" else "error"
        winners = tuple(result.get("winners", ()))
        if status == "error" and str(result.get("reason", "")).startswith("deal limit") and scores:
            # The server stopped a game that would not end: the side(s) ahead win, as in the local runner.
            status = "adjudicated"
            winners = tuple(i for i, score in enumerate(scores) if score == max(scores))
        return MatchOutcome(match_id=spec.match_id, status=status, winners=winners,
                            scores=scores, reason=str(result.get("reason", "")), faults=faults.totals(),
                            fault_kinds=faults.kinds(), stderr=stderr, record=record, table_id=table_id,
                            duration_s=duration)


def written(seats: Sequence[_Seat]) -> dict[str, str]:
    """What each entrant's bot processes wrote to stderr in the match: its end, at most
    :data:`tricktable.bots.stderr.STDERR_TAIL_BYTES` per entrant (each process's part headed when there are
    several: a restart, or both seats of a side)."""
    parts: dict[str, list[tuple[int, str]]] = {}
    for seat in seats:
        parts.setdefault(seat.entrant.name, []).extend((seat.seat, text) for text in seat.written)
    kept: dict[str, str] = {}
    for name, pieces in parts.items():
        text = pieces[0][1] if len(pieces) == 1 else "".join(
            f"--- seat {seat}, process {n} ---\n{piece}" for n, (seat, piece) in enumerate(pieces, 1))
        if text:
            kept[name] = text.encode()[-STDERR_TAIL_BYTES:].decode("utf-8", "replace")
    return kept
