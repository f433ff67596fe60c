"""What the crash-survival journal costs a move: ``python -m bench.journal_cost``.

A server writes one journal step per move on its event loop (a SQLite
insert in its own transaction, ``server.journal``), so the cost lands on
every move's critical path. Measured in one process, without the network,
on real tables of a lobby: first-legal games of ``game`` played by calling
the tables directly, in alternating rounds with the journal on and off.
Reported, as CPU time (so that other load on a shared machine does not
count): the time inside the journal's ``append`` per move (timed around
each call), the whole extra CPU per move of the rounds with the journal
(the step's assembly and the background checkpoints included; noisier),
and each as a share of the server CPU per move that ``bench.server_bench``
measures over gRPC.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server.clocks import TimeControl
from server.journal import Journal, Step
from server.lobby import Limits, Lobby
from server.logging import configure
from server.storage import Storage

CLOCKS = TimeControl(decision_seconds=600.0, bank_seconds=0.0, grace_seconds=600.0, join_seconds=600.0)


async def _play_round(lobby: Lobby, game: str, games: int, seed: str) -> tuple[int, float, float]:
    """Play ``games`` tables to their end; return moves, CPU seconds, and CPU seconds inside journal appends."""
    moves = 0
    inside = [0.0]
    started = time.process_time()
    for index in range(games):
        table, _ = lobby.create_table(game=game, seed=f"{seed}-{index}")
        if table.journal is not None:
            table.journal = _timed(table.journal, inside)
        for seat in range(table.players):
            table.connect(seat)
        while not table.is_over:
            to_act = table.match.to_act
            pending = table.pending_for(to_act) if to_act is not None else None
            if pending is None:
                break
            table.submit(pending.seat, pending.decision_id, pending.legal_actions[0])
        moves += table.actions_played
    await lobby.drain()
    return moves, time.process_time() - started, inside[0]


def _timed(sink: Callable[[Step], None], total: list[float]) -> Callable[[Step], None]:
    """``sink``, adding the CPU seconds of this thread spent in each call to ``total[0]``."""
    def timed(step: Step) -> None:
        t0 = time.thread_time()
        sink(step)
        total[0] += time.thread_time() - t0
    return timed


async def _measure(folder: Path, game: str, games: int, rounds: int) -> dict[str, Any]:
    on: list[float] = []
    off: list[float] = []
    appends: list[float] = []
    for number in range(rounds):
        for journaled in (True, False):
            data_dir = folder / f"{number}-{journaled}"
            storage = Storage(data_dir).open()
            journal = Journal(data_dir).open() if journaled else None
            lobby = Lobby(storage, journal=journal, time_control=CLOCKS, limits=Limits(retain_seconds=0.0))
            moves, seconds, inside = await _play_round(lobby, game, games, f"bench-{number}")
            await lobby.shutdown()
            if journal is not None:
                journal.close()
                appends.append(inside / moves * 1e6)
                on.append(seconds / moves * 1e6)
            else:
                off.append(seconds / moves * 1e6)
            storage.close()
    append_us = statistics.median(appends)
    extra_us = statistics.median(a - b for a, b in zip(on, off, strict=True))
    return {"game": game, "games_per_round": games, "rounds": rounds,
            "append_us_per_move": round(append_us, 1), "extra_us_per_move": round(extra_us, 1),
            "us_per_move_with_journal": round(statistics.median(on), 1),
            "us_per_move_without_journal": round(statistics.median(off), 1),
            "load_average_1min": round(os.getloadavg()[0], 2)}


def measure(game: str = "all_fives", games: int = 20, rounds: int = 5,
            server_cpu_us_per_move: float | None = None) -> dict[str, Any]:
    """The journal's cost per move; with the server's CPU per move over gRPC, also as a share of it."""
    configure(json=True, level="WARNING")
    with tempfile.TemporaryDirectory(prefix="tricktable-journal-") as tmp:
        report = asyncio.run(_measure(Path(tmp), game, games, rounds))
    if server_cpu_us_per_move:
        report["server_cpu_us_per_move"] = server_cpu_us_per_move
        report["append_share_of_server_cpu"] = round(report["append_us_per_move"] / server_cpu_us_per_move, 3)
        report["extra_share_of_server_cpu"] = round(report["extra_us_per_move"] / server_cpu_us_per_move, 3)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.journal_cost", description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="all_fives")
    parser.add_argument("--games", type=int, default=20, help="tables played per round")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds with and without the journal")
    parser.add_argument("--server-cpu-us", type=float, help="server CPU per move over gRPC, for the ratio")
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.game, args.games, args.rounds, args.server_cpu_us), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
