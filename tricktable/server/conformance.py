"""The conformance check: drive any client program through scripted situations and judge it.

``tricktable conformance [--server ADDR] -- COMMAND...`` runs the client
command once per situation, each at a fresh table of its own. The client
plays seat 0 through the relay of :mod:`tricktable.server.conformance_relay`; the harness
plays the other seats (first legal action, straight to the server). The
command gets the relay's address and the seat's token as the placeholders
``{address}`` and ``{token}`` in its arguments and as the environment
variables ``TRICKTABLE_SERVER`` and ``TRICKTABLE_TOKEN``.

Situations (docs/protocol.md, section 18):

- ``normal-game``: play every decision to ``game_ended`` and exit 0.
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

Every situation also requires: exit status 0, ``game_ended`` received, a
finished game, and, from the server's record, no timeout and no default
action for the client's seat.

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
from tricktable.rules.registry import game_definition
from tricktable.server.conformance_relay import INVALID_ACTION_ID, Fault, Script, start_relay, upstream_channel

#: The seat the client under test plays.
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Situation:
    """One scripted situation: a table's clocks and the relay's fault."""

    name: str
    summary: str
    fault: Fault = Fault.NONE
    decision_ms: int = RELAXED_DECISION_MS
    bank_ms: int = RELAXED_BANK_MS
    check_latency: bool = False
    #: The relay passes the client's batch and coalescing options on.
    keep_join_options: bool = False


def situations(clock_ms: int = 2000, decision_ms: int = RELAXED_DECISION_MS,
               bank_ms: int = RELAXED_BANK_MS) -> tuple[Situation, ...]:
    """The situations, in the order they run.

    ``clock_ms`` is the per-decision limit of ``clock``; ``decision_ms`` and
    ``bank_ms`` are the clocks of the other situations.
    """
    return (
        Situation(name="normal-game", summary="a whole game, nothing special", decision_ms=decision_ms,
                  bank_ms=bank_ms),
        Situation(name="rejection", summary="the first answer is refused by the server", fault=Fault.REJECT_FIRST,
                  decision_ms=decision_ms, bank_ms=bank_ms),
        Situation(name="reconnect", summary="the stream is dropped before a decision request",
                  fault=Fault.DROP_BEFORE_DECISION, decision_ms=decision_ms, bank_ms=bank_ms),
        Situation(name="coalesced", summary="the client's batch and coalesced-events options are honoured",
                  decision_ms=decision_ms, bank_ms=bank_ms, keep_join_options=True),
        Situation(name="clock", summary=f"{clock_ms} ms per decision, no bank", decision_ms=clock_ms, bank_ms=0,
                  check_latency=True),
    )


@dataclass(slots=True)
class Verdict:
    """The outcome of one situation."""

    situation: str
    passed: bool
    detail: str
    output_tail: list[str] = field(default_factory=list)

    def line(self) -> str:
        """The report line: ``PASS name: detail`` or ``FAIL name: detail``."""
        return f"{'PASS' if self.passed else 'FAIL'} {self.situation}: {self.detail}"


@dataclass(slots=True)
class _Run:
    """What one situation produced, for the checks."""

    script: Script
    table_id: str
    exit_code: int | None
    timed_out: bool
    record: dict[str, Any] | None
    output: list[str]


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


def expand(command: Sequence[str], address: str, token: str) -> list[str]:
    """The command with ``{address}`` and ``{token}`` replaced in every argument."""
    return [arg.replace("{address}", address).replace("{token}", token) for arg in command]


async def run_conformance(settings: Settings, *, report: Callable[[Verdict], None] | None = None) -> list[Verdict]:
    """Run every selected situation against the client command; return one verdict per situation."""
    if not settings.command:
        raise ValueError("no client command given")
    every = situations(settings.clock_ms, settings.decision_ms, settings.bank_ms)
    chosen = [s for s in every if not settings.only or s.name in settings.only]
    if not chosen:
        raise ValueError(f"no situation named {', '.join(settings.only)}")
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
        stub = pb_grpc.TableServiceStub(channel)
        verdicts = []
        for situation in chosen:
            script = Script(fault=situation.fault, keep_join_options=situation.keep_join_options,
                            transcript=[] if settings.transcript_dir else None)
            relay.script = script
            try:
                run = await _run_situation(settings, situation, stub, relay_address, script, local)
                verdict = judge(situation, run)
            except Exception as error:  # a harness or server failure is a failed situation, with its reason
                verdict = Verdict(situation=situation.name, passed=False,
                                  detail=f"harness error: {type(error).__name__}: {error}")
            if settings.transcript_dir is not None and script.transcript is not None:
                settings.transcript_dir.mkdir(parents=True, exist_ok=True)
                (settings.transcript_dir / f"{situation.name}.txt").write_text("\n".join(script.transcript) + "\n")
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


async def _run_situation(settings: Settings, situation: Situation, stub: pb_grpc.TableServiceAsyncStub,
                         relay_address: str, script: Script, local: Any) -> _Run:
    players = int(dict(settings.options).get("players", 0)) or _default_players(settings.game)
    names = ["client-under-test", *(f"harness-{s}" for s in range(1, players))]
    created = await stub.CreateTable(pb.CreateTableRequest(
        game=convert.game_to_proto(settings.game), options=convert.options_to_proto(settings.game, settings.options),
        time_control=pb.TimeControl(decision_ms=situation.decision_ms, bank_ms=situation.bank_ms),
        seat_names=names, seed=None if settings.seed is None else f"{settings.seed}-{situation.name}"))
    tokens = {t.seat: t.token for t in created.seat_tokens}
    token = tokens[CLIENT_SEAT]
    env = {**os.environ, "TRICKTABLE_SERVER": relay_address, "TRICKTABLE_TOKEN": token}
    loop = asyncio.get_running_loop()
    with tempfile.TemporaryFile(mode="w+b") as output:
        process = await asyncio.create_subprocess_exec(
            *expand(settings.command, relay_address, token), env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=output, stderr=output, start_new_session=True)
        timed_out = False
        try:
            # The client joins first and waits for the table to start, as a client that seeks usually does;
            # the harness seats join once it has (or once it gave up).
            ends = loop.time() + settings.timeout
            while process.returncode is None and loop.time() < ends and not any(s.joined for s in script.streams):
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(process.wait(), 0.05)
            opponents = [asyncio.create_task(_harness_seat(stub, tokens[s])) for s in sorted(tokens)
                         if s != CLIENT_SEAT]
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
    record = await _finish_table(stub, created.table_id, opponents, local)
    return _Run(script=script, table_id=created.table_id, exit_code=process.returncode, timed_out=timed_out,
                record=record, output=lines)


def _default_players(game: str) -> int:
    from tricktable.rules.registry import game_rules

    return int(game_rules(game).config({}).players)


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


# --- judging ---------------------------------------------------------------


def judge(situation: Situation, run: _Run) -> Verdict:
    """The verdict of one situation from what the relay saw and the server's record."""
    problems = _common_problems(run)
    specific = {
        "rejection": _rejection_problems,
        "reconnect": _reconnect_problems,
        "clock": _clock_problems,
    }.get(situation.name)
    if specific is not None:
        problems += specific(run, situation)
    script = run.script
    answered = sum(1 for d in script.decisions.values() if d.accepted)
    if problems:
        return Verdict(situation=situation.name, passed=False, detail="; ".join(problems), output_tail=run.output[-15:])
    result = (run.record or {}).get("result", {})
    detail = f"{answered} decisions answered, game {result.get('status')} (table {run.table_id})"
    if situation.name == "rejection":
        detail += f"; refused with {script.mutated_outcome}, answered again"
    elif situation.name == "reconnect":
        detail += f"; rejoined with last_seen_sequence {script.dropped_after_sequence}, re-sent decision answered"
    elif situation.name == "coalesced":
        asked = any(s.coalesce for s in script.streams)
        detail += ("; joined with coalesce_events, events held until its decisions" if asked
                   else "; the client did not ask for coalesced events (an option): plain delivery")
    elif situation.name == "clock":
        slowest = max((d.latency() or 0.0 for d in script.decisions.values()), default=0.0)
        detail += f"; slowest answer {slowest * 1000:.0f} ms of {situation.decision_ms} ms"
    return Verdict(situation=situation.name, passed=True, detail=detail)


def _seat_counters(run: _Run) -> dict[str, Any]:
    for entry in (run.record or {}).get("seats", []):
        if entry.get("seat") == CLIENT_SEAT:
            return dict(entry)
    return {}


def _common_problems(run: _Run) -> list[str]:
    problems = []
    if run.timed_out:
        problems.append("the client did not exit before the time limit")
    elif run.exit_code != 0:
        problems.append(f"the client exited with status {run.exit_code}")
    if not run.script.streams:
        problems.append("the client never opened a Play or Watch stream")
    elif not any(s.joined for s in run.script.streams):
        problems.append("the client never joined")
    if not run.script.game_ended:
        problems.append("game_ended never reached the client")
    if run.record is None:
        problems.append("no record: the table did not end")
        return problems
    status = run.record.get("result", {}).get("status")
    if status != "finished":
        problems.append(f"the game was {status}: {run.record.get('result', {}).get('reason', '')}")
    counters = _seat_counters(run)
    for name in ("timeouts", "default_actions"):
        if counters.get(name):
            problems.append(f"the server counted {counters[name]} {name.replace('_', ' ')} for the client's seat")
    if not any(d.accepted for d in run.script.decisions.values()):
        problems.append("the client had no decision accepted")
    return problems


def _rejection_problems(run: _Run, situation: Situation) -> list[str]:
    script = run.script
    if script.mutated_decision is None:
        return ["the client never answered a decision, so nothing could be refused"]
    if script.mutated_outcome == "accepted":
        return [f"the server accepted the action id {INVALID_ACTION_ID!r} (server bug)"]
    if not script.mutated_outcome:
        return ["the server's answer to the refused decide never reached the client"]
    log = script.decisions.get(script.mutated_decision)
    if log is None or len(log.answers) < 2:
        return [f"after the rejection ({script.mutated_outcome}) the client did not answer decision "
                f"{script.mutated_decision} again"]
    if not log.accepted:
        return [f"the client's new answer to decision {script.mutated_decision} was not accepted "
                f"(refusals: {', '.join(log.rejections)})"]
    return []


def _reconnect_problems(run: _Run, situation: Situation) -> list[str]:
    script = run.script
    if script.dropped_after_sequence is None:
        return [f"the game gave the client fewer than {script.drop_at_decision} decisions; nothing was dropped"]
    dropped = next(i for i, s in enumerate(script.streams) if s.dropped)
    later = [s for s in script.streams[dropped + 1:] if s.token]
    if not later:
        return ["the client did not open a new stream after the drop"]
    resumed = later[0]
    if resumed.last_seen_sequence is None:
        return ["the client rejoined without last_seen_sequence"]
    if resumed.last_seen_sequence != script.dropped_after_sequence:
        return [f"the client rejoined with last_seen_sequence {resumed.last_seen_sequence}, but the last sequence "
                f"it received was {script.dropped_after_sequence}"]
    withheld = script.decisions.get(script.withheld_decision or "")
    if withheld is None:
        return [f"decision {script.withheld_decision} was never re-sent to the client after its rejoin"]
    if not withheld.accepted:
        return [f"the client did not answer the re-sent decision {script.withheld_decision}"]
    return []


def _clock_problems(run: _Run, situation: Situation) -> list[str]:
    slow = [(d.decision_id, d.latency()) for d in run.script.decisions.values()]
    late = [(i, lat) for i, lat in slow if lat is None or lat * 1000 > situation.decision_ms]
    if late:
        shown = ", ".join(f"{i} ({'unanswered' if lat is None else f'{lat * 1000:.0f} ms'})" for i, lat in late[:5])
        return [f"{len(late)} decision(s) not answered within {situation.decision_ms} ms: {shown}"]
    return []
