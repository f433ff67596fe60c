"""Tournament benchmark: a 1,000-game round robin of the built-in fast bots on one machine.

``python -m bench.tournament`` plays the same round robin (All Fives, two
players; random, first-legal and heuristic, two of them twice: 10 pairs x
100 games = 1,000 games, duplicate decks) with the in-process runner on 1
and then 2 worker processes, and reports wall time, games per second and
the speed-up from 1 to 2 workers (goal: under a minute on 2 cores). Each run
stores into a fresh SQLite file, as a real tournament does, and the time
includes storing and the ratings at the end.

``--server-games N`` also plays N games over the real gRPC server (one in
this process, each bot a separate process), to show what a process per bot
per match costs, once with every bot sandboxed (the default) and once as
plain processes (``sandbox_cost``: the ratio of their wall times). Results
print as a table and as JSON (``--out FILE``). The machine is shared, so
each run also gives the CPU seconds it used (this process, its workers and
bot processes) and the load average: games per CPU second do not depend on
what else runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from tricktable.tournament.config import TournamentConfig, config_from_mapping
from tricktable.tournament.engine import Dispatcher, Tournament, local_dispatcher, stored_games
from tricktable.tournament.ratings import leaderboard
from tricktable.tournament.sandbox import Isolation
from tricktable.tournament.store import TournamentStore

ENTRANTS: list[Any] = ["random", "first-legal", "heuristic", {"name": "random-2", "bot": "random"},
                       {"name": "heuristic-2", "bot": "heuristic"}]


def bench_config(game: str, games_per_pair: int, entrants: list[Any]) -> TournamentConfig:
    """The round robin measured."""
    return config_from_mapping({"name": "bench", "game": game, "entrants": entrants, "games": games_per_pair,
                                "seed": "bench-1", "format": "round_robin"})


def _cpu_with_children() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


async def _run(config: TournamentConfig, dispatcher: Dispatcher, workers: int, db: Path) -> dict[str, Any]:
    store = TournamentStore(db)
    started = time.perf_counter()
    cpu = _cpu_with_children()
    stats = await Tournament(config, store, dispatcher, concurrency=workers).run()
    table = leaderboard([e.name for e in config.entrants], stored_games(store, config.name))
    wall = time.perf_counter() - started
    store.close()
    return {"workers": workers, "games": stats.played, "wall_s": round(wall, 2),
            "games_per_s": round(stats.played / wall, 1),
            # CPU of this process and its (ended) workers and bots: the cost of the games, whatever the load.
            "cpu_s": round(_cpu_with_children() - cpu, 2),
            "leader": table[0].name,
            "forfeits": sum(s.forfeits for s in table)}


def run_local(config: TournamentConfig, workers: int) -> dict[str, Any]:
    """One in-process run on ``workers`` processes (a thread for 1)."""
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(_run(config, local_dispatcher(config, workers), workers, Path(tmp) / "bench.sqlite3"))


def run_server(config: TournamentConfig, workers: int, isolation: Isolation = "sandbox") -> dict[str, Any]:
    """One run over an in-process gRPC server, each bot a process (sandboxed, or trusted: plain processes)."""
    from tricktable.server.logging import configure
    from tricktable.tournament.server_runner import ServerDispatcher

    configure(level="WARNING")

    async def go(tmp: Path) -> dict[str, Any]:
        dispatcher = await ServerDispatcher.open(config, address=None, data_dir=tmp, isolation=isolation)
        return {"isolation": isolation, **await _run(config, dispatcher, workers, tmp / "tricktable.sqlite3")}

    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(go(Path(tmp)))


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="all_fives")
    parser.add_argument("--games-per-pair", type=int, default=100, help="10 pairs: 100 gives 1,000 games")
    parser.add_argument("--workers", default="1,2", help="worker counts to measure, comma-separated")
    parser.add_argument("--server-games", type=int, default=0, help="also play about N games over gRPC")
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
        small_entrants: list[Any] = ["random", "first-legal", "heuristic"]
        small = bench_config(args.game, max(2, args.server_games // 3), small_entrants)  # 3 pairs
        # The same games with every bot sandboxed (the default) and as plain processes, in one run: the ratio
        # is the sandbox's cost on this machine, whatever its load.
        runs: tuple[tuple[str, Isolation], ...] = (("server", "sandbox"), ("server_trusted", "trusted"))
        for key, isolation in runs:
            row = run_server(small, 2, isolation)
            results[key] = row
            print(f"over gRPC, a process per bot ({isolation}), 2 at once: {row['games']} games in "
                  f"{row['wall_s']} s = {row['games_per_s']} games/s, {row['cpu_s']} CPU s", flush=True)
        results["sandbox_cost"] = round(results["server"]["wall_s"] / results["server_trusted"]["wall_s"], 2)
    results["load_avg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    text = json.dumps(results, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
