"""Shard benchmark: moves/s of ``serve --shards N`` for N = 1 and 2 in one run, with every core accounted for.

Why its own run: a scaling ratio on a shared 2-core machine says nothing unless
both figures come from the same minutes and the CPU behind them is known. So:

- **alternating rounds**: each round measures every shard count once, in
  alternating order (1, 2 then 2, 1), each on a fresh ``tricktable serve
  --shards N`` with the throughput load of :func:`bench.server_bench.measure_load`
  (Twenty-Five, coalesced events, 40 tables, first-legal bots in 2 client
  processes that open each table's streams at its ``play_address``), once per
  kind of bots (``--bots``: Python on Play, Python on PlayMany, and the native
  C++ client of :mod:`bench.native_load` on PlayMany, whose few us of CPU a
  move leave the cores to the server); the ratio is taken within each round,
  and its median and spread are reported;
- **every core accounted for** over each measured window: each shard process
  split into its event-loop thread, gRPC core's own threads (``event_engine``
  and the like) and the rest (Python threads: grpc.aio's completion-queue
  poller, record saving); the bots' processes; the whole machine from
  ``/proc/stat``, so what other work took (``others``) and what stayed idle are
  figures, not guesses; the load average beside them;
- **ceilings from the same readings**: a shard's event loop runs on one thread,
  so one shard can not pass ``1 / (loop CPU per move)`` moves/s; N shards on C
  cores can not pass ``C / (server CPU per move)``, nor, with the bots on the
  same cores, ``C / (server + bots CPU per move)``. The ratio of these ceilings
  is what the shard count can buy on this machine (bots on it or elsewhere),
  whatever other work takes; ``bots_budget_us_for_goal`` is the bots' CPU
  per move under which the goal (2 shards >= 1.6x one, bots on the same cores)
  is possible at all (negative: not even with free bots).

Run ``python -m bench.shard_bench`` (``--rounds``, ``--quick``); results go to
``bench/results/shards.json`` and a table on stdout. ``make bench`` runs it.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from bench import cli
from bench.server_bench import (
    FULL,
    GOAL_GAME,
    NATIVE,
    PLAY_MANY,
    Sizes,
    game_server,
    machine,
    measure_load,
    runnable_load_games,
    stat_cpu_seconds,
)

RESULTS = Path(__file__).resolve().parent / "results" / "shards.json"
#: The target: 2 shards make at least this many times the moves/s of one, on two cores.
GOAL_TWO_SHARDS_SPEEDUP = 1.6
#: Cores other work may take in a window for its moves/s to speak for the shards: more, and the shard count
#: mostly changes how much of the machine the server wins from the others (more processes, more share).
QUIET_OTHERS_CORES = 0.25
_TICK = os.sysconf("SC_CLK_TCK")
#: Thread groups of a shard process (see :func:`thread_cpu`).
LOOP, GRPC, PYTHON = "event_loop", "grpc_core_threads", "other_python_threads"
#: The bots' kinds (``--bots``), each the suffix of its throughput run: a Play stream per seat, every seat of a client
#: process over one PlayMany call per shard, and the same in C++ (:mod:`bench.native_load`: the bots then cost a
#: few us of CPU a move, so nearly every core is the server's).
BOTS = {"play": "", "many": PLAY_MANY, "native": NATIVE}
#: What the report and the table call the bots of each suffix.
_BOTS_NAMES = {suffix: name for name, suffix in BOTS.items()}
_BOTS_LABELS = {"play": "bots on Play", "many": "bots on PlayMany", "native": "native bots (C++, PlayMany)"}


@dataclass(frozen=True, slots=True, kw_only=True)
class ShardSizes:
    """How much a run measures: shard counts, alternating rounds, and the throughput load of each."""

    counts: tuple[int, ...] = (1, 2)
    rounds: int = 4
    #: How the bots play (suffixes of :data:`BOTS`); each is measured with every shard count. The native bots are
    #: left out, with the reason, where their client can not be built.
    transports: tuple[str, ...] = tuple(BOTS.values())
    load: Sizes = FULL  # its throughput run: 40 tables, 2 client processes, 3 s warm-up, 10 s measured


FULL_SHARDS = ShardSizes()
QUICK_SHARDS = ShardSizes(rounds=1, transports=("", PLAY_MANY),
                          load=replace(FULL, load_tables=4, load_clients=1, load_warmup=0.5, load_seconds=1.5))


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds so far of a process, by group: its main thread (the event loop), the threads gRPC core names
    itself (``event_engine``, ``grpc_global_tim``...), and the rest (Python threads, which keep the process's
    own name, and threads that have ended)."""
    own = Path(f"/proc/{pid}/comm").read_text().strip()
    total = stat_cpu_seconds(Path(f"/proc/{pid}/stat"))
    loop = stat_cpu_seconds(Path(f"/proc/{pid}/task/{pid}/stat"))
    grpc = 0.0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            if tid != str(pid) and Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip() != own:
                grpc += stat_cpu_seconds(Path(f"/proc/{pid}/task/{tid}/stat"))
        except FileNotFoundError:  # the thread ended between the listing and the read: counted in the rest
            continue
    return {LOOP: loop, GRPC: grpc, PYTHON: max(0.0, total - loop - grpc)}


def machine_cpu() -> tuple[float, float]:
    """CPU seconds so far of every core of the machine: (busy, idle), from the ``cpu`` line of /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    busy = sum(values[:8]) - idle  # user, nice, system, irq, softirq, steal (guest time is inside user)
    return busy / _TICK, idle / _TICK


@dataclass(slots=True)
class CoreAccount:
    """Readings of the shard processes and of the machine at the opening and closing of a measured window."""

    pids: tuple[int, ...]
    readings: list[tuple[list[dict[str, float]], tuple[float, float], float]] = field(default_factory=list)

    def mark(self, opening: bool) -> None:
        """Read every shard's threads, the machine's cores and the load average (``measure_load``'s window hook)."""
        del opening  # the readings alternate: opening, closing
        self.readings.append(([thread_cpu(pid) for pid in self.pids], machine_cpu(), os.getloadavg()[0]))

    def shards(self) -> list[dict[str, float]]:
        """CPU seconds of each shard's thread groups over the window."""
        (before, _, _), (after, _, _) = self.readings
        return [{group: b[group] - a[group] for group in b} for a, b in zip(before, after, strict=True)]

    def machine(self) -> tuple[float, float]:
        """Busy and idle CPU seconds of the whole machine over the window."""
        (_, (busy0, idle0), _), (_, (busy1, idle1), _) = self.readings
        return busy1 - busy0, idle1 - idle0

    def load_average(self) -> tuple[float, float]:
        """The 1-minute load average as the window opened and as it closed."""
        return self.readings[0][2], self.readings[1][2]


def measure_round(folder: Path, count: int, sizes: ShardSizes, transport: str = "") -> dict[str, Any]:
    """One throughput run on a fresh ``serve --shards count``, with its core accounting and ceilings; ``transport``
    a suffix of :data:`ShardSizes.transports`."""
    with game_server(folder / f"shards-{count}{transport.replace(':', '-')}", "--shards", str(count),
                     "--join-ms", "600000") as server:
        account = CoreAccount(server.shard_pids or (server.pid,))
        load = measure_load(server, sizes.load, GOAL_GAME + transport, on_window=account.mark)
    return {**account_for(load, account, count, os.cpu_count() or 1), "transport": _BOTS_NAMES[transport]}


def account_for(load: dict[str, Any], account: CoreAccount, count: int, cores: int) -> dict[str, Any]:
    """Where the window's CPU went, per move and in cores, and the ceilings it implies (see the module doc)."""
    seconds, moves = load["window_seconds"], max(1, load["moves_in_window"])
    shards = account.shards()
    groups = {group: sum(s[group] for s in shards) for group in (LOOP, GRPC, PYTHON)}
    server, bots = sum(groups.values()), sum(load["client_cpu_cores"]) * seconds
    busy, idle = account.machine()
    # Moves per second when a resource is full: the busiest event loop (one thread: one core at most), all the
    # cores for the server (bots elsewhere), all the cores for server and bots.
    loop_full = moves / max(max(s[LOOP] for s in shards), 1e-9)
    ceilings = {"event_loops": loop_full, "cores_bots_elsewhere": min(loop_full, cores * moves / max(server, 1e-9)),
                "cores_bots_here": min(loop_full, cores * moves / max(server + bots, 1e-9))}
    us = 1e6 / moves
    return {
        "shards": count, "moves_per_second": load["moves_per_second"], "moves_in_window": load["moves_in_window"],
        "window_seconds": seconds, "tables": load["tables"], "client_processes": load["client_processes"],
        "errors": load["errors"], "rejections": load["rejections"], "messages_per_move": load["messages_per_move"],
        "load_average_1min": [round(x, 2) for x in account.load_average()],
        "cores": {"server": round(server / seconds, 2), **{g: round(v / seconds, 2) for g, v in groups.items()},
                  "bots": round(bots / seconds, 2), "others": round(max(0.0, busy - server - bots) / seconds, 2),
                  "idle": round(idle / seconds, 2), "machine": cores},
        "us_per_move": {"server": round(server * us), **{g: round(v * us) for g, v in groups.items()},
                        "bots": round(bots * us)},
        "moves_by_shard": load["moves_by_shard"],
        "server_cores_by_shard": [round(sum(s.values()) / seconds, 2) for s in shards],
        "ceilings_moves_per_second": {name: round(value) for name, value in ceilings.items()},
    }


def measure(folder: Path, sizes: ShardSizes) -> dict[str, Any]:
    """Every shard count once per round and transport, in alternating order; ratios of 2 shards over 1 within each
    round, for each transport (Play at the top level, the others under their name: ``"many"``, ``"native"``)."""
    rounds: list[dict[str, dict[str, Any]]] = []
    for index in range(sizes.rounds):
        order = sizes.counts if index % 2 == 0 else tuple(reversed(sizes.counts))
        rounds.append({f"{count}{transport}": measure_round(folder / f"round-{index}", count, sizes, transport)
                       for transport in sizes.transports for count in order})
    out: dict[str, Any] = {"rounds": rounds, **compare(rounds)}
    for transport in sizes.transports:
        if transport:
            out[_BOTS_NAMES[transport]] = compare(rounds, transport)
    return out


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 2)


def compare(rounds: list[dict[str, dict[str, Any]]], transport: str = "") -> dict[str, Any]:
    """Two over one, round by round: measured moves/s, and the ceilings (bots elsewhere, bots here); ``transport``:
    the runs of that suffix (Play's by default)."""
    one_key, two_key = f"1{transport}", f"2{transport}"
    pairs = [(r[one_key], r[two_key]) for r in rounds if one_key in r and two_key in r]
    if not pairs:
        return {}

    def ratios(pick: Any) -> list[float]:
        return [round(pick(two) / pick(one), 2) if pick(one) else 0.0 for one, two in pairs]

    measured = ratios(lambda e: e["moves_per_second"])
    elsewhere = ratios(lambda e: e["ceilings_moves_per_second"]["cores_bots_elsewhere"])
    here = ratios(lambda e: e["ceilings_moves_per_second"]["cores_bots_here"])
    # The bots' CPU per move under which 2 shards' ceiling on these cores could be 1.6x one shard's.
    budget = [round(two["cores"]["machine"] * 1e6 / (GOAL_TWO_SHARDS_SPEEDUP * one["ceilings_moves_per_second"]
                                                     ["cores_bots_here"]) - two["us_per_move"]["server"])
              for one, two in pairs]
    others = max(e["cores"]["others"] for pair in pairs for e in pair)
    return {
        "two_over_one": _median(measured), "two_over_one_by_round": measured, "others_cores_max": others,
        "ceiling_two_over_one_bots_elsewhere": _median(elsewhere),
        "ceiling_two_over_one_bots_elsewhere_by_round": elsewhere,
        "ceiling_two_over_one_bots_here": _median(here), "ceiling_two_over_one_bots_here_by_round": here,
        "bots_budget_us_for_goal": round(statistics.median(budget)), "goal": GOAL_TWO_SHARDS_SPEEDUP,
        # None: not shown, other work took more than QUIET_OTHERS_CORES in some window.
        "goal_met": statistics.median(measured) >= GOAL_TWO_SHARDS_SPEEDUP if others <= QUIET_OTHERS_CORES else None,
    }


def run(sizes: ShardSizes = FULL_SHARDS, out: Path | None = RESULTS) -> dict[str, Any]:
    """Measure; write ``out`` (unless None) and return the report."""
    runnable, skipped = runnable_load_games([GOAL_GAME + t for t in sizes.transports])
    sizes = replace(sizes, transports=tuple(t for t in sizes.transports if GOAL_GAME + t in runnable))
    report: dict[str, Any] = {
        "measured_at": cli.measured_at(), "machine": machine(), "sizes": asdict(sizes),
        "bots_skipped": {_BOTS_NAMES[game.removeprefix(GOAL_GAME)]: why for game, why in skipped.items()}}
    with tempfile.TemporaryDirectory(prefix="tricktable-shards-") as tmp:
        report.update(measure(Path(tmp), sizes))
    report["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2) + "\n")
    return report


def render(report: dict[str, Any]) -> str:
    """The readable table printed after a run: one line per round and shard count, then the ratios."""
    m = report["machine"]
    lines = [f"machine: {m['cpu_count']} cpus, python {m['python']}, grpcio {m['grpcio']}, load average "
             f"{m['load_average']} at the start, {m.get('load_average_at_end')} at the end", ""]
    row = "{:>5} {:>8} {:>6} {:>8} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>8} {:>8} {:>9} {:>11}"
    lines.append(row.format("round", "bots on", "shards", "moves/s", "server", "loop", "grpc", "py", "bots", "others",
                            "idle", "srv us/mv", "bot us/mv", "loads", "moves/shard"))
    for index, entry in ((i, e) for i, r in enumerate(report["rounds"]) for e in r.values()):
        c, u = entry["cores"], entry["us_per_move"]
        shares = Counter(entry["moves_by_shard"])
        lines.append(row.format(index, entry.get("transport", "play"), entry["shards"],
                                f"{entry['moves_per_second']:,}",
                                c["server"], c[LOOP], c[GRPC], c[PYTHON], c["bots"], c["others"], c["idle"],
                                u["server"], u["bots"], "-".join(f"{x:g}" for x in entry["load_average_1min"]),
                                "/".join(str(shares[k]) for k in sorted(shares))))
    if "two_over_one" in report:
        lines += ["", f"(cores over each {report['sizes']['load']['load_seconds']:g} s window: server = loop + grpc + "
                  "py threads of every shard; others = the rest of the machine's busy time)"]
    lines += [f"{_BOTS_LABELS[name]} not measured: {why}" for name, why in report.get("bots_skipped", {}).items()]
    for name, label in _BOTS_LABELS.items():
        ratios = report if name == "play" else report.get(name) or {}
        if "two_over_one" not in ratios:
            continue
        lines += [f"{label}: 2 shards / 1, measured: {ratios['two_over_one']} "
                  f"(rounds {ratios['two_over_one_by_round']}); goal >= {ratios['goal']}: {_verdict(ratios)}",
                  f"  ceiling with the bots elsewhere: {ratios['ceiling_two_over_one_bots_elsewhere']} "
                  f"(rounds {ratios['ceiling_two_over_one_bots_elsewhere_by_round']})",
                  f"  ceiling with the bots on these cores: {ratios['ceiling_two_over_one_bots_here']} "
                  f"(rounds {ratios['ceiling_two_over_one_bots_here_by_round']})",
                  f"  bots' CPU per move under which the goal is possible with them on these cores: "
                  f"{ratios['bots_budget_us_for_goal']} us"]
    return "\n".join(lines)


def _verdict(report: dict[str, Any]) -> str:
    if report["goal_met"] is None:
        return (f"not shown: other work took up to {report['others_cores_max']} cores of a window "
                f"(quiet: at most {QUIET_OTHERS_CORES})")
    return "met" if report["goal_met"] else "NOT met"


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("bench.shard_bench", __doc__, out=RESULTS)
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke run of a few seconds)")
    parser.add_argument("--rounds", type=int, help="alternating rounds (each measures every shard count once)")
    parser.add_argument("--seconds", type=float, help="measured seconds of each throughput run")
    parser.add_argument("--tables", type=int, help="concurrent tables of each throughput run")
    parser.add_argument("--bots", help=f"comma separated bots' kinds of {', '.join(BOTS)} (default: all)")
    args = parser.parse_args(argv)
    sizes = QUICK_SHARDS if args.quick else FULL_SHARDS
    if args.rounds:
        sizes = replace(sizes, rounds=args.rounds)
    if args.seconds:
        sizes = replace(sizes, load=replace(sizes.load, load_seconds=args.seconds))
    if args.tables:
        sizes = replace(sizes, load=replace(sizes.load, load_tables=args.tables))
    if args.bots:
        unknown = set(args.bots.split(",")) - set(BOTS)
        if unknown:
            parser.error(f"unknown bots' kind {', '.join(sorted(unknown))} (known: {', '.join(BOTS)})")
        sizes = replace(sizes, transports=tuple(BOTS[name] for name in args.bots.split(",")))
    print(f"shards {', '.join(map(str, sizes.counts))}, {sizes.rounds} alternating rounds ...", file=sys.stderr)
    report = run(sizes, args.out)
    print(render(report))
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
