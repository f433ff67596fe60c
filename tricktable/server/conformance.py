"""The conformance check: drive any client program through scripted situations and judge it.

``tricktable conformance [--server ADDR] -- COMMAND...`` runs the client
command once per situation (``every-seat`` once per table), each at fresh
tables of its own. The client plays its seat through the relay of
:mod:`tricktable.server.conformance_relay`; the harness plays the other seats
(first legal action, straight to the server). The command gets the relay's
address and the seat's token as the placeholders ``{address}`` and
``{token}`` in its arguments and as the environment variables
``TRICKTABLE_SERVER`` and ``TRICKTABLE_TOKEN``; ``TRICKTABLE_SITUATION``
names the situation.

Situations (docs/protocol.md, section 18):

- ``normal-game``: play every decision to ``game_ended`` and exit 0.
- ``every-seat``: the same at every seat index of every layout of 2, 3 or 4
  players the game allows, one table each (run side by side per layout).
- ``rejection``: the client's first answer is replaced by an unknown action id,
  so the server refuses it; the client must answer the same decision again.
- ``reconnect``: the relay ends the client's stream with UNAVAILABLE just before
  a decision request; the client must rejoin with ``last_seen_sequence`` equal
  to the last sequence it received and answer the re-sent decision.
- ``coalesced``: the client's own join options are passed on, so a client
  that asks for batches and coalesced events (``Join.coalesce_events``) gets
  its events held until its next decision; it must still play to the end.
- ``clock``: a tight clock (default 2 s per decision, no bank); every decision
  must be answered within it.
- ``default-action``: the same clock; the client's answer to its first
  decision is held at the relay until the server played the documented
  default for it; the client must take the ``action_timed_out``, the refusal
  of its late answer, and play on.
- ``annotations``: every annotation the client sends is on its action in the
  record once the table ended.
- ``play-many``: several tables at once, the client at a different seat of
  each; ``{token}`` holds their tokens separated by commas, and the client
  must play them all over one ``PlayMany`` call.
- ``spectate``: the command given with ``--spectator`` (placeholders
  ``{address}`` and ``{table}``) follows a table the harness plays to its
  end over ``Spectate``; nothing it is sent may show a hidden card.

A client that lacks a feature declares it (``--skip NAME``): the situation
is reported ``SKIP``, not failed. Every seat's situation also requires: exit
status 0, ``game_ended`` received, a finished game, and, from the server's
record, no timeout and no default action for the client's seat (but the one
``default-action`` causes).

Without ``--server`` an in-process server on a free port is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc as pb_grpc
from tricktable.protocol.stream import next_reply
from tricktable.rules.errors import OptionsError
from tricktable.rules.registry import game_definition
from tricktable.server.conformance_checks import Run, Verdict, judge
from tricktable.server.conformance_relay import Fault, Relay, Script, start_relay, upstream_channel

__all__ = ["Settings", "Situation", "Verdict", "expand", "harness_answer", "run_conformance", "situations"]

#: The seat the client under test plays (but in ``every-seat`` and ``play-many``).
CLIENT_SEAT = 0
#: A short game unless the caller chooses: All Fives, two players, to 11 points.
DEFAULT_GAME = "all_fives"


def default_options(game: str) -> dict[str, Any]:
    """Options unless the caller gives some: the game's short game, which any client playing legal actions at
    random finishes (its definition's ``short_options``: Cinq Cents' 1000 is out of reach of random bidders; at
    100 the defenders' 10 a trick end the game within a few deals).

    Raises:
        OptionsError: for an unknown game.
    """
    return dict(game_definition(game).short_options)


#: Clocks of the ordinary situations: generous, so a slow machine does not fail a correct client.
RELAXED_DECISION_MS = 10_000
RELAXED_BANK_MS = 30_000
#: The player counts ``every-seat`` tries (those the game allows).
LAYOUTS = (2, 3, 4)
#: Tables of ``play-many``.
PLAY_MANY_TABLES = 3
#: Seconds the relay holds a late answer at most (beyond the decision's clock) waiting for the default.
LATE_MARGIN_SECONDS = 30.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Situation:
    """One scripted situation: its tables (:attr:`layout`), their clocks and the relay's fault."""

    name: str
    summary: str
    fault: Fault = Fault.NONE
    decision_ms: int = RELAXED_DECISION_MS
    bank_ms: int = RELAXED_BANK_MS
    check_latency: bool = False
    #: The relay passes the client's batch and coalescing options on.
    keep_join_options: bool = False
    #: ``one-seat`` (a table, the client at seat 0), ``every-seat``, ``play-many`` or ``spectate``.
    layout: str = "one-seat"


def situations(clock_ms: int = 2000, decision_ms: int = RELAXED_DECISION_MS,
               bank_ms: int = RELAXED_BANK_MS) -> tuple[Situation, ...]:
    """The situations, in the order they run.

    ``clock_ms`` is the per-decision limit of ``clock`` and ``default-action``;
    ``decision_ms`` and ``bank_ms`` are the clocks of the other situations.
    """
    d, b = decision_ms, bank_ms
    return (
        Situation(name="normal-game", summary="a whole game, nothing special", decision_ms=d, bank_ms=b),
        Situation(name="every-seat", summary="a whole game at every seat of every layout the game allows",
                  layout="every-seat", decision_ms=d, bank_ms=b),
        Situation(name="rejection", summary="the first answer is refused by the server", fault=Fault.REJECT_FIRST,
                  decision_ms=d, bank_ms=b),
        Situation(name="reconnect", summary="the stream is dropped before a decision request",
                  fault=Fault.DROP_BEFORE_DECISION, decision_ms=d, bank_ms=b),
        Situation(name="coalesced", summary="the client's batch and coalesced-events options are honoured",
                  keep_join_options=True, decision_ms=d, bank_ms=b),
        Situation(name="clock", summary=f"{clock_ms} ms per decision, no bank", decision_ms=clock_ms, bank_ms=0,
                  check_latency=True),
        Situation(name="default-action", summary="an answer arrives after the clock: the default is played",
                  fault=Fault.LATE_ANSWER, decision_ms=clock_ms, bank_ms=0),
        Situation(name="annotations", summary="the client's annotations reach the record", decision_ms=d, bank_ms=b),
        Situation(name="play-many", summary=f"{PLAY_MANY_TABLES} tables on one PlayMany call", layout="play-many",
                  decision_ms=d, bank_ms=b),
        Situation(name="spectate", summary="a table followed over Spectate, with no hidden card",
                  layout="spectate", decision_ms=d, bank_ms=b),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """How to run the check."""

    command: tuple[str, ...]
    server: str | None = None
    game: str = DEFAULT_GAME
    options: Mapping[str, Any] = field(default_factory=lambda: default_options(DEFAULT_GAME))
    clock_ms: int = 2000
    decision_ms: int = RELAXED_DECISION_MS
    bank_ms: int = RELAXED_BANK_MS
    timeout: float = 90.0
    only: tuple[str, ...] = ()
    #: Seed of the tables' decks (each situation's table gets SEED-NAME); None: the server draws them.
    seed: str | None = None
    transcript_dir: Path | None = None
    #: CA certificates to reach ``server`` over TLS (None: plaintext).
    root_certificates: bytes | None = None
    #: Situations the client declares it does not support: reported SKIP.
    skip: tuple[str, ...] = ()
    #: The spectating client's command (``{address}``, ``{table}``); None: ``spectate`` is skipped.
    spectator: tuple[str, ...] | None = None


def expand(command: Sequence[str], address: str, token: str, table: str = "") -> list[str]:
    """The command with ``{address}``, ``{token}`` and ``{table}`` replaced in every argument."""
    return [arg.replace("{address}", address).replace("{token}", token).replace("{table}", table)
            for arg in command]


async def run_conformance(settings: Settings, *, report: Callable[[Verdict], None] | None = None) -> list[Verdict]:
    """Run every selected situation against the client command; return one verdict per situation."""
    if not settings.command:
        raise ValueError("no client command given")
    every = situations(settings.clock_ms, settings.decision_ms, settings.bank_ms)
    known = {s.name for s in every}
    unknown = [name for name in (*settings.only, *settings.skip) if name not in known]
    if unknown:
        raise ValueError(f"no situation named {', '.join(unknown)}")
    chosen = [s for s in every if not settings.only or s.name in settings.only]
    async with contextlib.AsyncExitStack() as stack:
        upstream = settings.server
        local = None
        if upstream is None:
            local = await stack.enter_async_context(_local_server())
            upstream = local.address
        relay_server, relay, relay_address = await start_relay(upstream, root_certificates=settings.root_certificates)
        stack.push_async_callback(relay_server.stop, 0.5)
        channel = upstream_channel(upstream, settings.root_certificates)
        stack.push_async_callback(channel.close, None)
        harness = _Harness(settings, pb_grpc.TableServiceStub(channel), relay, relay_address, local)
        verdicts = []
        for situation in chosen:
            verdict = await harness.run(situation)
            verdicts.append(verdict)
            if report is not None:
                report(verdict)
        return verdicts


@contextlib.asynccontextmanager
async def _local_server() -> Any:
    """An in-process server on a free port with a throwaway data directory."""
    from tricktable.server.app import GameServer, ServerConfig  # the server is only needed without --server
    from tricktable.server.clocks import TimeControl

    with tempfile.TemporaryDirectory(prefix="tricktable-conformance-") as data_dir:
        server = GameServer(ServerConfig(port=0, data_dir=Path(data_dir),
                                         time_control=TimeControl(grace_seconds=30.0, join_seconds=60.0)))
        await server.start()
        try:
            yield server
        finally:
            await server.stop("conformance check over")


@dataclass(slots=True)
class _Seating:
    """One table of a situation: the client's seat there (None: it spectates), and what the relay saw of it."""

    players: int
    seat: int | None
    script: Script
    table_id: str = ""
    tokens: dict[int, str] = field(default_factory=dict)


class _Harness:
    """Runs the situations: creates their tables, starts the client, plays the other seats, judges."""

    def __init__(self, settings: Settings, stub: pb_grpc.TableServiceAsyncStub, relay: Relay, relay_address: str,
                 local: Any) -> None:
        self.settings = settings
        self.stub = stub
        self.relay = relay
        self.relay_address = relay_address
        self.local = local

    async def run(self, situation: Situation) -> Verdict:
        """One situation's verdict (a harness or server failure is a failed situation, with its reason)."""
        settings = self.settings
        if situation.name in settings.skip:
            return Verdict(situation=situation.name, passed=True, skipped=True,
                           detail=f"the client declares it does not support this (--skip {situation.name})")
        if situation.layout == "spectate" and settings.spectator is None:
            return Verdict(situation=situation.name, passed=True, skipped=True,
                           detail="no --spectator command given (the command that follows a table over Spectate)")
        transcript: list[str] | None = [] if settings.transcript_dir else None
        scripts: list[Script] = []
        try:
            runs = await self._play(situation, transcript, scripts)
            verdict = judge(situation.name, runs, decision_ms=situation.decision_ms)
        except Exception as error:
            verdict = Verdict(situation=situation.name, passed=False,
                              detail=f"harness error: {type(error).__name__}: {error}")
        finally:
            self.relay.scripts.clear()
        if settings.transcript_dir is not None and transcript is not None:
            settings.transcript_dir.mkdir(parents=True, exist_ok=True)
            lines = [line for script in scripts for line in (script.transcript or [])]
            (settings.transcript_dir / f"{situation.name}.txt").write_text("\n".join(lines) + "\n")
        return verdict

    async def _play(self, situation: Situation, transcript: list[str] | None, scripts: list[Script]) -> list[Run]:
        """Play the situation's tables with the client and judge nothing yet: one run per table."""
        settings = self.settings
        players = self._players(settings.options)

        def script() -> Script:
            made = Script(fault=situation.fault, keep_join_options=situation.keep_join_options,
                          transcript=transcript)
            scripts.append(made)
            return made

        if situation.layout == "every-seat":
            runs: list[Run] = []
            for count in _layouts(settings.game, settings.options):
                seatings = [_Seating(count, seat, script()) for seat in range(count)]
                runs += [run for group in await asyncio.gather(*(self._tables(situation, [s]) for s in seatings))
                         for run in group]
            return runs
        if situation.layout == "play-many":
            return await self._tables(situation, [_Seating(players, n % players, script())
                                                  for n in range(PLAY_MANY_TABLES)])
        if situation.layout == "spectate":
            return await self._tables(situation, [_Seating(players, None, script())])
        return await self._tables(situation, [_Seating(players, CLIENT_SEAT, script())])

    def _players(self, options: Mapping[str, Any]) -> int:
        return int(dict(options).get("players", 0)) or _default_players(self.settings.game)

    async def _tables(self, situation: Situation, seatings: list[_Seating]) -> list[Run]:
        """Create ``seatings``' tables, run one client process for all of them, play the harness seats."""
        settings = self.settings
        for seating in seatings:
            await self._create(situation, seating)
        spectating = seatings[0].seat is None
        command = settings.spectator if spectating and settings.spectator is not None else settings.command
        token = ",".join(s.tokens[s.seat] for s in seatings if s.seat is not None)
        table = seatings[0].table_id
        self.relay.hold_limit = situation.decision_ms / 1000 + LATE_MARGIN_SECONDS
        env = {**os.environ, "TRICKTABLE_SERVER": self.relay_address, "TRICKTABLE_TOKEN": token,
               "TRICKTABLE_TABLE": table, "TRICKTABLE_SITUATION": situation.name}
        loop = asyncio.get_running_loop()
        opponents: dict[str, list[asyncio.Task[None]]] = {}

        def start_opponents(seating: _Seating) -> None:
            if seating.table_id not in opponents:
                opponents[seating.table_id] = [asyncio.create_task(_harness_seat(self.stub, seat_token))
                                               for seat, seat_token in sorted(seating.tokens.items())
                                               if seat != seating.seat]

        with tempfile.TemporaryFile(mode="w+b") as output:
            process = await asyncio.create_subprocess_exec(
                *expand(command, self.relay_address, token, table), env=env, stdin=asyncio.subprocess.DEVNULL,
                stdout=output, stderr=output, start_new_session=True)
            timed_out = False
            try:
                # The client joins first and waits for the table to start, as a client that seeks usually does
                # (a spectator: its Spectate has started); a table's harness seats join once it has, or gave up.
                ends = loop.time() + settings.timeout
                while process.returncode is None and loop.time() < ends and len(opponents) < len(seatings):
                    for seating in seatings:
                        if any(s.joined for s in seating.script.streams):
                            start_opponents(seating)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(process.wait(), 0.05)
                for seating in seatings:
                    start_opponents(seating)
                await asyncio.wait_for(process.wait(), max(0.0, ends - loop.time()))
            except TimeoutError:
                timed_out = True
                _kill_group(process.pid)
                await process.wait()
            finally:
                if process.returncode is None:
                    _kill_group(process.pid)
                    await process.wait()
            output.seek(0)
            lines = output.read().decode(errors="replace").splitlines()
        records = await asyncio.gather(*(_finish_table(self.stub, s.table_id, opponents.get(s.table_id, []),
                                                       self.local) for s in seatings))
        return [Run(script=s.script, table_id=s.table_id, exit_code=process.returncode, timed_out=timed_out,
                    record=record, output=lines, seat=s.seat, players=s.players)
                for s, record in zip(seatings, records, strict=True)]

    async def _create(self, situation: Situation, seating: _Seating) -> None:
        """Create the seating's table; its script watches the client's seat (or, spectated, the table)."""
        settings = self.settings
        options = {**settings.options, "players": seating.players}
        names = [("client-under-test" if s == seating.seat else f"harness-{s}") for s in range(seating.players)]
        seed = None if settings.seed is None else f"{settings.seed}-{situation.name}"
        if seed is not None and seating.seat is not None and situation.layout in ("every-seat", "play-many"):
            seed += f"-{seating.players}-{seating.seat}"
        created = await self.stub.CreateTable(pb.CreateTableRequest(
            game=convert.game_to_proto(settings.game), options=convert.options_to_proto(settings.game, options),
            time_control=pb.TimeControl(decision_ms=situation.decision_ms, bank_ms=situation.bank_ms),
            seat_names=names, seed=seed))
        seating.table_id = created.table_id
        seating.tokens = {t.seat: t.token for t in created.seat_tokens}
        key = created.table_id if seating.seat is None else seating.tokens[seating.seat]
        self.relay.scripts[key] = seating.script
        seating.script.note_text(f"table {created.table_id}: the client "
                                 + ("spectates" if seating.seat is None else f"plays seat {seating.seat}"))


def _default_players(game: str) -> int:
    from tricktable.rules.registry import game_rules

    return int(game_rules(game).config({}).players)


def _layouts(game: str, options: Mapping[str, Any]) -> list[int]:
    """The player counts of :data:`LAYOUTS` the game allows with ``options``."""
    from tricktable.rules.registry import game_rules

    allowed = []
    for count in LAYOUTS:
        try:
            game_rules(game).config({**options, "players": count})
        except OptionsError:
            continue
        allowed.append(count)
    return allowed


def _kill_group(pid: int) -> None:
    """End the client process we started, and what it started (its own session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


async def _finish_table(stub: pb_grpc.TableServiceAsyncStub, table_id: str, opponents: list[asyncio.Task[None]],
                        local: Any) -> dict[str, Any] | None:
    """Wait a little for the table to end (abort it when the server is ours), then fetch its record."""
    pending: set[asyncio.Task[None]] = set()
    if opponents:
        _done, pending = await asyncio.wait(opponents, timeout=2.0)
    if pending and local is not None:
        table = local.lobby.find(table_id)
        if table is not None:
            table.abort("conformance: the client under test stopped before the end")
        _done, pending = await asyncio.wait(pending, timeout=5.0)
    for task in pending:
        task.cancel()
    for _ in range(50):
        try:
            response = await stub.GetRecord(pb.GetRecordRequest(table_id=table_id))
            record: dict[str, Any] = json.loads(response.record_json)
            return record
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                return None
            await asyncio.sleep(0.1)
    return None


def harness_answer(decision: pb.DecisionRequest) -> pb.Decide:
    """The harness seats' answer: the first legal action, except that they pass in a Cinq Cents auction.

    Passing leaves the contract to the client under test whenever it bids, so
    its discard decision (a ``DiscardChoice``) is exercised; the last seat to
    speak bids when everyone before it passed, so no deal is void for ever.
    A discard is the first ``count`` cards offered (the server's default).
    """
    answer = pb.Decide(decision_id=decision.decision_id)
    if decision.HasField("discard_choice"):
        choice = decision.discard_choice
        answer.action.discard.cards.extend(choice.cards[:choice.count])
        return answer
    legal = decision.legal_actions
    view = decision.view
    passing = next((a for a in legal if a.action.WhichOneof("kind") == "pass"), None)
    everyone_passed = len(view.bids) == view.players - 1 and not any(e.HasField("bid") for e in view.bids)
    answer.action_id = passing.id if passing is not None and not everyone_passed else legal[0].id
    return answer


async def _harness_seat(stub: pb_grpc.TableServiceAsyncStub, token: str) -> None:
    """Play a seat with :func:`harness_answer` until the stream ends (the harness's opponents)."""
    call = stub.Play()  # type: ignore[call-arg]  # grpc-stubs: the iterator is optional (we write)
    try:
        await call.write(pb.PlayRequest(join=pb.Join(token=token)))
        while True:
            message = await next_reply(call, pb.PlayResponse)
            if message is None:
                return
            if message.WhichOneof("kind") == "decision":
                await call.write(pb.PlayRequest(decide=harness_answer(message.decision)))
    except grpc.aio.AioRpcError:
        return
    finally:
        call.cancel()
