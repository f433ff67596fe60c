"""Tournament benchmark: a 1,000-game round robin of the built-in fast bots on one machine.

``python -m bench.tournament`` plays the same round robin (All Fives, two
players; random, first-legal and heuristic, two of them twice: 10 pairs x
100 games = 1,000 games, duplicate decks) with the in-process runner on 1
and then 2 worker processes, and reports wall time, games per second and
the speed-up from 1 to 2 workers (goal: under a minute on 2 cores). Each run
stores into a fresh SQLite file, as a real tournament does, and the time
includes storing and the ratings at the end.

``--server-games N`` also plays N games over the real gRPC server (one in
this process; the same five entrants, 10 pairs) in every run of
``--server-runs``: bots sandboxed or trusted (plain processes), with
long-lived bot processes (``long``: each plays many matches, never two
tables of one deck set) or a process per bot per match (``match``), at
each ``--server-concurrency`` (tables at once). Each row has its wall time,
games per second and CPU seconds per game, with ``vs_match`` and
``vs_trusted``: its ratios to the row of the same concurrency that differs
only in how bots start or in isolation, measured in the same invocation so
that the machine's load weighs on both. Results print as a table and as
JSON (``--out FILE``).

CPU is counted in a cgroup v2 of the run's own when the host lets this
process make one (:mod:`bench.cpu_meter`): sandboxed bots are reaped inside
their PID namespace, so ``getrusage`` would miss them. ``own`` is this
process (the in-process server and the tournament), ``others`` the bots.
The machine is shared, so each row also gives the load average at its
start and end: CPU seconds per game do not depend on what else runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import tempfile
import time
from pathlib import Path
from typing import Any, Literal, cast

from bench.cpu_meter import CpuMeter
from tricktable.tournament.config import TournamentConfig, config_from_mapping
from tricktable.tournament.engine import Dispatcher, Tournament, local_dispatcher, stored_games
from tricktable.tournament.ratings import leaderboard
from tricktable.tournament.sandbox import Isolation
from tricktable.tournament.store import TournamentStore

#: How a server run starts its bots: ``match``, a process per bot per match; ``long``, long-lived processes.
Processes = Literal["match", "long"]
#: The server runs measured by default: every isolation with every way of starting bots.
SERVER_RUNS = "sandbox:match,sandbox:long,trusted:match,trusted:long"

ENTRANTS: list[Any] = ["random", "first-legal", "heuristic", {"name": "random-2", "bot": "random"},
                       {"name": "heuristic-2", "bot": "heuristic"}]


def bench_config(game: str, games_per_pair: int, entrants: list[Any]) -> TournamentConfig:
    """The round robin measured."""
    return config_from_mapping({"name": "bench", "game": game, "entrants": entrants, "games": games_per_pair,
                                "seed": "bench-1", "format": "round_robin"})


async def _run(config: TournamentConfig, dispatcher: Dispatcher, workers: int, db: Path) -> dict[str, Any]:
    store = TournamentStore(db)
    load = os.getloadavg()[0]
    with CpuMeter() as meter:
        started = time.perf_counter()
        stats = await Tournament(config, store, dispatcher, concurrency=workers).run()
        table = leaderboard([e.name for e in config.entrants], stored_games(store, config.name))
        wall = time.perf_counter() - started
        cpu, own = meter.seconds(), meter.self_seconds()
    store.close()
    games = max(1, stats.played)
    return {"workers": workers, "games": stats.played, "wall_s": round(wall, 2),
            "games_per_s": round(stats.played / wall, 2),
            # CPU of this process, its workers and every bot (sandboxed ones too): the cost of the games,
            # whatever the load. ``own``: this process (the in-process server and the tournament's bookkeeping).
            "cpu_s": round(cpu, 2), "cpu_s_per_game": round(cpu / games, 3),
            "own_cpu_s_per_game": round(own / games, 3), "others_cpu_s_per_game": round((cpu - own) / games, 3),
            "cpu_accounting": meter.method, "load_avg_1m": [round(load, 2), round(os.getloadavg()[0], 2)],
            "leader": table[0].name,
            "forfeits": sum(s.forfeits for s in table)}


def run_local(config: TournamentConfig, workers: int) -> dict[str, Any]:
    """One in-process run on ``workers`` processes (a thread for 1)."""
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(_run(config, local_dispatcher(config, workers), workers, Path(tmp) / "bench.sqlite3"))


def run_server(config: TournamentConfig, workers: int, isolation: Isolation = "sandbox",
               processes: Processes = "long") -> dict[str, Any]:
    """One run over an in-process gRPC server (bots sandboxed, or trusted: plain processes).

    ``processes``: ``long`` (long-lived bot processes, the default) or ``match`` (a process per bot per match).
    """
    from tricktable.server.logging import configure
    from tricktable.tournament.server_runner import ServerDispatcher

    configure(level="WARNING")

    async def go(tmp: Path) -> dict[str, Any]:
        dispatcher = await ServerDispatcher.open(config, address=None, data_dir=tmp, isolation=isolation,
                                                 long_lived=processes == "long")
        pool = dispatcher.pool
        row = await _run(config, dispatcher, workers, tmp / "tricktable.sqlite3")
        return {"isolation": isolation, "processes": processes,
                "bot_processes_started": None if pool is None else pool.started, **row}

    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(go(Path(tmp)))


def server_runs(game: str, games: int, runs: str, concurrency: str) -> list[dict[str, Any]]:
    """The round robin over gRPC, once per run and concurrency, in one invocation: their ratios hold under load.

    Each row gets ``vs_match`` (this run's wall time and CPU per game over those of the same isolation and
    concurrency with a process per match) and ``vs_trusted`` (over the trusted run of the same kind).
    """
    config = bench_config(game, max(2, games // 10), ENTRANTS)  # 10 pairs
    rows: list[dict[str, Any]] = []
    for tables in (int(c) for c in concurrency.split(",")):
        for run in runs.split(","):
            isolation, _, processes = run.partition(":")
            row = run_server(config, tables, cast(Isolation, isolation), cast(Processes, processes or "long"))
            rows.append(row)
            print(f"over gRPC, {isolation}, {'long-lived' if processes == 'long' else 'a process per match'}, "
                  f"{tables} at once: {row['games']} games in {row['wall_s']} s = {row['games_per_s']} games/s, "
                  f"{row['cpu_s_per_game']} CPU s/game ({row['cpu_accounting']}), load {row['load_avg_1m']}",
                  flush=True)
    for row in rows:
        for key, field, value in (("vs_match", "processes", "match"), ("vs_trusted", "isolation", "trusted")):
            base = next((r for r in rows if r[field] == value and r["workers"] == row["workers"]
                         and all(r[k] == row[k] for k in ("isolation", "processes") if k != field)), None)
            if base is not None and base is not row:
                row[key] = {"wall": round(row["wall_s"] / base["wall_s"], 2),
                            "cpu_per_game": round(row["cpu_s_per_game"] / base["cpu_s_per_game"], 2)}
    return rows


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="all_fives")
    parser.add_argument("--games-per-pair", type=int, default=100, help="10 pairs: 100 gives 1,000 games")
    parser.add_argument("--workers", default="1,2", help="worker counts to measure, comma-separated")
    parser.add_argument("--server-games", type=int, default=0, help="also play about N games over gRPC")
    parser.add_argument("--server-runs", default=SERVER_RUNS,
                        help="ISOLATION:PROCESSES runs over gRPC, comma-separated (processes: match or long)")
    parser.add_argument("--server-concurrency", default="2", help="tables at once over gRPC, comma-separated")
    parser.add_argument("--out", type=Path, help="write the JSON here too")
    args = parser.parse_args()
    config = bench_config(args.game, args.games_per_pair, ENTRANTS)
    results: dict[str, Any] = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                    "load_avg_at_start": [round(x, 2) for x in os.getloadavg()]},
        "game": args.game, "entrants": [e.name for e in config.entrants], "local": [],
    }
    for workers in (int(w) for w in args.workers.split(",")):
        row = run_local(config, workers)
        results["local"].append(row)
        print(f"in-process, {workers} worker(s): {row['games']} games in {row['wall_s']} s = "
              f"{row['games_per_s']} games/s", flush=True)
    local = results["local"]
    if len(local) >= 2:
        results["speedup"] = round(local[0]["wall_s"] / local[-1]["wall_s"], 2)
        print(f"speed-up {local[0]['workers']} -> {local[-1]['workers']} workers: {results['speedup']}x")
    if args.server_games:
        results["server"] = server_runs(args.game, args.server_games, args.server_runs, args.server_concurrency)
    results["load_avg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    text = json.dumps(results, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
