"""What the crash-survival journal costs a move: ``python -m bench.journal_cost``.

A server writes one journal step per move on its event loop (a SQLite
insert in its own transaction, ``tricktable.server.journal``), so the cost lands on
every move's critical path. Measured in one process, without the network,
on real tables of a lobby: first-legal games of ``game`` played by calling
the tables directly, in alternating rounds with the journal on and off.
Moves are committed in groups, one per loop turn (``tricktable.server.journal``), so
the cost depends on how many tables move in a turn: measured with one table
at a time (every move its own commit, the worst case) and with 20 tables
moving in each turn. Reported, as CPU time (so that other load on a shared
machine does not count): the time inside the journal's writes and commits
per move (timed around each call), the whole extra CPU per move of the
rounds with the journal (the step's assembly and the background checkpoints
included; noisier), and each as a share of the server CPU per move that
``bench.server_bench`` measures over gRPC.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import cli
from tricktable.server.clocks import TimeControl
from tricktable.server.journal import Journal
from tricktable.server.limits import Limits
from tricktable.server.lobby import Lobby
from tricktable.server.logging import configure
from tricktable.server.storage import Storage

CLOCKS = TimeControl(decision_seconds=600.0, bank_seconds=0.0, grace_seconds=600.0, join_seconds=600.0)


async def _play_round(lobby: Lobby, game: str, games: int, together: int, seed: str) -> tuple[int, float]:
    """Play ``games`` tables to their end, ``together`` at a time, one move each per loop turn (a server's
    moves of one turn share a group commit); return the moves and the CPU seconds."""
    moves = 0
    started = time.process_time()
    for first in range(0, games, together):
        tables = [lobby.create_table(game=game, seed=f"{seed}-{index}")[0]
                  for index in range(first, min(games, first + together))]
        for table in tables:
            for seat in range(table.players):
                table.connect(seat)
        while any(not t.is_over for t in tables):
            for table in tables:
                to_act = table.match.to_act
                pending = table.pending_for(to_act) if to_act is not None and not table.is_over else None
                if pending is not None:
                    table.submit(pending.seat, pending.decision_id, pending.legal_actions[0])
            await asyncio.sleep(0)  # the loop's turn: the group commit runs
        moves += sum(t.actions_played for t in tables)
    await lobby.drain()
    return moves, time.process_time() - started


def _timed(journal: Journal, total: list[float]) -> None:
    """Count the CPU seconds of this thread spent in ``journal``'s writes and commits into ``total[0]``."""
    for name in ("append", "commit"):
        inner: Callable[..., None] = getattr(journal, name)

        def timed(*args: Any, _inner: Callable[..., None] = inner) -> None:
            t0 = time.thread_time()
            _inner(*args)
            total[0] += time.thread_time() - t0
        setattr(journal, name, timed)


async def _measure(folder: Path, game: str, games: int, together: int, rounds: int) -> dict[str, Any]:
    on: list[float] = []
    off: list[float] = []
    inside: list[float] = []
    for number in range(rounds):
        for journaled in (True, False):
            data_dir = folder / f"{together}-{number}-{journaled}"
            storage = Storage(data_dir).open()
            journal = Journal(data_dir).open() if journaled else None
            spent = [0.0]
            if journal is not None:
                _timed(journal, spent)
            lobby = Lobby(storage, journal=journal, time_control=CLOCKS, limits=Limits(retain_seconds=0.0))
            moves, seconds = await _play_round(lobby, game, games, together, f"bench-{number}")
            await lobby.shutdown()
            if journal is not None:
                journal.close()
                inside.append(spent[0] / moves * 1e6)
                on.append(seconds / moves * 1e6)
            else:
                off.append(seconds / moves * 1e6)
            storage.close()
    return {"tables_at_once": together, "journal_us_per_move": round(statistics.median(inside), 1),
            "extra_us_per_move": round(statistics.median(a - b for a, b in zip(on, off, strict=True)), 1),
            "us_per_move_with_journal": round(statistics.median(on), 1),
            "us_per_move_without_journal": round(statistics.median(off), 1)}


def measure(game: str = "all_fives", games: int = 20, rounds: int = 5, together: tuple[int, ...] = (1, 20),
            server_cpu_us_per_move: float | None = None) -> dict[str, Any]:
    """The journal's cost per move, with 1 and with 20 tables moving in each loop turn; with the server's CPU per
    move over gRPC, also as a share of it."""
    configure(json=True, level="WARNING")
    with tempfile.TemporaryDirectory(prefix="tricktable-journal-") as tmp:
        runs = [asyncio.run(_measure(Path(tmp), game, games, n, rounds)) for n in together]
    if server_cpu_us_per_move:
        for run in runs:
            run["journal_share_of_server_cpu"] = round(run["journal_us_per_move"] / server_cpu_us_per_move, 3)
            run["extra_share_of_server_cpu"] = round(run["extra_us_per_move"] / server_cpu_us_per_move, 3)
    return {"game": game, "games_per_round": games, "rounds": rounds, "runs": runs,
            "server_cpu_us_per_move": server_cpu_us_per_move, "load_average_1min": round(os.getloadavg()[0], 2)}


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("bench.journal_cost", __doc__)
    parser.add_argument("--game", default="all_fives")
    parser.add_argument("--games", type=int, default=20, help="tables played per round")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds with and without the journal")
    parser.add_argument("--server-cpu-us", type=float, help="server CPU per move over gRPC, for the ratio")
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.game, args.games, args.rounds, server_cpu_us_per_move=args.server_cpu_us), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
