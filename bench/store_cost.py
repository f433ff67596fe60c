"""What storing an ended table costs in SQLite and in PostgreSQL, in one run: ``python -m bench.store_cost``.

A server stores each ended table's metadata and record once, in a batch
with the tables that ended within half a second (``Lobby`` ``STORE_SECONDS``),
from a worker thread. Measured here on real records (first-legal games of
Twenty-Five and All Fives played by a lobby without the network), written
through the two record stores (``tricktable.server.storage``,
``tricktable.server.pg_storage``) in alternating rounds, in batches of 1 (a
quiet server) and of 20 (a busy one):

- wall time per record (what the worker thread waits; the event loop never does);
- CPU per record of this process (encoding, the driver) and, for
  PostgreSQL, of the cluster's processes (read from ``/proc``), so the
  total is the machine's cost;
- the same per move (a record's cost over its game's moves), beside the
  server's CPU per move over gRPC (``bench.server_bench``: 409-693 µs);
- reading a record back by id (``GetRecord``'s query), wall time;
- the same records stored as a tournament's matches (``tricktable tournament``,
  :mod:`tricktable.tournament.store`: one statement per match as it ends, no
  batch), per match and per move, in SQLite and in PostgreSQL.

SQLite runs as the server runs it (WAL, ``synchronous=NORMAL``: a commit
waits for no fsync); PostgreSQL as installed (``fsync=on``,
``synchronous_commit=on``: a commit waits for its WAL flush), on a cluster
this run starts in a temporary directory on the same disk, reached over its
Unix socket (a database on another machine adds a network round trip per
batch). Results: ``bench/results/store_cost.json`` and a table on stdout.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench import cli
from bench.postgres_cluster import PostgresCluster, running_cluster
from tricktable.server.clocks import TimeControl
from tricktable.server.lobby import Lobby, meta_of
from tricktable.server.logging import configure
from tricktable.server.record_store import RecordStore, record_store
from tricktable.server.storage import Storage, TableMeta
from tricktable.tournament.runner import MatchOutcome
from tricktable.tournament.schedule import MatchSpec
from tricktable.tournament.store import TournamentStore, tournament_store

RESULTS = Path(__file__).resolve().parent / "results" / "store_cost.json"
CLOCKS = TimeControl(decision_seconds=600.0, bank_seconds=0.0, grace_seconds=600.0, join_seconds=600.0)
GAMES = ("twenty_five", "all_fives")
BATCHES = (1, 20)
#: The server CPU per move over gRPC that bench.server_bench measured (Twenty-Five, 40 tables; PlayMany, Play).
SERVER_CPU_US_PER_MOVE = (409.0, 693.0)

Ended = list[tuple[TableMeta, dict[str, Any]]]


async def _records(folder: Path, game: str, count: int) -> Ended:
    """``count`` ended tables of ``game`` (first-legal moves), as the lobby hands them to the store."""
    storage = Storage(folder / game).open()
    lobby = Lobby(storage, time_control=CLOCKS)
    ended: Ended = []
    for index in range(count):
        table, _ = lobby.create_table(game=game, seed=f"store-{game}-{index}")
        for seat in range(table.players):
            table.connect(seat)
        while not table.is_over:
            to_act = table.match.to_act
            pending = table.pending_for(to_act) if to_act is not None else None
            if pending is not None:
                table.submit(pending.seat, pending.decision_id, pending.legal_actions[0])
        ended.append((meta_of(table), table.record or {}))
    await lobby.drain()
    storage.close()
    return ended


def _write(store: RecordStore, ended: Ended, batch: int, tag: str,
           server_cpu: Callable[[], float]) -> dict[str, float]:
    """Store ``ended`` under fresh ids, ``batch`` at a time; per record: wall, this process's CPU, the server's."""
    renamed = [(replace(m, id=f"{m.id}-{tag}"), r) for m, r in ended]
    wall, cpu, server = time.perf_counter(), time.process_time(), server_cpu()
    for first in range(0, len(renamed), batch):
        store.save_all(renamed[first:first + batch])
    n = len(renamed)
    return {"wall_us": (time.perf_counter() - wall) / n * 1e6, "client_cpu_us": (time.process_time() - cpu) / n * 1e6,
            "server_cpu_us": (server_cpu() - server) / n * 1e6}


def _save_matches(store: TournamentStore, ended: Ended, tag: str, server_cpu: Callable[[], float]) -> dict[str, float]:
    """Store ``ended`` as matches of tournament ``tag``, one at a time as the engine does; per match, as _write."""
    matches = [(MatchSpec(match_id=f"{m.id}-{tag}", round=0, deck_set=index, group=0, arrangement=0, seed=m.id,
                          game=m.game, options=m.options, seats=tuple(m.names), sides=((0,), (1,))),
                MatchOutcome(match_id=f"{m.id}-{tag}", status=m.status, winners=tuple(m.winners),
                             scores=tuple(m.scores), reason=m.reason, record=r))
               for index, (m, r) in enumerate(ended)]
    wall, cpu, server = time.perf_counter(), time.process_time(), server_cpu()
    for spec, outcome in matches:
        store.save(tag, spec, outcome)
    n = len(matches)
    return {"wall_us": (time.perf_counter() - wall) / n * 1e6, "client_cpu_us": (time.process_time() - cpu) / n * 1e6,
            "server_cpu_us": (server_cpu() - server) / n * 1e6}


def _read_us(store: RecordStore, ids: list[str]) -> float:
    started = time.perf_counter()
    for table_id in ids:
        store.record(table_id)
    return (time.perf_counter() - started) / len(ids) * 1e6


def measure(records: int = 200, rounds: int = 5) -> dict[str, Any]:
    """Alternate the backends round by round; report the medians per backend, game and batch size."""
    configure(json=True, level="WARNING")
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="tricktable-store-") as tmp, running_cluster(durable=True) as cluster:
        folder = Path(tmp)
        ended = {game: asyncio.run(_records(folder / "play", game, records)) for game in GAMES}
        stores: dict[str, RecordStore] = {
            "sqlite": record_store(folder / "sqlite").open(),
            "postgres": record_store(folder / "pg", cluster.create_database()).open(),
        }
        tournaments: dict[str, TournamentStore] = {
            "sqlite": tournament_store(folder / "sqlite" / "tricktable.sqlite3"),
            "postgres": tournament_store(folder / "pg", cluster.create_database()),
        }
        cpu_of: dict[str, Callable[[], float]] = {"sqlite": lambda: 0.0, "postgres": cluster.cpu_seconds}
        samples: dict[tuple[str, str, int], list[dict[str, float]]] = {}
        match_samples: dict[tuple[str, str, int], list[dict[str, float]]] = {}
        reads: dict[str, list[float]] = {name: [] for name in stores}
        for round_ in range(rounds):
            order = list(stores) if round_ % 2 == 0 else list(reversed(stores))
            for name in order:
                for game in GAMES:
                    for batch in BATCHES:
                        tag = f"r{round_}-b{batch}"
                        samples.setdefault((name, game, batch), []).append(
                            _write(stores[name], ended[game], batch, tag, cpu_of[name]))
                    match_samples.setdefault((name, game, 1), []).append(
                        _save_matches(tournaments[name], ended[game], f"{game}-r{round_}", cpu_of[name]))
                ids = [f"{m.id}-r{round_}-b1" for m, _ in ended["all_fives"]]
                reads[name].append(_read_us(stores[name], ids))
        report = _report(samples, reads, ended, cluster, rounds)
        report["tournament_matches"] = _rows(match_samples, ended)
        report["load_average"] = {"before": [round(x, 2) for x in load_before],
                                  "after": [round(x, 2) for x in os.getloadavg()]}
        report["cores"] = os.cpu_count()
        for store in stores.values():
            store.close()
        for tournament in tournaments.values():
            tournament.close()
    return report


def _report(samples: dict[tuple[str, str, int], list[dict[str, float]]], reads: dict[str, list[float]],
            ended: dict[str, Ended], cluster: PostgresCluster, rounds: int) -> dict[str, Any]:
    return {"rounds": rounds, "postgres_durable": cluster.durable,
            "read_wall_us": {name: round(statistics.median(v), 1) for name, v in reads.items()},
            "rows": _rows(samples, ended)}


def _rows(samples: dict[tuple[str, str, int], list[dict[str, float]]], ended: dict[str, Ended]) -> list[dict[str, Any]]:
    """Per store, game and batch: the medians over the rounds, per record (or match) and per move."""
    rows = []
    for (name, game, batch), runs in sorted(samples.items()):
        moves = statistics.mean(m.actions for m, _ in ended[game])
        # The cluster's CPU is read in clock ticks (10 ms): its mean over the rounds, the others' medians.
        median = {key: (statistics.mean if key == "server_cpu_us" else statistics.median)(r[key] for r in runs)
                  for key in runs[0]}
        total = median["client_cpu_us"] + median["server_cpu_us"]
        rows.append({"store": name, "game": game, "batch": batch, "records": len(ended[game]),
                     "record_bytes": round(statistics.mean(len(json.dumps(r, separators=(",", ":")))
                                                           for _, r in ended[game])),
                     "moves_per_game": round(moves, 1), **{k: round(v, 1) for k, v in median.items()},
                     "total_cpu_us": round(total, 1), "cpu_us_per_move": round(total / moves, 2),
                     "share_of_server_cpu_per_move": [round(total / moves / s, 4) for s in SERVER_CPU_US_PER_MOVE],
                     "wall_us_range": [round(min(r["wall_us"] for r in runs), 1),
                                       round(max(r["wall_us"] for r in runs), 1)]})
    return rows


def render(report: dict[str, Any]) -> str:
    lines = [f"{'store':9} {'game':12} {'batch':>5} {'wall µs':>9} {'client µs':>10} {'server µs':>10}"
             f" {'CPU µs/move':>12} {'bytes':>7}"]
    for r in report["rows"]:
        lines.append(f"{r['store']:9} {r['game']:12} {r['batch']:>5} {r['wall_us']:>9.1f} {r['client_cpu_us']:>10.1f}"
                     f" {r['server_cpu_us']:>10.1f} {r['cpu_us_per_move']:>12.2f} {r['record_bytes']:>7}")
    lines.append(f"read a record by id (wall µs): {report['read_wall_us']}")
    lines.append("a tournament's matches, one statement each:")
    for r in report.get("tournament_matches", []):
        lines.append(f"{r['store']:9} {r['game']:12} {'-':>5} {r['wall_us']:>9.1f} {r['client_cpu_us']:>10.1f}"
                     f" {r['server_cpu_us']:>10.1f} {r['cpu_us_per_move']:>12.2f} {r['record_bytes']:>7}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("bench.store_cost", __doc__, out=RESULTS)
    parser.add_argument("--records", type=int, default=200, help="ended tables per game (default 200)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    args = parser.parse_args(argv)
    report = measure(args.records, args.rounds)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(render(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
