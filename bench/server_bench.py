"""Server benchmark: the game server over real gRPC, against the raw gRPC round trip of this machine.

Measures, in one run (every server and every bot in its own process, all on 127.0.0.1):

1. **raw round trip**: a minimal ``grpc.aio`` echo stream (:mod:`bench.server_echo`),
   one message out and its echo back, client and server in two processes;
2. **turnaround of a move**: a first-legal bot writes its answer to a decision
   -> the next bot to act receives its ``DecisionRequest``; four bot processes,
   one per seat, at a real ``tricktable serve`` process; median, p90 and p99,
   and the ratio of the median to the raw round trip's median (goal <= 2x). The
   same is measured with the bots on the SDK's runner (``tricktable.client_sdk.runner``),
   which adds the SDK's decoding and encoding on both ends. Bots join with
   coalesced events (``Join.coalesce_events``); ``turnaround_batched`` is the
   raw bots with batches only (the protocol before coalescing), in the same run;
3. **moves per second**: many concurrent tables of first-legal bots driven from
   client processes, a new table as soon as one ends (so table creation, joins
   and storing records are part of the load); moves answered per second of a
   window after a warm-up, the server's CPU use over it and the messages
   per move (goals: <= 350 us of server CPU and <= 1.5 messages per
   Twenty-Five move at 40 tables); a game named ``GAME:batches`` is played
   by bots with batches only, for the before/after in one run, ``GAME:many``
   over PlayMany, ``GAME:native`` by the native client (:mod:`bench.native_load`,
   PlayMany bots in C++; left out, with the reason, where it can not be built);
4. **open tables held**: first tables nobody joined, then tables with every
   seat joined and idle on its decision (4 open Play streams per table, up to
   5,000 tables by default); the server process's resident memory (``VmRSS``)
   at each step, memory per table from the slope;
5. **the journal's cost per move** (crash survival, :mod:`bench.journal_cost`): CPU
   spent in the journal's writes and commits per move, in process, with one and with
   20 tables moving per loop turn, and its share of the server CPU per move of (3).

``--against REF[,REF]`` measures only a before/after: each commit's server with
its own bots, then this tree's, in alternating rounds (:func:`measure_against`),
so what a change bought is two figures of one run. With ``--throughput`` each
tree keeps one server for the whole run (:func:`measure_throughput`), so the
rounds show each server a window older: a before/after of how a server ages.

``--metrics-cost`` measures only what the metrics cost a move: the throughput run on a server with
metrics and on one with ``--no-metrics``, in alternating rounds (:mod:`bench.metrics_cost`).

Timestamps that cross processes are CLOCK_MONOTONIC (``time.monotonic_ns``),
one clock for the whole machine. Results go to ``bench/results/server.json``
and a table on stdout. Run ``python -m bench.server_bench`` (``--quick`` for a
smoke-sized run); :func:`run` returns the same dict for ``bench.run``.
"""

from __future__ import annotations

import bisect
import importlib.util
import itertools
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, replace
from importlib.metadata import version
from pathlib import Path
from typing import IO, Any

import grpc

from bench import cli, journal_cost, native_load
from tricktable.server.shard_ids import shard_of_table

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results" / "server.json"
GOAL_TURNAROUND_RATIO = 2.0
GOAL_CPU_US_PER_MOVE = 350.0
GOAL_MESSAGES_PER_MOVE = 1.5
#: The game of the CPU and message goals.
GOAL_GAME = "twenty_five"
#: Suffix of a throughput run whose bots join with batches only (no coalesced events).
BATCHES_ONLY = ":batches"
#: Suffix of a throughput run whose bots play every seat of a client process over one PlayMany call per address.
PLAY_MANY = ":many"
#: Suffix of a throughput run whose bots are the SDK's (first-legal bots on its runner, or its multiplexer when
#: followed by :data:`PLAY_MANY`): the bots' CPU is what an SDK client pays.
SDK = ":sdk"
#: Suffix of a throughput run whose bots are the native client (:mod:`bench.native_load`, C++ on grpc++): every
#: seat of a client process over one PlayMany call per address, as with :data:`PLAY_MANY`, at a few us of CPU a move.
NATIVE = ":native"
#: The client flag of each suffix (``--native`` picks the client program: see :func:`_load_client`).
_LOAD_FLAGS = {BATCHES_ONLY: "--batches-only", PLAY_MANY: "--many", SDK: "--sdk", NATIVE: "--native"}
#: Seconds a child process gets to print its first line.
START_TIMEOUT = 60.0
#: Untimed round trips before the timed ones (connection set-up, first allocations).
PING_WARMUP = 200


@dataclass(frozen=True, slots=True, kw_only=True)
class Sizes:
    """How much of each measurement a run does."""

    #: Game of the turnaround and memory runs (4 players, default options).
    game: str = "twenty_five"
    #: Timed echo round trips per payload size, and the payload sizes (bytes).
    ping_count: int = 3000
    ping_sizes: tuple[int, ...] = (64, 1024)
    #: Latency is measured in this many alternating rounds (raw round trip, then turnarounds).
    rounds: int = 4
    #: Tables played one after another by the four seat processes (raw bots; SDK bots, 0 skips).
    turnaround_tables: int = 8
    sdk_turnaround_tables: int = 4
    batched_turnaround_tables: int = 4
    #: Throughput: games, concurrent tables, client processes, warm-up and measured seconds.
    load_games: tuple[str, ...] = ("twenty_five", "twenty_five" + PLAY_MANY, "twenty_five" + NATIVE,
                                   "twenty_five" + BATCHES_ONLY, "all_fives")
    load_tables: int = 40
    load_clients: int = 2
    load_warmup: float = 3.0
    load_seconds: float = 10.0
    #: Journal cost (``bench.journal_cost``): tables played per round, and alternating rounds with it on and off.
    journal_games: int = 20
    journal_rounds: int = 5
    #: Event loops whose throughput is compared, each a fresh server (``TRICKTABLE_LOOP``).
    loops: tuple[str, ...] = ("asyncio", "uvloop")
    #: Memory: tables nobody joined, then tables every seat joined: totals at each step.
    hold_waiting_steps: tuple[int, ...] = (100, 1100)
    hold_steps: tuple[int, ...] = (100, 1000, 3000, 5000)


FULL = Sizes()
QUICK = Sizes(ping_count=200, ping_sizes=(64,), rounds=1, turnaround_tables=1, sdk_turnaround_tables=1,
              batched_turnaround_tables=1,
              load_games=("twenty_five",), load_tables=4, load_clients=1, load_warmup=0.5, load_seconds=1.5,
              hold_waiting_steps=(5, 15), hold_steps=(5, 15), journal_games=2, journal_rounds=1)


# --- processes ---------------------------------------------------------------------------------


def _python(*args: str) -> list[str]:
    return [sys.executable, *args]


def _env(root: Path = ROOT) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH", "")]))
    return env


def _first_line(process: subprocess.Popen[str], prefix: str) -> str:
    """The first stdout line of ``process`` (which must start with ``prefix``), waiting at most START_TIMEOUT."""
    assert process.stdout is not None
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line.startswith(prefix):
            return line.strip()
        if not line and process.poll() is not None:
            break
    raise RuntimeError(f"{' '.join(map(str, process.args))!r} did not print {prefix!r} (exit {process.poll()})")  # type: ignore[arg-type]


def _stop(process: subprocess.Popen[str], grace: float = 20.0) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass(slots=True)
class ServerProcess:
    """A ``tricktable serve`` process on a free port, with its pid for /proc readings."""

    process: subprocess.Popen[str]
    address: str
    log: IO[str]
    #: Every process of the server: with ``--shards``, the child shards too.
    shard_pids: tuple[int, ...] = ()

    @property
    def pid(self) -> int:
        return self.process.pid

    def rss_kib(self) -> int:
        """Resident memory of the server process (VmRSS), KiB."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS in /proc status")

    def cpu_seconds(self) -> float:
        """User plus system CPU time of the server's processes (all their threads) so far."""
        return sum(_cpu_seconds(pid) for pid in self.shard_pids or (self.pid,))

    def threads(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/task"))


def stat_cpu_seconds(stat: Path) -> float:
    """User plus system CPU seconds of a /proc ``stat`` file (a process's counts its ended threads too)."""
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    return stat_cpu_seconds(Path(f"/proc/{pid}/stat"))


@contextmanager
def game_server(data_dir: Path, *extra: str, env: dict[str, str] | None = None,
                root: Path = ROOT) -> Iterator[ServerProcess]:
    """``tricktable serve --port 0`` in its own process (WARNING logs, to a file in ``data_dir``; ``env``: more
    environment variables; ``root``: the source tree it runs, another commit's for a before/after)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    log = (data_dir / "server.log").open("w")
    args = _python("-m", "tricktable.cli.main", "serve", "--port", "0", "--no-http", "--data-dir", str(data_dir),
                   "--log-level", "WARNING",
                   "--json-logs", *extra)
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log, text=True, cwd=root,
                               env={**_env(root), **(env or {})})
    try:
        pids = []
        while (line := _first_line(process, "")).startswith("shard "):  # shard K pid P listening on ADDR
            pids.append(int(line.split()[3]))
        if not line.startswith("listening on "):
            raise RuntimeError(f"the server printed {line!r} instead of its address")
        yield ServerProcess(process=process, address=line.removeprefix("listening on ").strip(), log=log,
                            shard_pids=tuple(pids))
    finally:
        _stop(process)
        log.close()


@contextmanager
def echo_server() -> Iterator[tuple[str, int]]:
    """The raw echo server (:mod:`bench.server_echo`) in its own process; yields its address and pid."""
    process = subprocess.Popen(_python("-m", "bench.server_echo", "serve"), stdout=subprocess.PIPE, text=True,
                               cwd=ROOT, env=_env())
    try:
        yield _first_line(process, "listening on ").removeprefix("listening on "), process.pid
    finally:
        _stop(process, 5.0)


def _client(*args: str, stdin: int | None = None, root: Path = ROOT) -> subprocess.Popen[str]:
    return subprocess.Popen(_python("-m", "bench.server_clients", *args), stdin=stdin, stdout=subprocess.PIPE,
                            text=True, cwd=root, env=_env(root))


@contextmanager
def _reaped(clients: list[subprocess.Popen[str]]) -> Iterator[None]:
    """Kill whatever client is still running when the block ends (one failed client must not hang the others)."""
    try:
        yield
    finally:
        for c in clients:
            if c.poll() is None:
                c.kill()
                c.wait()


def _result_of(process: subprocess.Popen[str], timeout: float = 300.0) -> dict[str, Any]:
    out, _ = process.communicate(timeout=timeout)
    if process.returncode != 0:
        raise RuntimeError(f"client {process.args!r} exited {process.returncode}")
    last = [line for line in out.splitlines() if line.startswith("{")]
    result: dict[str, Any] = json.loads(last[-1])
    return result


# --- statistics ---------------------------------------------------------------------------------------


def summary(samples_us: Sequence[float]) -> dict[str, Any]:
    """Count, median, p90, p99, mean and min of samples in microseconds (rounded to 0.1 us)."""
    if not samples_us:
        return {"n": 0}
    ordered = sorted(samples_us)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))], 1)

    return {"n": len(ordered), "median_us": round(statistics.median(ordered), 1), "p90_us": pct(90),
            "p99_us": pct(99), "mean_us": round(statistics.fmean(ordered), 1), "min_us": round(ordered[0], 1)}


def turnarounds(records: Sequence[Sequence[Any]],
                arrivals: Sequence[dict[str, list[int]] | None] | None = None) -> dict[str, list[float]]:
    """Turnaround samples (us) from answered decisions of every seat: per table, in time order, the time from
    one decision's answer being written to the next decision being received.

    Split into ``within_deal`` (the next decision is in the same deal) and ``next_deal`` (the answer ended
    a deal: scoring and the next deal's dealing are in between). With ``arrivals`` (per seat process, by
    table: when each message arrived; records then carry the process index last), a within-deal turnaround
    is also split at the first message the next seat gets after the answer: ``first_message`` (answer ->
    that message) and ``decision_after_first`` (that message -> the decision request).
    """
    by_table: dict[str, list[Sequence[Any]]] = {}
    for r in records:
        by_table.setdefault(str(r[0]), []).append(r)
    out: dict[str, list[float]] = {"all": [], "within_deal": [], "next_deal": [], "first_message": [],
                                   "decision_after_first": []}
    for table, rows in by_table.items():
        rows.sort(key=lambda r: r[3])
        for before, after in itertools.pairwise(rows):
            if before[1] >= 0 and after[1] != before[1] + 1:
                continue  # a decision in between was not answered by a bot (timed out): not a turnaround
            gap = (after[3] - before[4]) / 1000
            if gap <= 0:
                raise RuntimeError(f"decisions overlap in table {before[0]}: clocks or pairing are wrong")
            out["all"].append(gap)
            within = after[2] == before[2]
            out["within_deal" if within else "next_deal"].append(gap)
            seen = arrivals[after[5]] if arrivals is not None and len(after) > 5 else None
            if within and seen is not None:
                times = seen.get(table, [])
                first = times[bisect.bisect_right(times, before[4])] if times and times[-1] > before[4] else None
                if first is not None and first <= after[3]:
                    out["first_message"].append((first - before[4]) / 1000)
                    out["decision_after_first"].append((after[3] - first) / 1000)
    return out


# --- measurements -------------------------------------------------------------------------------------


def ping(address: str, pid: int, size: int, count: int, loop: str = "asyncio") -> tuple[list[float], float]:
    """Round trips (us) of ``count`` ``size``-byte echoes from a new client process (its event loop ``loop``), and
    the echo server's CPU seconds per round trip (one message in, one out: the cost of a message in grpc.aio here)."""
    client = subprocess.Popen(
        _python("-m", "bench.server_echo", "ping", address, "--count", str(count), "--size", str(size),
                "--warmup", str(PING_WARMUP), *_loop_flag(loop)), stdout=subprocess.PIPE, text=True, cwd=ROOT,
        env=_env())
    cpu0 = _cpu_seconds(pid)
    result = _result_of(client)
    cpu = _cpu_seconds(pid) - cpu0
    return result["round_trips_us"], cpu / (count + PING_WARMUP)


def _create_tables(address: str, game: str, count: int) -> list[tuple[str, list[str]]]:
    from tricktable.protocol import convert
    from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
    from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        tables = []
        for _ in range(count):
            created = stub.CreateTable(pb.CreateTableRequest(game=convert.game_to_proto(game)))
            tables.append((created.table_id, [t.token for t in created.seat_tokens]))
    return tables


def _loop_flag(loop: str) -> list[str]:
    """A client's ``--loop`` flag: none for asyncio, so an older tree's clients (without the flag) run too."""
    return [] if loop == "asyncio" else ["--loop", loop]


def turnaround_round(server: ServerProcess, game: str, tables: int, *, sdk: bool,
                     coalesce: bool = True, root: Path = ROOT, loop: str = "asyncio") -> dict[str, Any]:
    """Tables played one after another by one process per seat: every move's turnaround samples, the messages
    the seats received, and the server's CPU seconds (table set-up included); ``root``: the bots' source tree,
    ``loop``: the bots' event loop."""
    created = _create_tables(server.address, game, tables)
    seats = len(created[0][1])
    ids = ",".join(t for t, _ in created)
    cpu0 = server.cpu_seconds()
    # "--tokens=" because a token may begin with "-".
    clients = [_client("seat", server.address, f"--tables={ids}", "--tokens=" + ",".join(tok[s] for _, tok in created),
                       *(["--sdk"] if sdk else []), *([] if coalesce else ["--batches-only"]), *_loop_flag(loop),
                       root=root)
               for s in range(seats)]
    with _reaped(clients):
        results = [_result_of(c) for c in clients]
    cpu = server.cpu_seconds() - cpu0
    records = [(*r, i) for i, result in enumerate(results) for r in result["records"]]
    samples = turnarounds(records, [r["arrivals"] for r in results])
    return {"samples": samples, "moves": len(records), "server_cpu": cpu, "seats": seats,
            "messages": None if sdk else sum(r["messages"] for r in results),
            "rejections": sum(r["rejections"] for r in results)}


def measure_latency(sizes: Sizes, server: ServerProcess) -> dict[str, Any]:
    """The raw round trip and the move turnaround (raw bots, SDK bots), measured in alternating rounds.

    Why rounds: on a shared machine the load changes from second to second; each round's turnaround is
    divided by the same round's raw round trip, and the median of those ratios is reported beside the
    ratio of the pooled medians.
    """
    rounds = max(1, sizes.rounds)
    raw: dict[int, list[float]] = {size: [] for size in sizes.ping_sizes}
    raw_cpu: dict[int, list[float]] = {size: [] for size in sizes.ping_sizes}
    kinds = {"turnaround": (sizes.turnaround_tables, False, True),
             "turnaround_sdk": (sizes.sdk_turnaround_tables, True, True),
             "turnaround_batched": (sizes.batched_turnaround_tables, False, False)}
    kinds = {k: v for k, v in kinds.items() if v[0] > 0}
    played: dict[str, list[dict[str, Any]]] = {k: [] for k in kinds}
    round_ratios: dict[str, list[float]] = {k: [] for k in kinds}
    with echo_server() as (address, pid):
        for r in range(rounds):
            round_raw = None
            for size in sizes.ping_sizes:
                samples, cpu = ping(address, pid, size, max(1, sizes.ping_count // rounds))
                raw[size] += samples
                raw_cpu[size].append(cpu)
                if round_raw is None:
                    round_raw = statistics.median(samples)
            for key, (tables, sdk, coalesce) in kinds.items():
                result = turnaround_round(server, sizes.game, max(1, tables // rounds + (r < tables % rounds)),
                                          sdk=sdk, coalesce=coalesce)
                played[key].append(result)
                if result["samples"]["all"] and round_raw:
                    round_ratios[key].append(statistics.median(result["samples"]["all"]) / round_raw)
    out: dict[str, Any] = {"raw_round_trip": {
        f"{size}B": {**summary(raw[size]),
                     "server_cpu_us_per_round_trip": round(statistics.median(raw_cpu[size]) * 1e6, 1)}
        for size in sizes.ping_sizes}}
    for key, results in played.items():
        moves = sum(x["moves"] for x in results)
        messages = None if kinds[key][1] else sum(x["messages"] for x in results)
        pooled = {part: [v for x in results for v in x["samples"][part]]
                  for part in ("all", "within_deal", "next_deal", "first_message", "decision_after_first")}
        out[key] = {
            "tables": kinds[key][0], "seats": results[0]["seats"], "moves": moves, "rounds": rounds,
            "messages_to_seats": messages,
            "messages_per_move": round(messages / moves, 2) if messages and moves else None,
            "server_cpu_us_per_move": round(sum(x["server_cpu"] for x in results) / moves * 1e6, 1) if moves else None,
            "rejections": sum(x["rejections"] for x in results),
            "turnaround": summary(pooled["all"]), "within_deal": summary(pooled["within_deal"]),
            "next_deal": summary(pooled["next_deal"]),
            "within_deal_first_message": summary(pooled["first_message"]),
            "within_deal_decision_after_first_message": summary(pooled["decision_after_first"]),
            "ratio_to_raw_by_round": [round(x, 2) for x in round_ratios[key]],
        }
    return out


def measure_load(server: ServerProcess, sizes: Sizes, game: str, root: Path = ROOT,
                 on_window: Callable[[bool], None] | None = None) -> dict[str, Any]:
    """Moves per second with ``load_tables`` tables kept playing by ``load_clients`` client processes.

    ``game`` may end in :data:`BATCHES_ONLY` (its bots then join without coalesced events) or :data:`PLAY_MANY`
    (each client process plays all its seats over one PlayMany call per address). ``root``: the bots'
    source tree. ``on_window`` is called with True as the measured window opens and False as it closes, beside
    this run's own CPU readings (:mod:`bench.shard_bench` reads every core there).
    """
    per_client = [sizes.load_tables // sizes.load_clients + (1 if i < sizes.load_tables % sizes.load_clients else 0)
                  for i in range(sizes.load_clients)]
    name, flags = load_game(game)
    clients = [_load_client(root, server.address, "--game", name, "--tables", str(n), *flags) for n in per_client]
    with _reaped(clients):
        return _drive_load(server, sizes, game, clients, on_window or (lambda opening: None))


def _load_client(root: Path, *args: str) -> subprocess.Popen[str]:
    """A throughput client process: ``bench.server_clients load ARGS``, or with ``--native`` among them the native
    client (:mod:`bench.native_load`, built if needed), which takes the same arguments, handshake and result.

    Raises:
        bench.native_load.NativeLoadUnavailableError: a native run on a machine that can not build the client
            (:func:`runnable_load_games` leaves such runs out first).
    """
    if _LOAD_FLAGS[NATIVE] in args:
        program = [str(native_load.build()), *(a for a in args if a != _LOAD_FLAGS[NATIVE])]
        return subprocess.Popen(program, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    return _client("load", *args, stdin=subprocess.PIPE, root=root)


def runnable_load_games(games: Sequence[str]) -> tuple[tuple[str, ...], dict[str, str]]:
    """The throughput runs of ``games`` this machine can drive, and why each other one is left out (a
    :data:`NATIVE` run where the native client can not be built: its reason, said once per run of the bench)."""
    why = native_load.unavailable() if any(NATIVE in game for game in games) else None
    skipped = {game: why for game in games if why is not None and NATIVE in game}
    return tuple(game for game in games if game not in skipped), skipped


def load_game(game: str) -> tuple[str, list[str]]:
    """The game of a throughput run's name and the client flags of its suffixes (``twenty_five:sdk:many``)."""
    flags: list[str] = []
    while suffix := next((x for x in _LOAD_FLAGS if game.endswith(x)), None):
        game = game.removesuffix(suffix)
        flags.insert(0, _LOAD_FLAGS[suffix])
    return game, flags


def _drive_load(server: ServerProcess, sizes: Sizes, game: str, clients: list[subprocess.Popen[str]],
                on_window: Callable[[bool], None]) -> dict[str, Any]:
    for c in clients:
        _first_line(c, "ready")
    now = time.monotonic_ns()
    start = now + int(sizes.load_warmup * 1e9)
    end = start + int(sizes.load_seconds * 1e9)
    for c in clients:
        assert c.stdin is not None
        c.stdin.write(f"go {end} {start} {end}\n")
        c.stdin.flush()
    time.sleep(max(0.0, (start - time.monotonic_ns()) / 1e9))
    on_window(True)
    cpu0 = server.cpu_seconds()
    client_cpu0 = [_cpu_seconds(c.pid) for c in clients]
    load0 = os.getloadavg()[0]
    rss0 = server.rss_kib()
    time.sleep(max(0.0, (end - time.monotonic_ns()) / 1e9))
    cpu1 = server.cpu_seconds()
    client_cpu1 = [_cpu_seconds(c.pid) for c in clients]
    rss1 = server.rss_kib()
    on_window(False)
    results = [_result_of(c) for c in clients]
    moves = sum(r["moves_in_window"] for r in results)
    samples = turnarounds([rec for r in results for rec in r["records"]])
    server_cpu = cpu1 - cpu0
    return {
        "game": game, "tables": sizes.load_tables, "client_processes": sizes.load_clients,
        "window_seconds": sizes.load_seconds, "moves_in_window": moves,
        "moves_per_second": round(moves / sizes.load_seconds),
        "server_cpu_cores": round(server_cpu / sizes.load_seconds, 2),
        "server_cpu_us_per_move": round(server_cpu / moves * 1e6, 1) if moves else None,
        # What one server process would sustain with a whole core to itself (it runs one event loop, so it
        # uses about one core): less sensitive than moves_per_second to other load on a shared machine.
        "projected_moves_per_second_one_core": round(moves / server_cpu) if moves and server_cpu else None,
        "client_cpu_cores": [round((b - a) / sizes.load_seconds, 2) for a, b in zip(client_cpu0, client_cpu1,
                                                                                     strict=True)],
        "client_cpu_us_per_move": round((sum(client_cpu1) - sum(client_cpu0)) / moves * 1e6, 1) if moves else None,
        "server_threads": server.threads(),
        "tables_finished": sum(r["tables_finished"] for r in results),
        "messages_per_move": _per_move(results, "messages"),
        # Messages the bots wrote (joins and answers; one PlayMany message carries several seats').
        "messages_sent_per_move": _per_move(results, "messages_sent"),
        "rejections": sum(r["rejections"] for r in results), "errors": sum(r["errors"] for r in results),
        "turnaround_under_load": summary(samples["all"]),
        # A sharded server's table ids name their shard (an unsharded server is shard 0): how evenly placement
        # spread the moves.
        "moves_by_shard": dict(sorted(Counter(str(shard_of_table(r[0]) or 0) for rec in results
                                              for r in rec["records"]).items())),
        "load_average_1min_at_start": round(load0, 2),
        # The (first) server process's resident memory as the window opens and closes: tables are created and
        # finished all the time, so over rounds on one server (--throughput) it must level off, not grow.
        "server_rss_mib_at_start": round(rss0 / 1024, 1), "server_rss_mib_at_end": round(rss1 / 1024, 1),
        "server_pid": server.pid,
    }


def _per_move(results: list[dict[str, Any]], key: str) -> float | None:
    """A count the clients report, per move they answered (None when a client did not count it)."""
    if any(r[key] is None for r in results):
        return None
    counted: int = sum(r[key] for r in results)
    moves: int = sum(r["moves_total"] for r in results)
    return round(counted / max(1, moves), 2)


def measure_throughput(folder: Path, sizes: Sizes, rounds: int, refs: Sequence[str] = ()) -> dict[str, Any]:
    """Only the throughput rows of ``sizes.load_games``, each measured once per round in alternating order on one
    server; each figure is the median of its rounds, and PlayMany over Play is taken round by round.

    Why: a quick, bounded before/after of the transports (a Play stream per seat against PlayMany) while the
    machine is shared, without the latency, memory and journal runs. A run this machine can not drive is left
    out with its reason (``skipped``). Each round's figures are kept in order (``by_round``): the same server
    a window older each time, so they show what its age does to it. With ``refs``, each commit's server (with its
    own bots) runs beside this tree's, one server per tree for the whole run and the trees in alternating order
    each round (``refs``: their rows): what a change does to an ageing server, measured in one run.
    """
    from bench.trees import commit_titles, trees

    games, skipped = runnable_load_games(sizes.load_games)
    sizes = replace(sizes, load_games=games)
    measured = trees(refs, folder / "trees") if refs else {"tree": ROOT}
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {name: {game: [] for game in games} for name in measured}
    ratios: dict[str, list[dict[str, dict[str, float]]]] = {name: [] for name in measured}
    at_start = machine()
    with ExitStack() as servers:
        server = {name: servers.enter_context(game_server(folder / f"throughput-{index}", "--join-ms", "600000",
                                                          root=root))
                  for index, (name, root) in enumerate(measured.items())}
        for index in range(rounds):
            forward = index % 2 == 0
            for name in measured if forward else reversed(measured):
                load = {game: measure_load(server[name], sizes, game, root=measured[name])
                        for game in (games if forward else reversed(games))}
                for game, entry in load.items():
                    runs[name][game].append(entry)
                ratios[name].append(play_many_over_play(load))
    report = {"measured_at": cli.measured_at(), "machine": at_start, "rounds": rounds,
              "tables": sizes.load_tables, "client_processes": sizes.load_clients,
              "window_seconds": sizes.load_seconds, **_throughput_rows(runs["tree"], ratios["tree"]),
              "skipped": skipped, "load_average_at_end": [round(x, 2) for x in os.getloadavg()]}
    if refs:
        report["commits"] = commit_titles(refs)
        report["refs"] = {ref: _throughput_rows(runs[ref], ratios[ref]) for ref in refs}
    return report


def _throughput_rows(runs: dict[str, list[dict[str, Any]]],
                     ratios: list[dict[str, dict[str, float]]]) -> dict[str, Any]:
    """One server's rows of :func:`measure_throughput`: each game's medians and rounds, and PlayMany over Play."""
    keys = ("moves_per_second", "server_cpu_us_per_move", "client_cpu_us_per_move", "messages_per_move",
            "messages_sent_per_move", "server_cpu_cores", "load_average_1min_at_start", "server_rss_mib_at_end")
    rows = {game: {key: _median_or_none([e[key] for e in entries]) for key in keys}
            | {"errors": sum(e["errors"] for e in entries),
               "by_round": [{k: e[k] for k in (*keys, "server_pid")} for e in entries]}
            for game, entries in runs.items()}
    by_round = {base: {key: [r[base][key] for r in ratios if key in r[base]] for key in ratios[0][base]}
                for base in (ratios[0] if ratios else {})}
    return {"rows": rows,
            "play_many_over_play": {base: {key: round(statistics.median(v), 2) for key, v in pairs.items()}
                                    for base, pairs in by_round.items()},
            "play_many_over_play_by_round": by_round}


def _median_or_none(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(statistics.median(known), 2) if known else None


def render_throughput(report: dict[str, Any]) -> str:
    """The table of :func:`measure_throughput`: medians of the rounds, each server's windows in order of its age,
    then PlayMany over Play (this tree's server first, then each ref's)."""
    lines = [f"throughput only, {report['rounds']} alternating rounds, {report['tables']} tables, "
             f"{report['client_processes']} client processes, {report['window_seconds']:g} s windows; load average "
             f"{report['machine']['load_average']} at the start, {report['load_average_at_end']} at the end"]
    for name, server in {"tree": report, **report.get("refs", {})}.items():
        if "refs" in report:
            lines.append(f"{name}'s server: {report['commits'].get(name, '(working tree)')[:90]}")
        lines.append("{:<24} {:>8} {:>9} {:>10} {:>10} {:>11} {:>7}".format(
            "row (median of rounds)", "moves/s", "srv cores", "srv us/mv", "bots us/mv", "msg in/out", "errors"))
        for game, row in server["rows"].items():
            lines.append("{:<24} {:>8} {:>9} {:>10} {:>10} {:>11} {:>7}".format(
                game, f"{row['moves_per_second']:,.0f}", row["server_cpu_cores"], row["server_cpu_us_per_move"],
                row["client_cpu_us_per_move"], f"{row['messages_per_move']}/{row['messages_sent_per_move']}",
                row["errors"]))
        for game, row in server["rows"].items():
            lines.append(f"each round's {game} window (one server, older each time): server CPU "
                         f"{[r['server_cpu_us_per_move'] for r in row['by_round']]} us a move, RSS at its end "
                         f"{[r['server_rss_mib_at_end'] for r in row['by_round']]} MiB")
        for base, pairs in server["play_many_over_play"].items():
            for key, value in pairs.items():
                lines.append(f"PlayMany / Play ({base}), {key}: x{value} "
                             f"(rounds {server['play_many_over_play_by_round'][base][key]})")
    lines += [f"skipped {game}: {why}" for game, why in report.get("skipped", {}).items()]
    return "\n".join(lines)


def measure_loops(folder: Path, sizes: Sizes) -> dict[str, Any]:
    """The throughput run (Twenty-Five, coalesced) on a fresh server per event loop of ``sizes.loops``.

    Raises:
        RuntimeError: uvloop is asked for but not installed (``make bench`` installs the ``fast`` extra).
    """
    from tricktable.server.runtime import ENV_LOOP

    out: dict[str, Any] = {}
    for loop in sizes.loops:
        if loop == "uvloop" and importlib.util.find_spec("uvloop") is None:
            raise RuntimeError("uvloop is not installed: pip install -e '.[fast]' (or leave it out of Sizes.loops)")
        with game_server(folder / f"loop-{loop}", "--join-ms", "600000", env={ENV_LOOP: loop}) as server:
            out[loop] = measure_load(server, sizes, GOAL_GAME)
    return out


def measure_against(folder: Path, sizes: Sizes, refs: Sequence[str], rounds: int = 2,
                    game: str = GOAL_GAME) -> dict[str, Any]:
    """Before and after in one run: each commit of ``refs`` (``git archive``) and this tree, in alternating rounds.

    Each round measures the raw round trip, then for each tree a fresh server of that tree with that tree's bots
    (so an SDK change counts too): the throughput run (``game``, a throughput run's name such as
    ``twenty_five:many``; Twenty-Five on Play, coalesced, by default) and the turnaround with raw and
    with SDK bots. Each figure is the median over the rounds, each turnaround also as a ratio to its round's
    raw round trip.
    """
    from bench.trees import commit_titles, trees

    measured = trees(refs, folder / "trees")
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in measured}
    with echo_server() as (address, pid):
        for r in range(rounds):
            raw = statistics.median(ping(address, pid, sizes.ping_sizes[0], max(1, sizes.ping_count // rounds))[0])
            for name, root in measured.items():
                with game_server(folder / f"against-{name.replace('/', '_')}-{r}", "--join-ms", "600000",
                                 root=root) as server:
                    load = measure_load(server, sizes, game, root=root)
                    entry: dict[str, Any] = {"raw_us": raw, "cpu_us_per_move": load["server_cpu_us_per_move"],
                                             "moves_per_second": load["moves_per_second"],
                                             "messages_per_move": load["messages_per_move"]}
                    for key, sdk in (("turnaround", False), ("turnaround_sdk", True)):
                        played = turnaround_round(server, sizes.game, max(1, sizes.sdk_turnaround_tables // rounds),
                                                  sdk=sdk, root=root)
                        median = statistics.median(played["samples"]["all"])
                        entry[f"{key}_us"] = round(median, 1)
                        entry[f"{key}_over_raw"] = round(median / raw, 2)
                    runs[name].append(entry)
    first = next(iter(runs))
    out: dict[str, Any] = {"game": game, "rounds": rounds, "tables": sizes.load_tables,
                           "load_average": list(os.getloadavg()),
                           "commits": commit_titles(refs), "trees": {}}
    for name, entries in runs.items():
        row = {key: round(statistics.median(e[key] for e in entries), 2) for key in entries[0]}
        row["by_round"] = entries
        out["trees"][name] = row
    for row in out["trees"].values():
        row["ratios_to_" + first] = {key: round(row[key] / out["trees"][first][key], 3)
                                     for key in ("cpu_us_per_move", "moves_per_second", "turnaround_over_raw",
                                                 "turnaround_sdk_over_raw") if out["trees"][first][key]}
    return out


def measure_sdk_bots(folder: Path, sizes: Sizes, refs: Sequence[str], rounds: int = 6, tables: int = 2,
                     loops: Sequence[str] = ("asyncio",)) -> dict[str, Any]:
    """The SDK's own share of the turnaround: SDK bots of each commit of ``refs`` and of this tree, against ONE
    server of this tree, in alternating rounds (each round starting one row later), beside the raw round trip and
    the stub bots of each round.

    Why one server: a change to the SDK is then the only difference between the rows, where ``--against``
    also changes the server and starts a fresh one per tree. ``loops``: the event loops of this tree's bots and
    of the echo client (the refs' bots run on asyncio), so a loop's gain is read against the raw round trip
    measured on that same loop. Each round plays ``tables`` tables per row; figures are medians over the
    pooled moves and over the rounds' ratios.
    """
    from bench.trees import commit_titles, trees

    measured = trees(refs, folder / "trees")
    rows: list[tuple[str, Path, bool, str]] = [(f"stub bots, {loop}", ROOT, False, loop) for loop in loops]
    rows += [(f"SDK bots {name}", root, True, "asyncio") for name, root in measured.items() if name != "tree"]
    rows += [(f"SDK bots tree, {loop}", ROOT, True, loop) for loop in loops]
    samples: dict[str, list[float]] = {name: [] for name, *_ in rows}
    by_round: dict[str, list[float]] = {name: [] for name, *_ in rows}
    raw: dict[str, list[float]] = {loop: [] for loop in loops}
    loads = [os.getloadavg()[0]]
    with echo_server() as (address, pid), game_server(folder / "sdk-bots", "--join-ms", "600000") as server:
        for r in range(rounds):
            for loop in loops:
                raw[loop] += ping(address, pid, sizes.ping_sizes[0], max(1, sizes.ping_count // rounds), loop)[0]
            turn = r % len(rows)  # each row takes every place in the order in turn: no row is always last
            for name, root, sdk, loop in rows[turn:] + rows[:turn]:
                played = turnaround_round(server, sizes.game, tables, sdk=sdk, root=root, loop=loop)["samples"]["all"]
                samples[name] += played
                by_round[name].append(round(statistics.median(played), 1))
            loads.append(os.getloadavg()[0])
    out: dict[str, Any] = {"rounds": rounds, "tables_per_round": tables, "game": sizes.game,
                           "load_average_1min": [round(x, 2) for x in loads], "commits": commit_titles(refs),
                           "raw_us": {loop: round(statistics.median(v), 1) for loop, v in raw.items()}, "rows": {}}
    for name, _, _, loop in rows:
        median = statistics.median(samples[name])
        out["rows"][name] = {"moves": len(samples[name]), "median_us": round(median, 1),
                             "over_raw": round(median / out["raw_us"][loop], 2), "loop": loop,
                             "median_us_by_round": by_round[name]}
    return out


def render_sdk_bots(report: dict[str, Any]) -> str:
    """The table of :func:`measure_sdk_bots`."""
    lines = [f"SDK bots against one server, {report['rounds']} alternating rounds of {report['tables_per_round']} "
             f"tables, load average (1 min) {report['load_average_1min']}",
             "raw round trip " + ", ".join(f"{loop} {us} us" for loop, us in report["raw_us"].items()),
             "{:<28} {:>6} {:>9} {:>7}  {}".format("bots", "moves", "median", "x raw", "median by round")]
    for name, row in report["rows"].items():
        lines.append("{:<28} {:>6} {:>9} {:>7}  {}".format(name, row["moves"], row["median_us"], row["over_raw"],
                                                           row["median_us_by_round"]))
    lines += [f"{ref}: {title}" for ref, title in report["commits"].items()]
    return "\n".join(lines)


def render_against(report: dict[str, Any]) -> str:
    """The before/after table of :func:`measure_against`."""
    lines = [f"before/after, {report['rounds']} alternating rounds, {report['tables']} tables of "
             f"{report.get('game', GOAL_GAME)}, load average "
             f"{[round(x, 1) for x in report['load_average']]}",
             "{:<10} {:>8} {:>8} {:>9} {:>11} {:>11}  {}".format(
                 "tree", "us/move", "moves/s", "msg/move", "raw bots x", "SDK bots x", "commit")]
    for name, row in report["trees"].items():
        lines.append("{:<10} {:>8} {:>8} {:>9} {:>11} {:>11}  {}".format(
            name, row["cpu_us_per_move"], row["moves_per_second"], row["messages_per_move"],
            row["turnaround_over_raw"], row["turnaround_sdk_over_raw"],
            report["commits"].get(name, "(working tree)")[:70]))
    return "\n".join(lines)


def measure_hold(data_dir: Path, sizes: Sizes) -> dict[str, Any]:
    """Open tables in one server process: the server's RSS at each step and the memory per table.

    First tables nobody has joined (waiting: the match, tokens, timers), then tables with every seat
    joined and idle on its first decision (4 open Play streams each, the usual state of a live table);
    each figure per table is the slope between its first and last step.
    """
    limits = ("--max-tables", "1000000", "--max-tables-per-client", "1000000", "--max-streams-per-client",
              "10000000", "--decision-ms", "3600000", "--bank-ms", "0", "--join-ms", "86400000",
              "--grace-ms", "3600000")
    waiting: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    with game_server(data_dir, *limits) as server:
        time.sleep(0.5)
        base = server.rss_kib()
        client = _client("hold", server.address, "--game", sizes.game, stdin=subprocess.PIPE)
        assert client.stdin is not None and client.stdout is not None
        _first_line(client, "ready")

        def add(count: int, join: bool) -> dict[str, Any]:
            assert client.stdin is not None
            began = time.perf_counter()
            client.stdin.write(f"add {count}{'' if join else ' nojoin'}\n")
            client.stdin.flush()
            words = _first_line(client, "ok ").split()
            took = time.perf_counter() - began
            return {"tables": int(words[1]), "streams": int(words[2]), "rss_mib": round(server.rss_kib() / 1024, 1),
                    "seconds_to_open": round(took, 2), "tables_opened_per_second": round(count / took, 1)}

        try:
            for target in sizes.hold_waiting_steps:
                waiting.append(add(target - (waiting[-1]["tables"] if waiting else 0), False))
            offset = waiting[-1]["tables"] if waiting else 0
            held = 0
            for target in sizes.hold_steps:
                step = add(target - held, True)
                held = step["tables"] - offset
                steps.append({**step, "tables": held, "tables_waiting_too": offset})
            client.stdin.write("quit\n")
            client.stdin.flush()
            client.wait(60)
        finally:
            if client.poll() is None:
                client.kill()
    first, last = steps[0], steps[-1]
    per_table = (last["rss_mib"] - first["rss_mib"]) * 1024 / max(1, last["tables"] - first["tables"])
    per_waiting = None
    if len(waiting) > 1:
        per_waiting = round((waiting[-1]["rss_mib"] - waiting[0]["rss_mib"]) * 1024
                            / max(1, waiting[-1]["tables"] - waiting[0]["tables"]), 1)
    return {"game": sizes.game, "rss_idle_server_mib": round(base / 1024, 1), "waiting_steps": waiting,
            "kib_per_waiting_table": per_waiting, "steps": steps,
            "max_tables_held": last["tables"], "max_streams_held": last["streams"],
            "kib_per_table": round(per_table, 1),
            "tables_per_gib_projected": int(1024 * 1024 / per_table) if per_table > 0 else None}


# --- the run ------------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    return {**cli.machine(), "grpcio": version("grpcio"), "protobuf": version("protobuf")}


def run(*, quick: bool = False, sizes: Sizes | None = None, out: Path | None = RESULTS,
        echo: bool = False) -> dict[str, Any]:
    """Run every measurement; write ``out`` (unless None) and return the report."""
    sizes = sizes or (QUICK if quick else FULL)
    say = print if echo else (lambda *a, **k: None)
    games, skipped = runnable_load_games(sizes.load_games)
    if not games:
        raise RuntimeError(f"no throughput run can be driven here: {skipped}")
    for game, why in skipped.items():
        say(f"skipping {game}: {why}", flush=True)
    sizes = replace(sizes, load_games=games)
    report: dict[str, Any] = {"measured_at": cli.measured_at(),
                              "machine": machine(), "sizes": asdict(sizes), "load_skipped": skipped}
    with tempfile.TemporaryDirectory(prefix="tricktable-bench-") as tmp:
        folder = Path(tmp)
        # One server for the latency and throughput runs (a fresh one for the memory run below).
        with game_server(folder / "play", "--join-ms", "600000") as server:
            say(f"raw gRPC round trip and move turnaround, {sizes.rounds} alternating rounds ...", flush=True)
            report.update(measure_latency(sizes, server))
            report["load"] = {}
            for game in sizes.load_games:
                say(f"moves per second, {game} ...", flush=True)
                report["load"][game] = measure_load(server, sizes, game)
        if sizes.loops:
            say(f"event loops {', '.join(sizes.loops)} ...", flush=True)
            report["loops"] = measure_loops(folder, sizes)
        say("open tables held ...", flush=True)
        report["hold"] = measure_hold(folder / "hold", sizes)
    say("journal cost per move ...", flush=True)
    run_name = sizes.load_games[0]  # a game, or a game played with batches only (its server figure is as good)
    report["journal"] = journal_cost.measure(load_game(run_name)[0], sizes.journal_games,
                                             sizes.journal_rounds,
                                             server_cpu_us_per_move=report["load"][run_name]["server_cpu_us_per_move"])
    report["ratios"] = ratios(report)
    report["play_many_over_play"] = play_many_over_play(report["load"])
    report["goals"] = goals(report)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2) + "\n")
    return report


def ratios(report: dict[str, Any]) -> dict[str, float]:
    """Turnaround relative to the raw round trip (smallest payload): pooled medians, and the median of the
    ratios of each round (each round's turnaround over the same round's raw round trip)."""
    raw = next(iter(report["raw_round_trip"].values())).get("median_us")
    out: dict[str, float] = {}
    if not raw:
        return out
    for key in ("turnaround", "turnaround_sdk", "turnaround_batched"):
        entry = report.get(key)
        if entry is None:
            continue
        for part in ("turnaround", "within_deal", "next_deal"):
            median = entry.get(part, {}).get("median_us")
            if median:
                out[f"{key}.{part} / raw"] = round(median / raw, 2)
        if entry.get("ratio_to_raw_by_round"):
            out[f"{key} / raw, median of rounds"] = round(statistics.median(entry["ratio_to_raw_by_round"]), 2)
    return out


def play_many_over_play(load: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Each PlayMany throughput row over its per-seat Play row of the same run (``twenty_five:many`` over
    ``twenty_five``, ``twenty_five:sdk:many`` over ``twenty_five:sdk``), figure by figure, by the Play row's name."""
    keys = ("moves_per_second", "server_cpu_us_per_move", "client_cpu_us_per_move", "messages_per_move",
            "messages_sent_per_move")
    return {base: {key: round(load[base + PLAY_MANY][key] / one[key], 2) for key in keys
                   if one.get(key) and load[base + PLAY_MANY].get(key)}
            for base, one in load.items() if base + PLAY_MANY in load}


def goals(report: dict[str, Any]) -> dict[str, Any]:
    """The server's targets, met or not, by this run's figures (None where the run did not measure it)."""
    ratios = report["ratios"]
    ratio = ratios.get("turnaround_sdk / raw, median of rounds", ratios.get("turnaround_sdk.turnaround / raw"))
    load = report["load"].get(GOAL_GAME, {})
    cpu, messages = load.get("server_cpu_us_per_move"), load.get("messages_per_move")
    out: dict[str, Any] = {
        "turnaround_sdk_ratio_goal": GOAL_TURNAROUND_RATIO, "turnaround_sdk_ratio": ratio,
        "turnaround_sdk_ratio_met": None if ratio is None else ratio <= GOAL_TURNAROUND_RATIO,
        "cpu_us_per_move_goal": GOAL_CPU_US_PER_MOVE, "cpu_us_per_move": cpu,
        "cpu_us_per_move_met": None if cpu is None else cpu <= GOAL_CPU_US_PER_MOVE,
        "messages_per_move_goal": GOAL_MESSAGES_PER_MOVE, "messages_per_move": messages,
        "messages_per_move_met": None if messages is None else messages <= GOAL_MESSAGES_PER_MOVE,
    }
    return out


def render(report: dict[str, Any]) -> str:
    """The readable table printed after a run."""
    lines = [f"machine: {report['machine']['platform']}, {report['machine']['cpu_count']} cpus, "
             f"python {report['machine']['python']}, grpcio {report['machine']['grpcio']}, "
             f"load average {report['machine']['load_average']}", ""]
    row = "{:<44} {:>7} {:>10} {:>10} {:>10} {:>8}"
    lines.append(row.format("latency (us)", "n", "median", "p90", "p99", "x raw"))
    raw = next(iter(report["raw_round_trip"].values())).get("median_us") or 0.0

    def add(name: str, s: dict[str, Any]) -> None:
        if not s.get("n"):
            lines.append(row.format(name, 0, "-", "-", "-", "-"))
            return
        x = f"{s['median_us'] / raw:.2f}" if raw else "-"
        lines.append(row.format(name, s["n"], f"{s['median_us']:,.0f}", f"{s['p90_us']:,.0f}",
                                f"{s['p99_us']:,.0f}", x))

    for size, s in report["raw_round_trip"].items():
        add(f"raw gRPC bidi round trip, {size}", s)
    for key, label in (("turnaround", "move turnaround, raw bots"), ("turnaround_sdk", "move turnaround, SDK bots"),
                       ("turnaround_batched", "move turnaround, raw bots, batches only")):
        t = report.get(key)
        if t is None:
            continue
        add(f"{label}", t["turnaround"])
        add("  within a deal", t["within_deal"])
        add("  ending a deal (score, deal again)", t["next_deal"])
        if t["within_deal_first_message"].get("n"):
            add("  within a deal: answer -> first message", t["within_deal_first_message"])
            add("  within a deal: first message -> decision", t["within_deal_decision_after_first_message"])
    for game, entry in report["load"].items():
        add(f"turnaround under load ({game}, {entry['tables']} tables)", entry["turnaround_under_load"])
    lines.append("")
    for key in ("turnaround", "turnaround_sdk", "turnaround_batched"):
        if key in report and report[key]["ratio_to_raw_by_round"]:
            lines.append(f"{key} / raw round trip, by round: {report[key]['ratio_to_raw_by_round']} "
                         f"(median {report['ratios'][f'{key} / raw, median of rounds']})")
    first = next(iter(report["raw_round_trip"].values()))
    t = report["turnaround"]
    lines.append(f"server CPU: echo {first['server_cpu_us_per_round_trip']} us per round trip (1 message in, 1 out); "
                 f"game {t['server_cpu_us_per_move']} us per move, {t['messages_per_move']} messages out per move")
    if "turnaround_batched" in report:
        b = report["turnaround_batched"]
        lines.append(f"  batches only: {b['server_cpu_us_per_move']} us per move, {b['messages_per_move']} messages "
                     "out per move")
    lines.append("")
    throughput = "{:<40} {:>8} {:>9} {:>8} {:>11} {:>12} {:>9} {:>9}"
    lines.append(throughput.format("throughput", "moves/s", "srv cores", "us/move", "1-core proj", "client cores",
                                   "bot us/mv", "msg in/out"))
    loads = [(f"{game}: {entry['tables']} tables, {entry['client_processes']} client procs", entry)
             for game, entry in report["load"].items()]
    loads += [(f"{GOAL_GAME}: event loop {loop}", entry) for loop, entry in report.get("loops", {}).items()]
    for label, entry in loads:
        lines.append(throughput.format(
            label, f"{entry['moves_per_second']:,}", entry["server_cpu_cores"], entry["server_cpu_us_per_move"] or "-",
            f"{entry['projected_moves_per_second_one_core'] or 0:,}", "+".join(map(str, entry["client_cpu_cores"])),
            entry.get("client_cpu_us_per_move") or "-",
            f"{entry['messages_per_move']}/{entry.get('messages_sent_per_move', '-')}"))
    lines += [f"skipped {game}: {why}" for game, why in report.get("load_skipped", {}).items()]
    for base, pairs in report.get("play_many_over_play", {}).items():
        lines.append(f"PlayMany over Play ({base}, same run): "
                     + ", ".join(f"{key} x{value}" for key, value in pairs.items()))
    journal = report["journal"]
    lines.append("")
    lines.append(f"journal (crash survival), {journal['game']}, CPU per move in its writes and commits:")
    for entry in journal["runs"]:
        share = entry.get("journal_share_of_server_cpu")
        of_server = f", {share:.1%} of the server's {journal['server_cpu_us_per_move']} us per move" if share else ""
        lines.append(f"  {entry['tables_at_once']:>3} table(s) moving per loop turn: {entry['journal_us_per_move']} us"
                     f" (all extra CPU {entry['extra_us_per_move']} us){of_server}")
    hold = report["hold"]
    lines.append("")
    lines.append(f"open tables held ({hold['game']}): server idle RSS {hold['rss_idle_server_mib']} MiB; "
                 f"a table nobody joined: {hold['kib_per_waiting_table']} KiB")
    lines.append("  every seat joined (4 Play streams), idle on a decision:")
    for step in hold["steps"]:
        lines.append(f"  {step['tables']:>6} tables {step['streams']:>7} streams  RSS {step['rss_mib']:>8} MiB  "
                     f"opened at {step['tables_opened_per_second']} tables/s")
    lines.append(f"  memory per table: {hold['kib_per_table']} KiB (~{hold['tables_per_gib_projected']:,} tables/GiB)"
                 if hold["tables_per_gib_projected"] else f"  memory per table: {hold['kib_per_table']} KiB")
    g = report["goals"]
    lines.append("")
    for label, key, unit in ((f"turnaround with SDK bots <= {g['turnaround_sdk_ratio_goal']}x raw",
                              "turnaround_sdk_ratio", "x"),
                             (f"server CPU per {GOAL_GAME} move <= {g['cpu_us_per_move_goal']:g} us",
                              "cpu_us_per_move", " us"),
                             (f"messages per {GOAL_GAME} move <= {g['messages_per_move_goal']}", "messages_per_move",
                              "")):
        met = g[f"{key}_met"]
        verdict = "not measured" if met is None else "met" if met else "NOT met"
        lines.append(f"goal {label}: {g[key]}{unit} ({verdict})")
    return "\n".join(lines)


def _metrics_cost(sizes: Sizes, rounds: int, out: Path) -> int:
    """``--metrics-cost``: :func:`bench.metrics_cost.measure` over fresh servers of this tree; JSON and a table."""
    from bench import metrics_cost

    games, skipped = runnable_load_games(sizes.load_games)

    def load(data_dir: Path, flags: tuple[str, ...], game: str) -> dict[str, Any]:
        with game_server(data_dir, "--join-ms", "600000", *flags) as server:
            return measure_load(server, sizes, game)

    with tempfile.TemporaryDirectory(prefix="tricktable-bench-") as tmp:
        report = metrics_cost.measure(Path(tmp), rounds, games, load, machine())
    report.update({"tables": sizes.load_tables, "client_processes": sizes.load_clients,
                   "window_seconds": sizes.load_seconds, "skipped": skipped})
    out = out if out != RESULTS else RESULTS.with_name("server_metrics.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(metrics_cost.render(report, sizes.load_tables, sizes.load_clients, sizes.load_seconds))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("bench.server_bench", __doc__, out=RESULTS)
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run of a few seconds)")
    parser.add_argument("--load-tables", type=int, help="concurrent tables in the throughput run")
    parser.add_argument("--load-clients", type=int, help="client processes in the throughput run")
    parser.add_argument("--load-seconds", type=float, help="measured seconds of the throughput run")
    parser.add_argument("--load-games", help="comma separated games of the throughput run (with --against: "
                        "its first, e.g. twenty_five:many for PlayMany clients)")
    parser.add_argument("--hold-steps", help="comma separated table counts of the memory run")
    parser.add_argument("--against", help="only a before/after: these comma separated commits, then this tree, "
                        "in alternating rounds (JSON to bench/results/server_against.json); with --throughput, "
                        "one server per tree for the whole run")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of --against, --sdk-against and --throughput")
    parser.add_argument("--sdk-against", help="only the SDK's share of the turnaround: SDK bots of these comma "
                        "separated commits (may be empty) and of this tree against one server of this tree, "
                        "alternating (JSON to bench/results/server_sdk_bots.json)")
    parser.add_argument("--bot-loops", default="asyncio", help="with --sdk-against: comma separated event loops "
                        "of this tree's bots and of the echo client (asyncio, uvloop)")
    parser.add_argument("--tables-per-round", type=int, default=2, help="with --sdk-against: tables each row "
                        "plays per round")
    parser.add_argument("--throughput", action="store_true", help="only the throughput rows (--load-games), in "
                        "alternating rounds on one server (JSON to bench/results/server_throughput.json)")
    parser.add_argument("--metrics-cost", action="store_true", help="only the metrics' cost per move: the "
                        "throughput rows (--load-games) on a server with metrics and one with --no-metrics, in "
                        "alternating rounds (JSON to bench/results/server_metrics.json)")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    if args.load_tables:
        sizes = replace(sizes, load_tables=args.load_tables)
    if args.load_clients:
        sizes = replace(sizes, load_clients=args.load_clients)
    if args.load_seconds:
        sizes = replace(sizes, load_seconds=args.load_seconds)
    if args.load_games:
        sizes = replace(sizes, load_games=tuple(args.load_games.split(",")))
    if args.hold_steps:
        sizes = replace(sizes, hold_steps=tuple(int(x) for x in args.hold_steps.split(",")))
    if args.metrics_cost:
        return _metrics_cost(sizes, args.rounds, args.out)
    if args.throughput:
        with tempfile.TemporaryDirectory(prefix="tricktable-bench-") as tmp:
            throughput = measure_throughput(Path(tmp), sizes, args.rounds,
                                            args.against.split(",") if args.against else ())
        out = args.out if args.out != RESULTS else RESULTS.with_name("server_throughput.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(throughput, indent=2) + "\n")
        print(render_throughput(throughput))
        return 0
    if args.sdk_against is not None:
        from bench.trees import refs_of

        with tempfile.TemporaryDirectory(prefix="tricktable-bench-") as tmp:
            bots = measure_sdk_bots(Path(tmp), sizes, refs_of(args.sdk_against), args.rounds, args.tables_per_round,
                                    loops=tuple(args.bot_loops.split(",")))
        out = args.out if args.out != RESULTS else RESULTS.with_name("server_sdk_bots.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(bots, indent=2) + "\n")
        print(render_sdk_bots(bots))
        return 0
    if args.against:
        with tempfile.TemporaryDirectory(prefix="tricktable-bench-") as tmp:
            against = measure_against(Path(tmp), sizes, args.against.split(","), args.rounds,
                                      sizes.load_games[0] if args.load_games else GOAL_GAME)
        out = args.out if args.out != RESULTS else RESULTS.with_name("server_against.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(against, indent=2) + "\n")
        print(render_against(against))
        return 0
    report = run(sizes=sizes, out=args.out, echo=True)
    print()
    print(render(report))
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
