"""The SDK's CPU per decision: recorded seat messages replayed through the runner, for this tree and earlier commits.

What a bot process spends between reading a server message and calling the
bot's ``choose_action``: the runner's ``_SeatLoop.handle`` on each message a
seat was sent (the coalesced events, the decision's legal actions, its view
and the view's new history entries), with a bot that answers the first legal
action and a send that does nothing. That decoding is one part of the gap between
SDK bots and stub bots in the server benchmark's turnaround (docs/benchmarks.md,
"What the SDK bots' extra turnaround is made of").

The messages are recorded once per run, from a real server on 127.0.0.1
(every seat of ``--games`` tables joined as the runner joins: batches,
coalesced events, the legal actions once; each answering its first legal
action id), then every tree replays the same
bytes in its own process: ``--refs`` names earlier commits (``git archive``
of each, as :mod:`bench.table_step` does), the working tree is measured last
as ``tree``, and the trees alternate round by round. Each process replays
``--warmup`` other tables first, not counted, then the ``--games`` measured
ones once each: the SDK's memos hold what a bot process that has played a
few games holds, no more (a table replayed twice would find its every trick
and history entry decoded already). Warm code all the same: a real bot
process woken once per move runs it cold, about twice as slow. Parsing the
bytes is left out (gRPC does it before the runner sees a message).

Run ``python -m bench.sdk_decode --refs main`` (JSON to
``bench/results/sdk_decode.json`` and a table on stdout).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "sdk_decode.json"
#: The game of the turnaround goal.
GAME = "twenty_five"


async def record(game: str, games: int, seed: str) -> list[list[list[bytes]]]:
    """Every seat's server messages (serialized ``PlayResponse``) at ``games`` tables of a real server: per table,
    one list per seat."""
    import structlog

    from tricktable.protocol import convert
    from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
    from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
    from tricktable.server.app import GameServer, ServerConfig

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # the server's logs: errors only
    tables: list[list[list[bytes]]] = []
    with tempfile.TemporaryDirectory(prefix="tricktable-sdk-decode-") as tmp:
        server = GameServer(ServerConfig(host="127.0.0.1", port=0, data_dir=Path(tmp), journal=False,
                                         stop_grace=1.0))
        await server.start()
        try:
            async with _channel(server.address) as channel:
                stub = table_service_pb2_grpc.TableServiceStub(channel)
                for number in range(games):
                    created = await stub.CreateTable(pb.CreateTableRequest(
                        game=convert.game_to_proto(game), options=convert.options_to_proto(game, {}),
                        seed=f"{seed}-{number}"))
                    tables.append(list(await asyncio.gather(*(_record_seat(stub, t.token)
                                                              for t in created.seat_tokens))))
        finally:
            await server.stop()
    return tables


def _channel(address: str) -> Any:
    import grpc

    return grpc.aio.insecure_channel(address)


async def _record_seat(stub: Any, token: str) -> list[bytes]:
    """Join as the runner does and answer every decision with its first legal action; the messages as sent."""
    from tricktable.protocol import convert
    from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb

    call = stub.Play()
    messages: list[bytes] = []
    try:
        await call.write(pb.PlayRequest(join=pb.Join(token=token, accept_batches=True, coalesce_events=True,
                                                     legal_actions_once=True)))
        while True:
            message = await call.read()
            if not isinstance(message, pb.PlayResponse):
                return messages  # the end of the stream
            messages.append(message.SerializeToString())
            items = message.batch.messages if message.WhichOneof("kind") == "batch" else [message]
            for item in items:
                if item.WhichOneof("kind") != "decision":
                    continue
                decide = pb.Decide(decision_id=item.decision.decision_id)
                if item.decision.legal_actions:
                    decide.action_id = item.decision.legal_actions[0].id
                else:  # a discard offered as a DiscardChoice: named by its notation
                    first = convert.discard_choice_from_proto(item.decision.discard_choice)[0]
                    decide.action_id = convert.action_id(first)
                await call.write(pb.PlayRequest(decide=decide))
    finally:
        call.cancel()


class _FirstLegal:
    """The cheapest bot: the first legal action; counts its decisions and notes when it was last asked."""

    def __init__(self) -> None:
        self.decisions = 0
        self.asked_at = 0.0

    def choose_action(self, view: Any) -> Any:
        self.asked_at = time.process_time()
        self.decisions += 1
        return view.legal_actions[0]


async def replay(warmup: Sequence[Sequence[bytes]], measured: Sequence[Sequence[bytes]]) -> dict[str, Any]:
    """Every seat's messages through ``_SeatLoop.handle``, the ``warmup`` seats first (not counted).

    ``cpu_seconds``: the measured seats' handling; ``to_choose_seconds``: of that, the time from the start of
    handling a message to the bot being asked, summed over the messages that ask it (the turnaround's share:
    the rest, the answer's encoding and the messages that ask nothing, is off the path from a read to the bot).
    Both are CPU time (the clock read per message adds about the same fraction of a microsecond to every tree).
    """
    from tricktable.client_sdk import runner
    from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb

    async def send(decide: Any) -> None:
        return None

    cpu = to_choose = 0.0
    for seats, counted in ((warmup, False), (measured, True)):
        bot = _FirstLegal()
        for seat in seats:
            messages = [pb.PlayResponse.FromString(data) for data in seat]
            loop = runner._SeatLoop(bot, runner.SeatSession(token="replay"), send, max_reasks=1)
            started = time.process_time()
            for message in messages:
                asked = bot.decisions
                handling = time.process_time()
                await loop.handle(message)
                if bot.decisions > asked:
                    to_choose += (bot.asked_at - handling) * counted
            cpu += (time.process_time() - started) * counted
    return {"cpu_seconds": cpu, "to_choose_seconds": to_choose, "decisions": bot.decisions,
            "source": runner.__file__}


def _worker(messages: Path) -> None:
    """Replay the recorded messages with the tree on ``sys.path`` (the caller's PYTHONPATH); one JSON line."""
    import logging

    logging.getLogger("tricktable").setLevel(logging.ERROR)
    recorded = json.loads(messages.read_text())
    warmup, measured = ([[base64.b64decode(m) for m in seat] for seat in recorded[part]]
                        for part in ("warmup", "measured"))
    print(json.dumps(asyncio.run(replay(warmup, measured))))


def _measure(tree: Path, messages: Path) -> dict[str, Any]:
    from bench.trees import run_worker  # here, not at the top: a worker runs with an older tree's bench package

    return run_worker(tree, str(Path(__file__).resolve()), ["--worker", str(messages)])


def run(refs: Sequence[str], *, game: str = GAME, games: int = 16, warmup: int = 8, rounds: int = 5,
        seed: str = "sdk-decode") -> dict[str, Any]:
    """CPU us per decision of each ref and of the working tree in ``rounds`` alternating rounds; ratios to the first."""
    from bench.cli import machine
    from bench.trees import commit_titles, trees

    tables = asyncio.run(record(game, warmup + games, seed))
    parts = {"warmup": [seat for table in tables[:warmup] for seat in table],
             "measured": [seat for table in tables[warmup:] for seat in table]}
    with tempfile.TemporaryDirectory(prefix="tricktable-sdk-decode-") as tmp:
        messages = Path(tmp) / "messages.json"
        messages.write_text(json.dumps({part: [[base64.b64encode(m).decode() for m in seat] for seat in seats]
                                        for part, seats in parts.items()}))
        measured_trees = trees(refs, Path(tmp))
        per_round: dict[str, list[float]] = {name: [] for name in measured_trees}
        to_choose: dict[str, list[float]] = {name: [] for name in measured_trees}
        decisions = 0
        for _ in range(rounds):
            for name, tree in measured_trees.items():
                result = _measure(tree, messages)
                decisions = int(result["decisions"])
                per_round[name].append(result["cpu_seconds"] / decisions * 1e6)
                to_choose[name].append(result["to_choose_seconds"] / decisions * 1e6)
    first = next(iter(per_round))
    base = statistics.median(per_round[first])
    base_to_choose = statistics.median(to_choose[first])
    rows = {name: {"cpu_us_per_decision_median": round(statistics.median(values), 1),
                   "cpu_us_per_decision_best": round(min(values), 1),
                   "cpu_us_per_decision_by_round": [round(v, 1) for v in values],
                   f"ratio_to_{first}": round(statistics.median(values) / base, 3),
                   "to_choose_us_per_decision_median": round(statistics.median(to_choose[name]), 1),
                   "to_choose_us_per_decision_best": round(min(to_choose[name]), 1),
                   "to_choose_us_per_decision_by_round": [round(v, 1) for v in to_choose[name]],
                   f"to_choose_ratio_to_{first}": round(statistics.median(to_choose[name]) / base_to_choose, 3)}
            for name, values in per_round.items()}
    commits = commit_titles(refs)
    measured = parts["measured"]
    return {"game": game, "games": games, "warmup_games": warmup, "seats_replayed": len(measured),
            "decisions": decisions, "messages": sum(len(s) for s in measured), "rounds": rounds, "seed": seed,
            "load_average": [round(x, 2) for x in os.getloadavg()], "machine": machine(), "commits": commits,
            "rows": rows}


def render(report: dict[str, Any]) -> str:
    lines = [f"SDK decode per decision ({report['game']}, {report['seats_replayed']} seats, {report['decisions']} "
             f"decisions after {report['warmup_games']} games of warm-up, {report['rounds']} rounds, load average "
             f"{report['load_average']})",
             "{:<14} {:>12} {:>6} {:>6} {:>10} {:>6} {:>6}  {}".format(
                 "tree", "us/decision", "best", "ratio", "to choose", "best", "ratio", "commit")]
    for name, row in report["rows"].items():
        ratio = next(v for k, v in row.items() if k.startswith("ratio_to_"))
        to_choose = next(v for k, v in row.items() if k.startswith("to_choose_ratio_to_"))
        lines.append("{:<14} {:>12} {:>6} {:>6} {:>10} {:>6} {:>6}  {}".format(
            name, row["cpu_us_per_decision_median"], row["cpu_us_per_decision_best"], ratio,
            row["to_choose_us_per_decision_median"], row["to_choose_us_per_decision_best"], to_choose,
            report["commits"].get(name, "(working tree)")))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sdk_decode", description=__doc__.split("\n")[0])
    parser.add_argument("--refs", default="", help="comma separated commits measured before the working tree")
    parser.add_argument("--game", default=GAME)
    parser.add_argument("--games", type=int, default=16, help="tables measured (every seat of each is replayed)")
    parser.add_argument("--warmup", type=int, default=8, help="tables replayed first in each process, not counted")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", default="sdk-decode")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is not None:
        _worker(args.worker)
        return 0
    from bench.trees import refs_of, save_report  # after the worker's return: see run()

    report = run(refs_of(args.refs), game=args.game, games=args.games, rounds=args.rounds,
                 warmup=args.warmup, seed=args.seed)
    return save_report(report, args.out, render(report))


if __name__ == "__main__":
    if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        sys.path.pop(0)  # run by path in a worker: the packages come from PYTHONPATH, not bench/
    raise SystemExit(main())
