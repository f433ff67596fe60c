"""A table's life in one process: the server's fixed CPU per game, for this tree and earlier commits in one run.

What a game costs the server besides its moves, without the network, with
the journal and the record store of a real data directory. A run plays its
games 40 at a time, a move of each in turn as the server's tables play side
by side (with one table at a time its journal steps would lie together and
leave the journal cheaper than they do in a server), and times, with
``time.process_time`` (every thread: records are stored in a worker thread):

- **total**: everything from the first ``CreateTable`` to the last record
  stored and the journal closed, divided by the games;
- **move**: each answer but the last through ``decide`` and every seat's
  stream drained once, as :mod:`bench.table_step` does;
- **fixed** = total - the game's moves x move: what a game costs besides its
  moves, wherever it is spent (a tree may store records or forget journaled
  tables in batches, on a timer or at the end);
- for a look inside: **open**, ``CreateTable`` on the servicer (lobby,
  rules' first deal, ``Table``, tokens, the journal's opening) then each
  seat's stream (``tricktable.server.service._seat_stream`` with batches,
  its conversions as ``Play`` makes them) to its ``Joined`` and its first
  batch (the last join starts the table); and **end**, the last answer (it
  ends the match and builds the record) and every stream drained to its end.

Every message is serialized, as gRPC does before writing it. Bots answer
with the first legal action id, so a game plays the same moves on every
tree. Not measured here: gRPC's own work for the calls (the unary
``CreateTable`` through the interceptors, the streams' reads and writes):
``bench.server_bench`` measures the whole server.

Why a separate bench: a game's start and end are a sixth to a quarter of the
server's CPU per move under the throughput load, and a change to them moves
the whole server's figure by less than its noise. Each tree runs in its own
process in alternating rounds (``--refs``, as :mod:`bench.table_step`), each
figure the median of its rounds with its best beside it. Full collections
are left out and reported apart, as there. The collector runs as the
measured tree's server runs it once up (``runtime.settle_collector``:
start-up heap frozen, thresholds raised; Python's own where a tree has
none): at Python's 700 its young collections land in whatever allocates
and are a larger share of a game than in the server.

Run ``python -m bench.table_life --refs main`` (JSON to
``bench/results/table_life.json`` and a table on stdout).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "table_life.json"
#: The game of the server's CPU goal.
GAME = "twenty_five"
#: The parts of a game this bench times, in order.
PARTS = ("open", "moves", "end")


class _Context:
    """What the servicer reads of a unary call's context: the peer and the metadata, for the per-client limits."""

    @staticmethod
    def peer() -> str:
        return "ipv4:127.0.0.1:40000"

    @staticmethod
    def invocation_metadata() -> tuple[tuple[str, str], ...]:
        return ()  # a client's own call: nothing forwarded


class _Clock:
    """Process CPU (every thread) per part of a game; full collections timed apart, inside a part or not."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(PARTS, 0.0)
        self.full_gc_seconds = 0.0
        self.full_gcs = 0
        self._part: str | None = None
        self._started = 0.0
        self._gc_started = 0.0

    def start(self, part: str) -> None:
        self._part, self._started = part, time.process_time()

    def stop(self, part: str | None = None) -> None:
        """End the part begun; ``part``: count it as this part instead (a move is the end once it ended the game)."""
        if self._part is not None:
            self.seconds[part or self._part] += time.process_time() - self._started
        self._part = None

    def heard(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._gc_started = time.process_time()
            return
        spent = time.process_time() - self._gc_started
        if self._part is not None:
            self.seconds[self._part] -= spent
        self.full_gc_seconds += spent
        self.full_gcs += 1


async def _play_games(game: str, games: int, seed: str, data_dir: Path, tables: int = 40) -> dict[str, Any]:
    """Play ``games`` tables, ``tables`` at a time, from ``CreateTable`` to their stored records; CPU seconds by part.

    Why at a time: with one table at a time its journal steps lie together and deleting them is cheap; the
    server's tables play side by side, one move of each in turn, and so do these.
    """
    pb: Any = _module("protocol.generated.tricktable.v1.table_service_pb2")
    convert: Any = _module("protocol.convert")
    service: Any = _module("server.service")
    lobby_module: Any = _module("server.lobby")
    storage = _module("server.storage").Storage(data_dir).open()
    journal = _module("server.journal").Journal(data_dir).open()
    Inbox = _module("server.stream_guard").Inbox
    lobby = lobby_module.Lobby(storage, journal=journal)
    servicer = service.TableService(lobby)
    clock = _Clock()
    moves = [0]

    async def one_table(number: int) -> AsyncIterator[None]:
        """A table's life, a step at a time (its opening, each move, its end): it yields after each."""
        clock.start("open")
        created = await servicer.CreateTable(
            pb.CreateTableRequest(game=convert.game_to_proto(game), seed=f"{seed}-{number}"), _Context())
        created.SerializeToString()
        table, _ = lobby.resolve(created.seat_tokens[0].token)
        inboxes = [Inbox() for _ in created.seat_tokens]
        wires = [service._seat_wire(table, False) for _ in created.seat_tokens]
        streams: list[Any] = [
            service._seat_stream(table, t.seat, f"bot-{t.seat}", 0, pb.PlayResponse, inboxes[t.seat], None,
                                 True, wire=wires[t.seat])
            for t in created.seat_tokens]
        pending = None
        for stream in streams:  # Joined; the last join starts the table
            (await anext(stream)).SerializeToString()
        for stream in streams:  # the log from the start (from 0: the last to join has news too), a decision in it
            message = await anext(stream)
            message.SerializeToString()
            pending = _decision_in(message) or pending
        clock.stop()
        while pending is not None:
            yield
            seat = table.match.to_act
            decide = pb.Decide(decision_id=pending.decision_id, action_id=pending.legal_actions[0].id)
            clock.start("moves")
            outcome = service.decide(table, seat, decide, wires[seat])
            inboxes[seat].append(service._outcome_response(pb.PlayResponse, decide.decision_id, outcome))
            table.wake()
            pending = None
            if table.is_over:
                for stream in streams:
                    async for message in stream:
                        message.SerializeToString()
                clock.stop("end")
            else:
                for stream in streams:
                    message = await anext(stream)
                    message.SerializeToString()
                    pending = _decision_in(message) or pending
                moves[0] += 1
                clock.stop()
        for stream in streams:
            await stream.aclose()

    gc.callbacks.append(clock.heard)
    started = time.process_time()
    try:
        numbers = iter(range(games))
        playing = [one_table(n) for n in itertools.islice(numbers, tables)]
        while playing:  # one step of each table in turn; an ended table's place goes to the next
            still = []
            for steps in playing:
                try:
                    await anext(steps)
                    still.append(steps)
                except StopAsyncIteration:
                    number = next(numbers, None)
                    if number is not None:
                        still.append(one_table(number))
            playing = still
        await lobby.drain()  # the records not stored yet (a tree may store them in batches), then the journal's
        journal.close()
        total = time.process_time() - started - clock.full_gc_seconds
    finally:
        gc.callbacks.remove(clock.heard)
        journal.close()
        storage.close()
    return {"games": games, "moves": moves[0], **{f"{p}_cpu_seconds": s for p, s in clock.seconds.items()},
            "total_cpu_seconds": total, "full_gc_seconds": clock.full_gc_seconds, "full_gcs": clock.full_gcs,
            "source": service.__file__, "collector_thresholds": list(gc.get_threshold())}


def _module(name: str) -> Any:
    """``tricktable.<name>`` from the measured tree."""
    return importlib.import_module("tricktable." + name)


def _decision_in(message: Any) -> Any:
    """The DecisionRequest a PlayResponse carries (alone or in its batch), or None."""
    if message.WhichOneof("kind") == "decision":
        return message.decision
    if message.WhichOneof("kind") == "batch":
        for item in message.batch.messages:
            if item.WhichOneof("kind") == "decision":
                return item.decision
    return None


def _worker(game: str, games: int, tables: int, seed: str) -> None:
    """Measure the tree on ``sys.path`` (the caller's PYTHONPATH) and print one JSON line."""
    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # warnings and up: no log cost
    with tempfile.TemporaryDirectory(prefix="tricktable-life-") as tmp:
        # Games first, not counted: first-use imports and compilation, and the store's first pages.
        asyncio.run(_play_games(game, 3, f"{seed}-warm-up", Path(tmp)))
        settle = getattr(_module("server.runtime"), "settle_collector", None)
        if settle is not None:
            settle()
        result = asyncio.run(_play_games(game, games, seed, Path(tmp), tables))
    print(json.dumps(result))


def _measure(tree: Path, game: str, games: int, tables: int, seed: str) -> dict[str, Any]:
    from bench.trees import run_worker  # here, not at the top: a worker runs with an older tree's bench package

    return run_worker(tree, str(Path(__file__).resolve()), ["--worker", "--game", game, "--games", str(games),
                                                            "--tables", str(tables),
                                                            "--seed", seed])


def run(refs: Sequence[str], *, game: str = GAME, games: int = 120, tables: int = 40, rounds: int = 5,
        seed: str = "life") -> dict[str, Any]:
    """CPU us per game (open, end, fixed) and per move of each ref and the working tree, in alternating rounds."""
    from bench.trees import commit_titles, trees

    with tempfile.TemporaryDirectory(prefix="tricktable-life-") as tmp:
        measured = trees(refs, Path(tmp))
        per_round: dict[str, list[dict[str, float]]] = {name: [] for name in measured}
        thresholds: dict[str, list[int]] = {}
        moves = 0
        for _ in range(rounds):
            for name, tree in measured.items():
                result = _measure(tree, game, games, tables, seed)
                moves = int(result["moves"])
                thresholds[name] = result.get("collector_thresholds", [])
                move = result["moves_cpu_seconds"] / moves * 1e6
                total = result["total_cpu_seconds"] / games * 1e6
                per_round[name].append({"open": result["open_cpu_seconds"] / games * 1e6,
                                        "end": result["end_cpu_seconds"] / games * 1e6, "move": move, "total": total,
                                        "fixed": total - (moves / games) * move,
                                        "full_gc": result["full_gc_seconds"] / games * 1e6})
    first = next(iter(per_round))
    base = statistics.median(r["fixed"] for r in per_round[first])
    rows = {}
    for name, found in per_round.items():
        row: dict[str, Any] = {f"{key}_us_median": round(statistics.median(r[key] for r in found), 1)
                               for key in ("open", "end", "move", "total", "fixed", "full_gc")}
        row["fixed_us_best"] = round(min(r["fixed"] for r in found), 1)
        row["fixed_us_by_round"] = [round(r["fixed"], 1) for r in found]
        row[f"ratio_to_{first}"] = round(row["fixed_us_median"] / base, 3)
        row["collector_thresholds"] = thresholds[name]
        rows[name] = row
    return {"game": game, "games_per_round": games, "tables_at_once": tables, "moves_per_round": moves,
            "rounds": rounds, "seed": seed,
            "load_average": [round(x, 2) for x in os.getloadavg()], "commits": commit_titles(refs), "rows": rows}


def render(report: dict[str, Any]) -> str:
    lines = [f"a table's life in process ({report['game']}, {report['games_per_round']} games, "
             f"{report['tables_at_once']} at once "
             f"({report['moves_per_round']} moves) x {report['rounds']} rounds, load average "
             f"{report['load_average']}; us of CPU per game, medians of the rounds)",
             "{:<14} {:>8} {:>8} {:>8} {:>8} {:>8} {:>7} {:>8} {:>8}  {}".format(
                 "tree", "fixed", "ratio", "best", "total", "open", "end", "move", "full gc", "commit")]
    for name, row in report["rows"].items():
        ratio = next(v for k, v in row.items() if k.startswith("ratio_to_"))
        lines.append("{:<14} {:>8} {:>8} {:>8} {:>8} {:>8} {:>7} {:>8} {:>8}  {}".format(
            name, row["fixed_us_median"], ratio, row["fixed_us_best"], row["total_us_median"], row["open_us_median"],
            row["end_us_median"],
            row["move_us_median"], row["full_gc_us_median"], report["commits"].get(name, "(working tree)")))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.table_life", description=__doc__.split("\n")[0])
    parser.add_argument("--refs", default="", help="comma separated commits measured before the working tree")
    parser.add_argument("--game", default=GAME)
    parser.add_argument("--games", type=int, default=120, help="tables played per round and tree")
    parser.add_argument("--tables", type=int, default=40, help="tables played at once, a move of each in turn")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", default="life")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        _worker(args.game, args.games, args.tables, args.seed)
        return 0
    from bench.trees import refs_of, save_report  # after the worker's return: see run()

    report = run(refs_of(args.refs), game=args.game, games=args.games, tables=args.tables,
                 rounds=args.rounds, seed=args.seed)
    return save_report(report, args.out, render(report))


if __name__ == "__main__":
    if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        sys.path.pop(0)  # run by path in a worker: the packages come from PYTHONPATH, not bench/
    raise SystemExit(main())
