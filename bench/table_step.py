"""The table step in one process: the server's own CPU per move, for this tree and earlier commits in one run.

What a move costs the server between reading seat A's answer and writing
seat B's decision, without the network: :func:`tricktable.server.service.decide` on
the answer (the id looked up in what A's stream sent, as the Play reader does;
the rules' check and step, the logs), the Accepted
put in A's inbox, then every seat's stream (``tricktable.server.service._seat_stream``
with batches) drained once and every message serialized, as gRPC does
before writing it. Bots answer with the first legal action id, so a game
plays the same moves on every tree. Each stream is the one an SDK bot's join
opens on that tree (``Join.legal_actions_once`` where the tree has it: the
legal actions in the request only); ``--plain-join`` measures the join of a
client that asks for nothing (both copies of the legal actions). No journal (``bench.journal_cost``
measures it), no coalescing hold (every seat's batch is drained at once:
the same conversions, more batch wrappers).

Why a separate bench: the server benchmark's CPU per move moves by ±10% with
the machine's load, more than one change to the step buys. Here each tree
runs in its own process in alternating rounds, so one run says what each
commit bought: ``--refs`` names the commits (``git archive`` of each into a
temporary folder), the working tree is always measured last as ``tree``.
Each tree's figure is the median of its rounds, with its best round beside
it: on shared cores a round is only ever slowed by the others' load, so the
best is the least disturbed. The figures leave out the collector's full
collections (``_FullCollections``: whether the one full collection of a run
falls inside a move is chance), reported apart per round; the young
collections a move's allocations cause stay in.

Run ``python -m bench.table_step --refs main`` (JSON to
``bench/results/table_step.json`` and a table on stdout).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import inspect
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "table_step.json"
#: The game of the server's CPU goal.
GAME = "twenty_five"


async def _play_games(game: str, games: int, seed: str, plain_join: bool = False,
                      metrics: bool = False) -> dict[str, Any]:
    """Play ``games`` tables through the real decide and stream code; the CPU and wall seconds of the moves.

    ``metrics``: the tables count what a server's ``/metrics`` serves (one :class:`Metrics` for the run, as a
    lobby gives its tables); without, they count nothing (as ``serve --no-metrics``, and less: no call at all).

    ``source`` names the file the server code came from, so the caller can check that the tree it meant
    was the tree measured.
    """

    pb: Any = _module("protocol.generated.tricktable.v1.table_service_pb2")
    new_match = _module("rules.registry").new_match
    service: Any = _module("server.service")
    TimeControl = _module("server.clocks").TimeControl
    Inbox = _module("server.stream_guard").Inbox
    Table = _module("server.tables").Table
    counted = {"metrics": _module("server.metrics").Metrics()} if metrics else {}

    moves = 0
    cpu = wall = 0.0
    full = _FullCollections()
    gc.callbacks.append(full.heard)
    for number in range(games):
        match = new_match(game, {}, seed=f"{seed}-{number}")
        table = Table(table_id=f"t{number}", match=match, seed=seed, time_control=TimeControl(), **counted)
        inboxes = [Inbox() for _ in range(table.players)]
        wires = [_stream_wire(service, table, plain_join) for _ in range(table.players)]
        streams: list[Any] = [
            service._seat_stream(table, s, f"bot-{s}", 0, pb.PlayResponse, inboxes[s], None, True,
                                 **({} if wires[s] is None else {"wire": wires[s]}))
            for s in range(table.players)]
        pending: pb.DecisionRequest | None = None
        for stream in streams:  # joined; the last join starts the table
            await anext(stream)
        for stream in streams:  # the log from its start (a resume from 0: the last to join has news too)
            pending = _decision_in(await anext(stream)) or pending
        while pending is not None:
            full.measuring = True
            c0, w0 = time.process_time(), time.perf_counter()
            seat = _seat_to_act(table)
            decide = pb.Decide(decision_id=pending.decision_id, action_id=pending.legal_actions[0].id)
            outcome = service.decide(table, seat, decide, *(() if wires[seat] is None else (wires[seat],)))
            inboxes[seat].append(service._outcome_response(pb.PlayResponse, decide.decision_id, outcome))
            table.wake()
            pending = None
            for stream in streams:
                message = await anext(stream)
                message.SerializeToString()
                pending = _decision_in(message) or pending
            cpu += time.process_time() - c0
            wall += time.perf_counter() - w0
            full.measuring = False
            moves += 1
        for stream in streams:
            await stream.aclose()
    gc.callbacks.remove(full.heard)
    return {"moves": moves, "cpu_seconds": cpu, "full_gc_seconds": full.seconds, "full_gcs": full.count,
            "wall_seconds": wall, "source": service.__file__}


class _FullCollections:
    """The collector's full (generation 2) collections that fall inside the measured moves, timed.

    Why apart: a full collection walks the whole heap (the interpreter, gRPC
    and protobuf modules: 15-30 ms here) about once per run, and whether it
    falls inside a move or between tables is chance; counted in, it moves a
    tree's figure by 15-35 us per move from one commit to the next. Young
    collections are frequent and proportional to what a move allocates, so
    they stay in the step's figure.
    """

    def __init__(self) -> None:
        self.measuring = False
        self.seconds = 0.0
        self.count = 0
        self._started = 0.0

    def heard(self, phase: str, info: dict[str, int]) -> None:
        if not self.measuring or info["generation"] != 2:
            return
        if phase == "start":
            self._started = time.process_time()
        else:
            self.seconds += time.process_time() - self._started
            self.count += 1


def _stream_wire(service: Any, table: Any, plain_join: bool = False) -> Any:
    """The seat stream's conversions, shared by its writer and its reader as the Play handler shares them.

    Why: the reader looks an answer's action id up in what the writer sent
    (``SeatWire.action_named``); without the wire, ``decide`` falls back to
    computing every legal action's id, which the server does not do. None
    for a commit from before the stream had one. The stream sends the legal
    actions once, as the SDK asks, where the tree can and ``plain_join`` is
    not set.
    """
    make = getattr(service, "_seat_wire", None)
    if make is None:
        return None
    once = not plain_join and "legal_actions_once" in inspect.signature(make).parameters
    return make(table, False, *((True,) if once else ()))


def _module(name: str) -> Any:
    """``tricktable.<name>`` from the measured tree, or the bare ``<name>`` of a commit before the namespace.

    Why: a commit from before every package moved under ``tricktable`` has no
    ``tricktable/`` folder, and importing ``tricktable.<name>`` there would
    fall through to the installed (editable) working tree and measure it twice.
    """
    prefix = "tricktable." if (Path.cwd() / "tricktable").is_dir() else ""
    return importlib.import_module(prefix + name)


def _seat_to_act(table: Any) -> int:
    seat: int = table.match.to_act
    return seat


def _decision_in(message: Any) -> Any:
    """The DecisionRequest a PlayResponse carries (alone or in its batch), or None."""
    if message.WhichOneof("kind") == "decision":
        return message.decision
    if message.WhichOneof("kind") == "batch":
        for item in message.batch.messages:
            if item.WhichOneof("kind") == "decision":
                return item.decision
    return None


def _worker(game: str, games: int, seed: str, plain_join: bool, metrics: bool = False) -> None:
    """Measure the tree on ``sys.path`` (the caller's PYTHONPATH) and print one JSON line."""
    import asyncio

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # warnings and up: no log cost
    # One game first, not counted: what a tree imports or compiles on first use (a commit exported without its
    # bytecode compiles it there) is not a cost of the step.
    asyncio.run(_play_games(game, 1, f"{seed}-warm-up", plain_join, metrics))
    result = asyncio.run(_play_games(game, games, seed, plain_join, metrics))
    print(json.dumps(result))


def _measure(tree: Path, game: str, games: int, seed: str, plain_join: bool = False,
             metrics: bool = False) -> dict[str, Any]:
    from bench.trees import run_worker  # here, not at the top: a worker runs with an older tree's bench package

    return run_worker(tree, str(Path(__file__).resolve()), ["--worker", "--game", game, "--games", str(games),
                                                            "--seed", seed, *(["--plain-join"] if plain_join else []),
                                                            *(["--metrics"] if metrics else [])])


def run(refs: Sequence[str], *, game: str = GAME, games: int = 10, rounds: int = 5,
        seed: str = "step", plain_join: bool = False, metrics: bool = False) -> dict[str, Any]:
    """CPU us per move of each ref and of the working tree, in ``rounds`` alternating rounds; ratios to the first.

    ``metrics``: the working tree alone, its tables without metrics (``metrics_off``) and counting them
    (``metrics_on``), the order alternating by round; ``metrics_cpu_us_per_move`` is the median over the rounds
    of on minus off: what the metrics cost the step of a move.
    """
    from bench.trees import commit_titles, trees

    with tempfile.TemporaryDirectory(prefix="tricktable-step-") as tmp:
        if metrics:
            tree = trees([], Path(tmp))["tree"]
            measured = {"metrics_off": (tree, False), "metrics_on": (tree, True)}
        else:
            measured = {name: (tree, False) for name, tree in trees(refs, Path(tmp)).items()}
        per_round: dict[str, list[float]] = {name: [] for name in measured}
        full_gc: dict[str, list[float]] = {name: [] for name in measured}
        moves = 0
        for index in range(rounds):
            order = list(measured) if not metrics or index % 2 == 0 else list(reversed(measured))
            for name in order:
                tree, counted = measured[name]
                result = _measure(tree, game, games, seed, plain_join, counted)
                moves = int(result["moves"])
                full_gc[name].append(result["full_gc_seconds"] / moves * 1e6)
                per_round[name].append(result["cpu_seconds"] / moves * 1e6 - full_gc[name][-1])
    first = next(iter(per_round))
    base = statistics.median(per_round[first])
    rows = {name: {"cpu_us_per_move_median": round(statistics.median(values), 1),
                   "cpu_us_per_move_best": round(min(values), 1),
                   "cpu_us_per_move_by_round": [round(v, 1) for v in values],
                   "full_gc_us_per_move_by_round": [round(v, 1) for v in full_gc[name]],
                   f"ratio_to_{first}": round(statistics.median(values) / base, 3)}
            for name, values in per_round.items()}
    commits = {} if metrics else commit_titles(refs)
    costs = {} if not metrics else {"metrics_cpu_us_per_move": round(statistics.median(
        on - off for on, off in zip(per_round["metrics_on"], per_round["metrics_off"], strict=True)), 1)}
    return {**costs, "game": game, "games_per_round": games, "moves_per_game_set": moves, "rounds": rounds,
            "seed": seed,
            "join": "plain" if plain_join else "as the SDK joins",
            "load_average": [round(x, 2) for x in os.getloadavg()], "commits": commits, "rows": rows}


def render(report: dict[str, Any]) -> str:
    lines = [f"table step in process ({report['game']}, {report['moves_per_game_set']} moves x {report['rounds']} "
             f"rounds, join {report.get('join', 'as the SDK joins')}, load average {report['load_average']})",
             "{:<14} {:>10} {:>8} {:>8} {:>12}  {}".format("tree", "us/move", "ratio", "best", "full gc/move",
                                                            "commit")]
    for name, row in report["rows"].items():
        ratio = next(v for k, v in row.items() if k.startswith("ratio_to_"))
        lines.append("{:<14} {:>10} {:>8} {:>8} {:>12}  {}".format(
            name, row["cpu_us_per_move_median"], ratio, row["cpu_us_per_move_best"],
            round(statistics.median(row["full_gc_us_per_move_by_round"]), 1),
            report["commits"].get(name, "(working tree)")))
    if "metrics_cpu_us_per_move" in report:
        lines.append(f"metrics: {report['metrics_cpu_us_per_move']} us a move (median of the rounds' on - off)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.table_step", description=__doc__.split("\n")[0])
    parser.add_argument("--refs", default="", help="comma separated commits measured before the working tree")
    parser.add_argument("--game", default=GAME)
    parser.add_argument("--games", type=int, default=10, help="tables played per round and tree")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", default="step")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--plain-join", action="store_true", help="streams of a client that asks for no option "
                        "(the legal actions twice) instead of the SDK's join")
    parser.add_argument("--metrics", action="store_true", help="the working tree's step with and without the "
                        "metrics counted, in alternating rounds: what they cost a move (ignores --refs)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        _worker(args.game, args.games, args.seed, args.plain_join, args.metrics)
        return 0
    from bench.trees import refs_of, save_report  # after the worker's return: see run()

    report = run(refs_of(args.refs), game=args.game, games=args.games, rounds=args.rounds,
                 seed=args.seed, plain_join=args.plain_join, metrics=args.metrics)
    return save_report(report, args.out, render(report))


if __name__ == "__main__":
    if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        sys.path.pop(0)  # run by path in a worker: the packages come from PYTHONPATH, not bench/
    raise SystemExit(main())
