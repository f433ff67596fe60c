"""Matches over the real server: CreateTable with the deck seed, one process per bot, GetRecord.

For each match the dispatcher creates a table on the server (the match's
deck seed, so the same deck set deals the same cards wherever it is
played; the entrants' names as seat names), starts every seat's bot as a
separate process with the seat's token, waits for the game to end and
fetches the record. The server is one started in this process on a free
port (its database is the tournament's, so its ``tables`` and the
tournament's rows sit side by side), or ``--server ADDR``.

Faults: a bot process that exits before its game has ended (whatever its
exit status) is one fault, and is started again with the same token (it rejoins its seat where
it was); timeouts come from the record's per-seat counters (the server
played the default action). At ``forfeit_after`` faults the entrant forfeits
the match, with the reason recorded; after a forfeit by crash, an in-process
first-legal bot plays the seat out so the table ends at once (the same
action the server's clock would default to). A table the server stops at its
deal limit (``max_deals``) is adjudicated to the side(s) ahead, as the
in-process runner does.

A server that cannot be reached is never taken for a table that has not
ended: the dispatcher waits for it (:data:`SERVER_PATIENCE_S`) and decides
from the record once it answers. A bot that exits while the server is away
is started again without a fault (it gave up on the server, it did not
crash). A server away for longer raises :class:`ServerAway`, which the
tournament does not store as a result: it waits for the server and plays
the match again from its start, so a run through restarts ends with the
results of an undisturbed one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shlex
import signal
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tricktable.bots.first_legal import FirstLegalBot
from tricktable.client_sdk.errors import ConnectionLost, LimitExceeded, SdkError, TableNotPlayable
from tricktable.client_sdk.runner import connect, create_table, get_record, open_channel, play_target, run_bot_async
from tricktable.tournament.config import TournamentConfig
from tricktable.tournament.entrants import EntrantSpec
from tricktable.tournament.runner import MatchOutcome, bot_seed, forfeit_winners
from tricktable.tournament.schedule import MatchSpec, deck_set_index, tables_per_deck_set
from tricktable.tournament.seat import PARENT_ENV

#: How much of a crashed bot's stderr goes into the reason.
STDERR_TAIL = 400
#: The server's reason for a table cancelled because seats did not join (server/tables.py).
_JOIN_MISSED = re.compile(r"cancelled: seat\(s\) ([\d, ]+) did not join")
#: Seconds bots get to exit once their table has ended.
END_GRACE_S = 5.0
#: Seconds the dispatcher waits for an unreachable server before the match is given up (and played again).
SERVER_PATIENCE_S = 120.0


class ServerAway(ConnectionLost):
    """The server did not answer within :data:`SERVER_PATIENCE_S`: the match is played again, never stored."""


def bot_argv(entrant: EntrantSpec, *, address: str, token: str, seat: int, seed: str,
             tls_ca: Path | None = None) -> list[str]:
    """The command line of one seat's bot: the entrant's template filled in, or a built-in bot.

    A built-in bot runs as :mod:`tricktable.tournament.seat` (``tricktable bot NAME``'s client, started lean).
    """
    if entrant.command is not None:
        values = {"address": address, "token": token, "seat": str(seat), "name": entrant.name, "seed": seed,
                  "python": sys.executable, "tls_ca": "" if tls_ca is None else str(tls_ca)}
        return [part.format(**values) for part in shlex.split(entrant.command)]
    if entrant.bot is None:
        raise ValueError(f"entrant {entrant.name!r} has neither a command nor a bot")
    argv = [sys.executable, "-m", "tricktable.tournament.seat", entrant.bot, address, token, seed, entrant.name]
    return argv if tls_ca is None else [*argv, str(tls_ca)]


@dataclass(slots=True)
class _Seat:
    seat: int
    entrant: EntrantSpec
    token: str
    argv: list[str]
    process: asyncio.subprocess.Process | None = None
    reader: asyncio.Task[bytes] | None = None
    crashes: list[str] = field(default_factory=list)


async def _start(seat: _Seat) -> str | None:
    """Start the seat's bot; returns why it could not be started, or None."""
    try:
        seat.process = await asyncio.create_subprocess_exec(
            *seat.argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE, start_new_session=True,
            env={**os.environ, PARENT_ENV: str(os.getpid())})
    except OSError as exc:
        return f"could not start {seat.argv[0]!r}: {exc}"
    stream = seat.process.stderr
    if stream is None:  # started with stderr=PIPE above, so asyncio always gives a reader
        raise RuntimeError(f"{seat.argv[0]!r} started without a stderr pipe")
    seat.reader = asyncio.ensure_future(stream.read())
    return None


async def _stop(seat: _Seat) -> None:
    proc = seat.process
    if proc is not None:
        # The bot runs in a session of its own: stop its whole process group (a shell's children too).
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(TimeoutError):  # never hang on a reaped or unreapable child
            await asyncio.wait_for(proc.wait(), timeout=5.0)
    if seat.reader is not None:
        seat.reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await seat.reader


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


class ServerDispatcher:
    """Plays matches on a gRPC server, each bot a process (see the module docstring)."""

    def __init__(self, config: TournamentConfig, address: str, server: Any = None, *,
                 tls_ca: Path | None = None) -> None:
        self.config = config
        self.address = address
        #: The CA file to reach ``address`` over TLS (a remote ``--server``), handed to the bots too.
        self.tls_ca = tls_ca
        self.root_certificates = None if tls_ca is None else tls_ca.read_bytes()
        self.entrants = {e.name: e for e in config.entrants}
        self._server = server
        self.end_grace_s = END_GRACE_S
        #: The tournament's organiser credential, the owner token of every table created (set by the engine
        #: from its store, :class:`tricktable.tournament.engine.CreatesTables`); empty: one per table.
        self.owner_token = ""

    @classmethod
    async def open(cls, config: TournamentConfig, *, address: str | None, data_dir: Path,
                   tls_ca: Path | None = None) -> ServerDispatcher:
        """Use the server at ``address``, or start one in this process on a free port over ``data_dir``.

        The server logs through structlog as configured by the caller (the command line keeps it to warnings).

        Raises:
            ServerUnreachable: nothing answers at ``address`` (checked before the first match).
        """
        if address is not None:
            await check_reachable(address, None if tls_ca is None else tls_ca.read_bytes())
            return cls(config, address, tls_ca=tls_ca)
        from tricktable.server.app import GameServer, ServerConfig
        from tricktable.server.clocks import TimeControl
        from tricktable.server.lobby import Limits

        bank = 60.0 if config.bank_ms is None else config.bank_ms / 1000.0
        control = TimeControl(decision_seconds=(config.decision_ms or 10_000) / 1000.0, bank_seconds=bank,
                              grace_seconds=5.0, join_seconds=60.0)
        limits = Limits(max_tables_per_client=100_000, max_tables=100_000, retain_seconds=5.0,
                        max_streams_per_client=100_000, max_deals=config.max_deals)
        # No journal: the entrants' bots end with this process, so a table left over could not be resumed.
        server = GameServer(ServerConfig(port=0, data_dir=data_dir, time_control=control, limits=limits,
                                         journal=False))
        await server.start()
        return cls(config, server.address, server)

    async def close(self) -> None:
        """Stop the in-process server, if this dispatcher started one."""
        if self._server is not None:
            await self._server.stop("tournament over")
            self._server = None

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
        table = await create_table(self.address, game=spec.game, options=spec.options, seed=spec.seed,
                                   decision_ms=self.config.decision_ms, bank_ms=self.config.bank_ms,
                                   seat_names=list(spec.seats), sealed=True,
                                   deck_set=(tables_per_deck_set(self.config), deck_set_index(self.config, spec)),
                                   owner_token=self.owner_token, root_certificates=self.root_certificates)
        seats = [_Seat(seat=s, entrant=self.entrants[name], token=table.tokens[s],
                       argv=bot_argv(self.entrants[name], address=play_target(self.address, table.play_address),
                                     token=table.tokens[s], seat=s,
                                     seed=bot_seed(spec, s), tls_ca=self.tls_ca))
                 for s, name in enumerate(spec.seats)]
        faults = {name: 0 for name in spec.seats}
        forfeit: tuple[str, str] | None = None
        substitutes: list[asyncio.Task[Any]] = []
        ended = asyncio.ensure_future(self._wait_record(table.table_id, table.owner_token))

        def substitute(seat: _Seat) -> None:
            substitutes.append(asyncio.ensure_future(run_bot_async(
                FirstLegalBot(), self.address, token=seat.token, name=f"{seat.entrant.name} (forfeit)",
                root_certificates=self.root_certificates)))

        async def launch(seat: _Seat) -> bool:
            nonlocal forfeit
            problem = await _start(seat)
            if problem is None:
                return True
            name = seat.entrant.name
            faults[name] = max(faults[name], self.config.forfeit_after)
            if forfeit is None:
                forfeit = (name, f"forfeit: {name} (seat {seat.seat}) {problem}")
            substitute(seat)
            return False

        try:
            running = {seat.seat: seat for seat in seats if await launch(seat)}
            while running:
                waits = {asyncio.ensure_future(s.process.wait()): s for s in running.values() if s.process}
                finished, _ = await asyncio.wait([*waits, ended], return_when=asyncio.FIRST_COMPLETED)
                for task in waits:
                    if task not in finished:
                        task.cancel()
                if ended in finished:
                    # The table is over: bots still running get a moment to exit, then are stopped (no fault).
                    exits = [asyncio.ensure_future(s.process.wait()) for s in running.values() if s.process]
                    if exits:
                        await asyncio.wait(exits, timeout=self.end_grace_s)
                    break
                for task in [t for t in waits if t in finished]:
                    seat = waits[task]
                    code = task.result()
                    stderr = b""
                    if seat.reader is not None:
                        with contextlib.suppress(Exception):
                            stderr = await seat.reader
                    ended_now, server_was_away = await self._has_ended(table.table_id, table.owner_token)
                    if ended_now:
                        # Its game is over (the server writes the record before it tells the seats).
                        del running[seat.seat]
                        continue
                    if server_was_away:
                        # The bot gave up on a server that was restarting: not its fault; it rejoins its seat.
                        if not await launch(seat):
                            del running[seat.seat]
                        continue
                    name = seat.entrant.name
                    faults[name] += 1
                    tail = stderr.decode("utf-8", "replace").strip()[-STDERR_TAIL:]
                    status = f"exit {code} before the game ended"
                    seat.crashes.append(f"{status}: {tail}" if tail else status)
                    if faults[name] >= self.config.forfeit_after:
                        # Out of restarts: a substitute plays the seat out. The first entrant to get here
                        # forfeits; a second one is named in the reason (the match has one forfeit).
                        what = f"{name} (seat {seat.seat}) crashed {faults[name]} times; last: {seat.crashes[-1]}"
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
            record = await ended
        finally:
            for seat in seats:
                await _stop(seat)
            for sub in substitutes:
                sub.cancel()
            ended.cancel()
        return self._outcome(spec, table.table_id, record, faults, forfeit, started)

    async def _has_ended(self, table_id: str, owner_token: str) -> tuple[bool, bool]:
        """Whether the table has ended, and whether the server was unreachable when first asked.

        An unreachable server is waited for, never taken for "not ended".

        Raises:
            ServerAway: no answer within :data:`SERVER_PATIENCE_S`.
        """
        loop = asyncio.get_running_loop()
        give_up = loop.time() + SERVER_PATIENCE_S
        away = False
        delay = 0.1
        while True:
            try:
                await get_record(self.address, table_id, owner_token=owner_token,
                                 root_certificates=self.root_certificates)
            except TableNotPlayable:
                return False, away
            except SdkError as exc:  # unreachable, restarting or loaded: ask again until it answers
                away = True
                if loop.time() >= give_up:
                    raise ServerAway(f"the server at {self.address} did not answer for "
                                     f"{SERVER_PATIENCE_S:g} s: {exc}") from exc
                await asyncio.sleep(delay)
                delay = min(1.0, delay * 2)
                continue
            return True, away

    async def wait_for_server(self, patience_s: float) -> bool:
        """Whether the server answers within ``patience_s`` seconds."""
        try:
            await check_reachable(self.address, self.root_certificates, patience_s=patience_s)
        except ConnectionLost:
            return False
        return True

    async def _wait_record(self, table_id: str, owner_token: str) -> dict[str, Any]:
        """The table's record once it has ended (polled: the bots may hang or die after the end)."""
        delay = 0.05
        while True:
            try:
                return dict(json.loads(await get_record(self.address, table_id, owner_token=owner_token,
                                                        root_certificates=self.root_certificates)))
            except TableNotPlayable:  # still being played
                await asyncio.sleep(delay)
            except (ConnectionLost, LimitExceeded):  # transient: the match timeout bounds the retries
                await asyncio.sleep(delay)
                delay = min(1.0, delay * 2)

    def _outcome(self, spec: MatchSpec, table_id: str, record: Mapping[str, Any], faults: dict[str, int],
                 forfeit: tuple[str, str] | None, started: float) -> MatchOutcome:
        result = record.get("result") or {}
        timeouts: dict[str, int] = {}
        for entry in record.get("seats", []):
            name = spec.seats[entry["seat"]]
            timeouts[name] = timeouts.get(name, 0) + int(entry.get("timeouts", 0))
            faults[name] += int(entry.get("timeouts", 0))
        if forfeit is None and timeouts:
            # The entrant with the most faults forfeits (seat order breaks a tie).
            worst = max(timeouts, key=lambda n: (faults[n], -spec.seats.index(n)))
            if faults[worst] >= self.config.forfeit_after:
                forfeit = (worst, f"forfeit: {worst} timed out {timeouts[worst]} times")
        scores = tuple(result.get("scores", ()))
        duration = time.perf_counter() - started
        missing = _JOIN_MISSED.match(str(result.get("reason", "")))
        if forfeit is None and missing:
            absent = {spec.seats[int(seat)] for seat in missing.group(1).split(", ") if seat.strip().isdigit()}
            if len(absent) == 1:  # one entrant never joined: it forfeits (several: nobody to credit)
                name = absent.pop()
                faults[name] = max(faults[name], self.config.forfeit_after)
                forfeit = (name, f"forfeit: {name} never joined ({result['reason']})")
        if forfeit is not None:
            return MatchOutcome(match_id=spec.match_id, status="forfeit", winners=forfeit_winners(spec, forfeit[0]),
                                scores=scores, reason=forfeit[1], forfeit_by=forfeit[0], faults=faults,
                                record=record, table_id=table_id, duration_s=duration)
        status = "finished" if result.get("status") == "finished" else "error"
        winners = tuple(result.get("winners", ()))
        if status == "error" and str(result.get("reason", "")).startswith("deal limit") and scores:
            # The server stopped a game that would not end: the side(s) ahead win, as in the local runner.
            status = "adjudicated"
            winners = tuple(i for i, score in enumerate(scores) if score == max(scores))
        return MatchOutcome(match_id=spec.match_id, status=status, winners=winners,
                            scores=scores, reason=str(result.get("reason", "")), faults=faults, record=record,
                            table_id=table_id, duration_s=duration)
