"""Client processes of the server benchmark: trivial first-legal bots speaking the protocol directly.

Each mode runs in its own process (started by :mod:`bench.server_bench`), so
the server's work and the bots' work are on different processes, as with
real bots. The bots use the generated stubs directly rather than the SDK's
runner: a bot answers every ``DecisionRequest`` with the id of its first
legal action, so the measured time is the server's and the transport's, not
the SDK's conversions (the ``sdk`` seat mode measures the SDK path too).

Timestamps are ``time.monotonic_ns()``: CLOCK_MONOTONIC, one clock for every
process of the machine, so a send in one process and a receive in another
can be subtracted.

Modes (JSON on stdout):

- ``seat ADDR TOKEN...``: play one seat at each table in turn; per decision,
  when it was received and when the answer was written.
- ``load ADDR --tables K``: print ``ready``, read ``go UNTIL A B`` on stdin,
  then keep K tables of first-legal bots playing (a new table as soon as one
  ends) until ``UNTIL``; count the decisions answered between ``A`` and ``B``.
  With ``--many`` every seat of the process plays over one ``PlayMany`` call
  per address (:class:`ManyCall`: each message's decisions answered in one
  message) instead of a ``Play`` stream each.
- ``hold ADDR``: print ``ready``, then read commands from stdin: ``add N`` creates N tables and
  joins every seat (the bots then sit idle on their first decision; ``add N
  nojoin`` only creates them), at most 200 joins waiting at once, ``quit``
  ends; answers ``ok TABLES STREAMS`` (totals) per command.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import grpc

from bench import cli
from bench.server_echo import LOOPS, run_on
from tricktable.client_sdk.errors import SdkError
from tricktable.client_sdk.mux import SeatMultiplexer, status_error
from tricktable.client_sdk.runner import play_seat_async, play_target
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc

#: One answered decision: table id, decision id, deal number, received (ns), answer written (ns).
Record = tuple[str, int, int, int, int]

#: Joins the hold mode lets wait for the server at once.
MAX_JOINS_IN_FLIGHT = 200

_EOF: object = grpc.aio.EOF  # type: ignore[attr-defined]
_clock = time.monotonic_ns


def _channel(address: str) -> grpc.aio.Channel:
    return grpc.aio.insecure_channel(address)


async def create_table(stub: table_service_pb2_grpc.TableServiceAsyncStub, game: str) -> pb.CreateTableResponse:
    """A new table of ``game`` with default options."""
    response: pb.CreateTableResponse = await stub.CreateTable(pb.CreateTableRequest(game=convert.game_to_proto(game)))
    return response


async def play_seat(stub: table_service_pb2_grpc.TableServiceAsyncStub, token: str, table_id: str,
                    records: list[Record], *, answer: bool = True,
                    on_joined: Callable[[], None] | None = None, tally: list[int] | None = None,
                    arrivals: list[int] | None = None, coalesce: bool = True) -> tuple[int, int]:
    """Join with ``token`` and answer each decision with its first legal action id until the stream ends.

    With ``answer`` False the seat joins and then sits idle, reading what comes; ``on_joined`` is called
    when the server's Joined arrives. Returns the rejections seen and the messages received; ``tally``
    (when given) counts the messages received as they come, so a stream cut short still counts;
    ``arrivals`` (when given) gets the time each message arrived. ``coalesce``: join with
    ``coalesce_events`` (else batches only, the protocol before coalescing).
    """
    call = stub.Play()  # type: ignore[call-arg]
    rejections = messages = 0
    try:
        await call.write(pb.PlayRequest(join=pb.Join(token=token, accept_batches=True, coalesce_events=coalesce)))
        while True:
            message = await call.read()
            arrived = _clock()
            if message is _EOF:
                return rejections, messages
            assert isinstance(message, pb.PlayResponse)
            messages += 1
            if tally is not None:
                tally[0] += 1
            if arrivals is not None:
                arrivals.append(arrived)
            kind = message.WhichOneof("kind")
            if kind == "batch":
                last = message.batch.messages[-1]
                kind = last.WhichOneof("kind")
                message = last
            if kind == "decision" and answer:
                received = arrived
                decision = message.decision
                request = pb.PlayRequest(decide=pb.Decide(decision_id=decision.decision_id,
                                                          action_id=decision.legal_actions[0].id))
                sent = _clock()
                await call.write(request)
                records.append((table_id, int(decision.decision_id), decision.view.deal_number, received, sent))
            elif kind == "rejection":
                rejections += 1
            elif kind == "joined" and on_joined is not None:
                on_joined()
    finally:
        call.cancel()


# --- seat: one seat, a table at a time (turnaround) ---------------------------------------------


async def seat_mode(address: str, tokens: list[str], table_ids: list[str], sdk: bool,
                    coalesce: bool = True) -> dict[str, Any]:
    """Play one seat of each table in turn (raw stubs, or the SDK runner with an instrumented first-legal bot)."""
    records: list[Record] = []
    arrivals: dict[str, list[int]] = {}
    rejections = messages = 0
    if sdk:
        from tricktable.client_sdk.runner import run_bot_async

        for token, table_id in zip(tokens, table_ids, strict=True):
            await run_bot_async(_TimedFirstLegal(table_id, records), address, token=token)
        return {"records": records, "rejections": 0, "messages": None, "arrivals": None}
    async with _channel(address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        for token, table_id in zip(tokens, table_ids, strict=True):
            arrivals[table_id] = []
            rejected, received = await play_seat(stub, token, table_id, records, arrivals=arrivals[table_id],
                                                 coalesce=coalesce)
            rejections += rejected
            messages += received
    return {"records": records, "rejections": rejections, "messages": messages, "arrivals": arrivals}


class _TimedFirstLegal:
    """The first-legal bot, noting when the SDK hands it a view and when it returns its choice."""

    def __init__(self, table_id: str, records: list[Record]) -> None:
        self.table_id = table_id
        self.records = records
        self.count = 0

    def choose_action(self, view: Any) -> Any:
        received = _clock()
        self.count += 1
        choice = view.legal_actions[0]
        # The SDK does not show decision ids to bots; the order of the table's decisions is rebuilt from times.
        self.records.append((self.table_id, -1, view.deal_number, received, _clock()))
        return choice


# --- load: many tables, moves per second ----------------------------------------------------------


async def load_mode(address: str, game: str, tables: int, coalesce: bool = True,
                    many: bool = False, sdk: bool = False) -> dict[str, Any]:
    """Keep ``tables`` tables playing; count the answers written inside a window.

    Handshake on stdin/stdout, so the parent can start the window once every client is up: this prints
    ``ready``, then reads ``go UNTIL START END`` (monotonic ns) and plays until ``UNTIL``. ``many``: every seat
    over one PlayMany call per address (:class:`ManyCall`) instead of a Play stream each. ``sdk``: the seats are
    the SDK's (first-legal bots on ``play_seat_async``, or with ``many`` on one ``SeatMultiplexer``), so the
    bots' CPU is what an SDK client pays; messages are counted only on the multiplexer.
    """
    print("ready", flush=True)
    words = (await asyncio.to_thread(sys.stdin.readline)).split()
    until_ns, window = int(words[1]), (int(words[2]), int(words[3]))
    records: list[Record] = []
    stats = {"tables_started": 0, "tables_finished": 0, "rejections": 0, "errors": 0}
    tally = [0]  # messages received
    sent = [0]  # messages written
    calls: dict[str, ManyCall] = {}  # by address, with ``many``
    mux = SeatMultiplexer() if sdk and many else None

    def many_call(target: str) -> ManyCall:
        if target not in calls or calls[target].ended:
            calls[target] = ManyCall(_channel(target), records, tally, sent, coalesce=coalesce)
        return calls[target]

    async def slot(index: int) -> None:
        channels: dict[str, list[grpc.aio.Channel]] = {}  # by address: the server's, and its shards'

        def stubs_at(target: str) -> list[table_service_pb2_grpc.TableServiceAsyncStub]:
            if target not in channels:
                channels[target] = [_channel(target) for _ in range(4)]
            return [table_service_pb2_grpc.TableServiceStub(c) for c in channels[target]]

        try:
            while _clock() < until_ns:
                created = await create_table(stubs_at(address)[0], game)
                stats["tables_started"] += 1
                target = created.play_address or address  # a sharded server names the table's shard
                try:
                    if sdk:
                        rejections = await _sdk_table(created, play_target(address, created.play_address), records,
                                                      mux)
                    elif many:
                        rejections = await many_call(target).play_table(created)
                    else:
                        sent[0] += len(created.seat_tokens)  # the joins (each answer is counted below)
                        stubs = stubs_at(target)
                        counts = await asyncio.gather(*(
                            play_seat(stubs[t.seat % len(stubs)], t.token, created.table_id, records, tally=tally,
                                      coalesce=coalesce) for t in created.seat_tokens))
                        rejections = sum(r for r, _ in counts)
                except (grpc.aio.AioRpcError, SdkError):
                    stats["errors"] += 1
                    continue
                stats["rejections"] += rejections
                stats["tables_finished"] += 1
        finally:
            for c in (c for group in channels.values() for c in group):
                await c.close(None)

    tasks = [asyncio.ensure_future(slot(i)) for i in range(tables)]
    await asyncio.wait(tasks, timeout=max(0.0, (until_ns - _clock()) / 1e9))
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for call in calls.values():
        await call.close()
    messages: int | None = tally[0]
    if mux is not None:
        await mux.close()
        messages, sent[0] = mux.traffic.responses_received, mux.traffic.requests_sent
    elif sdk:
        messages = None  # the runner's Play streams are not counted
    elif not many:
        sent[0] += len(records)  # one Play message per answer
    start, end = window
    in_window = [r for r in records if start <= r[4] < end]
    return {**stats, "messages": messages, "messages_sent": sent[0] if messages is not None else None,
            "moves_total": len(records), "moves_in_window": len(in_window), "records": in_window}


async def _sdk_table(created: pb.CreateTableResponse, target: str, records: list[Record],
                     mux: SeatMultiplexer | None) -> int:
    """Every seat of ``created`` played by the SDK with a timed first-legal bot: a Play stream each
    (``play_seat_async``), or over ``mux``; the rejections seen."""
    seats = [(_TimedFirstLegal(created.table_id, records), t.token) for t in created.seat_tokens]
    if mux is None:
        played = await asyncio.gather(*(play_seat_async(bot, target, token=token) for bot, token in seats))
    else:
        played = await asyncio.gather(*(mux.play(bot, target, token=token) for bot, token in seats))
    return sum(p.rejections for p in played)


class ManyCall:
    """First-legal bots for many tables' seats over one PlayMany call (the stub-level twin of the SDK's multiplexer).

    One reader answers every decision of a message in ONE ``PlayManyRequest``; tables add their four joins
    as one message. Counts the messages read in ``tally`` and written in ``sent``.
    """

    def __init__(self, channel: grpc.aio.Channel, records: list[Record], tally: list[int], sent: list[int], *,
                 coalesce: bool = True) -> None:
        self.channel = channel
        self.call = table_service_pb2_grpc.TableServiceStub(channel).PlayMany()  # type: ignore[call-arg]
        self.records = records
        self.tally = tally
        self.sent = sent
        self.coalesce = coalesce
        self.numbers = itertools.count(1)
        #: Open conversations: table id, rejections so far, and the future their closing resolves.
        self.seats: dict[int, tuple[str, list[int], asyncio.Future[int]]] = {}
        self.lock = asyncio.Lock()  # one write at a time: the reader's answers and the tables' joins
        self.ended = False
        self.reader = asyncio.ensure_future(self._read())

    async def play_table(self, created: pb.CreateTableResponse) -> int:
        """Join every seat of ``created`` and play until each conversation is closed; the rejections seen.

        Raises:
            grpc.aio.AioRpcError: the call failed, or a conversation closed with an error status.
        """
        loop = asyncio.get_running_loop()
        joins, futures = [], []
        for seat in created.seat_tokens:
            number = next(self.numbers)
            future: asyncio.Future[int] = loop.create_future()
            self.seats[number] = (created.table_id, [0], future)
            futures.append(future)
            join = pb.Join(token=seat.token, accept_batches=True, coalesce_events=self.coalesce)
            joins.append(pb.SeatPlayRequest(stream=number, request=pb.PlayRequest(join=join)))
        await self._write(joins)
        # Every seat's outcome read (not only the first failure), so a call that ends leaves no exception unread.
        outcomes = await asyncio.gather(*futures, return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        return sum(o for o in outcomes if isinstance(o, int))

    async def _write(self, requests: list[pb.SeatPlayRequest]) -> None:
        async with self.lock:
            await self.call.write(pb.PlayManyRequest(requests=requests))
        self.sent[0] += 1

    async def _read(self) -> None:
        failure: grpc.aio.AioRpcError | None = None
        try:
            while True:
                message = await self.call.read()
                arrived = _clock()
                if message is _EOF:
                    break
                assert isinstance(message, pb.PlayManyResponse)
                self.tally[0] += 1
                answers = []
                for item in message.responses:
                    table_id, rejections, future = self.seats[item.stream]
                    if item.WhichOneof("kind") == "closed":
                        del self.seats[item.stream]
                        if item.closed.code:
                            future.set_exception(status_error(item.closed.code, item.closed.message))
                        else:
                            future.set_result(rejections[0])
                        continue
                    response = item.response
                    if response.WhichOneof("kind") == "batch":
                        response = response.batch.messages[-1]
                    kind = response.WhichOneof("kind")
                    if kind == "decision":
                        decision = response.decision
                        answers.append(pb.SeatPlayRequest(stream=item.stream, request=pb.PlayRequest(
                            decide=pb.Decide(decision_id=decision.decision_id,
                                             action_id=decision.legal_actions[0].id))))
                        self.records.append((table_id, int(decision.decision_id), decision.view.deal_number,
                                             arrived, _clock()))
                    elif kind == "rejection":
                        rejections[0] += 1
                if answers:
                    await self._write(answers)
        except grpc.aio.AioRpcError as exc:
            failure = exc
        finally:
            self.ended = True
            why = failure or status_error(grpc.StatusCode.UNAVAILABLE.value[0], "the call ended")
            for _, _, future in self.seats.values():
                if not future.done():
                    future.set_exception(why)
            self.seats.clear()

    async def close(self) -> None:
        self.call.cancel()
        self.reader.cancel()
        await asyncio.gather(self.reader, return_exceptions=True)
        await self.channel.close(None)


# --- hold: idle open tables, memory ------------------------------------------------------------------


async def hold_mode(address: str, game: str, streams_per_channel: int = 200) -> None:
    """Create and join tables on command (``add N``), keep every stream open and idle until ``quit``."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    channels: list[grpc.aio.Channel] = []
    streams = 0
    tasks: list[asyncio.Task[tuple[int, int]]] = []
    control = _channel(address)
    control_stub = table_service_pb2_grpc.TableServiceStub(control)
    total = 0
    joined = [0]
    print("ready", flush=True)

    def on_joined() -> None:
        joined[0] += 1

    def stub_for_stream() -> table_service_pb2_grpc.TableServiceAsyncStub:
        nonlocal streams
        if streams % streams_per_channel == 0:
            channels.append(_channel(address))
        streams += 1
        return table_service_pb2_grpc.TableServiceStub(channels[-1])

    try:
        while True:
            line = (await reader.readline()).decode().split()
            if not line or line[0] == "quit":
                break
            count = int(line[1])
            join = len(line) < 3 or line[2] != "nojoin"
            for _ in range(count):
                created = await create_table(control_stub, game)
                if join:
                    for t in created.seat_tokens:
                        tasks.append(asyncio.ensure_future(
                            play_seat(stub_for_stream(), t.token, created.table_id, [], answer=False,
                                      on_joined=on_joined)))
                total += 1
                # Pace the joins: a burst of thousands of new calls waiting to be taken by the server's
                # event loop would be cancelled by gRPC after 30 s unrequested (a finding, not the figure
                # measured here).
                while streams - joined[0] > MAX_JOINS_IN_FLIGHT:
                    await asyncio.sleep(0.005)
            while joined[0] < streams:  # every seat has its Joined: the server holds the stream
                ended = next((t for t in tasks if t.done()), None)
                if ended is not None:
                    why = ended.exception() or "the server closed it"
                    raise RuntimeError(f"a held stream ended early after {joined[0]} joins: {why}")
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.3)  # the table starts after its last join: let it deal and ask
            print(f"ok {total} {streams}", flush=True)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for ch in [*channels, control]:
            await ch.close(None)


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("bench.server_clients", __doc__)
    sub = parser.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("seat")
    s.add_argument("address")
    s.add_argument("--tables", required=True, help="comma separated table ids")
    s.add_argument("--tokens", required=True, help="comma separated tokens, one per table")
    s.add_argument("--sdk", action="store_true", help="play through tricktable.client_sdk.runner instead of raw stubs")
    s.add_argument("--batches-only", action="store_true", help="join without coalesce_events")
    s.add_argument("--loop", choices=LOOPS, default="asyncio", help="the seat process's event loop")
    ld = sub.add_parser("load")
    ld.add_argument("address")
    ld.add_argument("--game", default="twenty_five")
    ld.add_argument("--tables", type=int, default=20)
    ld.add_argument("--batches-only", action="store_true", help="join without coalesce_events")
    ld.add_argument("--many", action="store_true", help="every seat over one PlayMany call per address")
    ld.add_argument("--sdk", action="store_true", help="the SDK's seats (play_seat_async, or with --many one "
                    "SeatMultiplexer) instead of raw stubs")
    h = sub.add_parser("hold")
    h.add_argument("address")
    h.add_argument("--game", default="twenty_five")
    args = parser.parse_args(argv)
    out: dict[str, Any]
    if args.mode == "seat":
        out = run_on(args.loop, seat_mode(args.address, args.tokens.split(","), args.tables.split(","), args.sdk,
                                          not args.batches_only))
    elif args.mode == "load":
        out = asyncio.run(load_mode(args.address, args.game, args.tables, not args.batches_only, args.many,
                                    args.sdk))
    else:
        asyncio.run(hold_mode(args.address, args.game))
        return 0
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
