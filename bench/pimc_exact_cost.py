"""What a `pimc-exact` decision costs with the dedicated solvers and with the generic one, in one run.

`pimc-exact` solves the last three tricks of every candidate in every one of
its 40 worlds (:mod:`tricktable.bots.solver`). Twenty-Five and Forty-Five
card play is solved by :mod:`tricktable.bots.solver_spoil_five`, Cinq Cents
card play by :mod:`tricktable.bots.solver_cinq_cents`; the generic search
(the fast state's own API, one state copy a position) is the same search
position for position. This bench measures both on the same
decisions, in alternating rounds, and checks that they decide alike:

- **first tricks**: the first ``--points`` card decisions of heuristic
  matches (``python -m tricktable.bots.world_rate``'s decision points, the
  dearest decisions);
- **whole matches**: ``--matches`` matches of four `pimc-exact` bots, every
  decision counted (forced ones included, as the ladder counts them).

Figures are CPU milliseconds a decision (``time.process_time``, so the
machine's other load changes them less than wall time; the ratio inside one
run is the figure to compare). Run ``python -m bench.pimc_exact_cost``
(JSON to ``bench/results/pimc_exact_cost.json``); ``--games cinq_cents``
measures Cinq Cents (not among the defaults: its matches are several times
longer).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any
from unittest import mock

from bench import cli
from tricktable.bots import solver_cinq_cents, solver_spoil_five
from tricktable.bots.ladder import play_match
from tricktable.bots.pimc_exact import PimcExactBot
from tricktable.bots.world_rate import decision_points

RESULTS = Path(__file__).resolve().parent / "results" / "pimc_exact_cost.json"
GAMES = ("twenty_five", "forty_five")
#: The games a dedicated solver searches (the generic search is measured against it).
DEDICATED = (*GAMES, "cinq_cents")
PATHS = ("generic", "dedicated")


@contextmanager
def generic_solver() -> Iterator[None]:
    """Every world solved by the generic search (each dedicated one declines every position)."""
    with mock.patch.object(solver_spoil_five, "can_solve", return_value=False), \
            mock.patch.object(solver_cinq_cents, "can_solve", return_value=False):
        yield


def on_path(path: str) -> Any:
    """The context a path's round runs in."""
    return generic_solver() if path == "generic" else nullcontext()


def first_tricks(game: str, points: int) -> Callable[[], tuple[int, list[str]]]:
    """A round over the first tricks' decision points: (decisions, what was chosen and valued)."""
    views = decision_points(game, "card", points)

    def run() -> tuple[int, list[str]]:
        bot = PimcExactBot(1)
        seen = []
        for view in views:
            seen.append(f"{bot.choose_action(view)} {sorted(map(str, bot.last_values.items()))}")
        return len(views), seen

    return run


def whole_matches(game: str, matches: int) -> Callable[[], tuple[int, list[str]]]:
    """A round of whole matches of four `pimc-exact` bots: (decisions, each match's actions)."""

    def run() -> tuple[int, list[str]]:
        decisions = 0
        seen = []
        for i in range(matches):
            seed = f"cost{i}"
            record = play_match(game, {}, seed, [PimcExactBot(f"{seed}|{s}") for s in range(4)]).to_record()
            decisions += sum(len(deal["actions"]) for deal in record["deals"])
            seen.append(json.dumps(record["deals"]))
        return decisions, seen

    return run


def measure(run: Callable[[], tuple[int, list[str]]], rounds: int) -> dict[str, Any]:
    """Both paths over ``rounds`` alternating rounds: CPU ms a decision (median round), the ratio, alike or not."""
    cost: dict[str, list[float]] = {path: [] for path in PATHS}
    seen: dict[str, list[str]] = {}
    decisions = 0
    for _ in range(rounds):
        for path in PATHS:
            with on_path(path):
                start = time.process_time()
                decisions, choices = run()
                cost[path].append(1000 * (time.process_time() - start) / decisions)
            if seen.setdefault(path, choices) != choices:
                raise RuntimeError(f"the {path} path decided differently in two rounds")
    median = {path: statistics.median(cost[path]) for path in PATHS}
    return {
        "decisions": decisions,
        "cpu_ms_a_decision": {path: round(median[path], 2) for path in PATHS},
        "rounds_ms": {path: [round(c, 2) for c in cost[path]] for path in PATHS},
        "generic_over_dedicated": round(median["generic"] / median["dedicated"], 2),
        "same_decisions": seen["generic"] == seen["dedicated"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("bench.pimc_exact_cost", __doc__, out=RESULTS)
    parser.add_argument("--points", type=int, default=20, help="first tricks' card decisions a game (default 20)")
    parser.add_argument("--matches", type=int, default=4, help="whole matches a game and round (default 4)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of each path (default 3)")
    parser.add_argument("--games", default=",".join(GAMES), help=f"games (default {','.join(GAMES)})")
    args = parser.parse_args(argv)
    start_machine = cli.machine()
    wall = time.perf_counter()
    report: dict[str, Any] = {
        "measured_at": cli.measured_at(),
        "machine": start_machine,
        "worlds": PimcExactBot().simulations,
        "rounds": args.rounds,
        "games": {},
    }
    for game in args.games.split(","):
        if game not in DEDICATED:
            parser.error(f"no dedicated solver for {game!r}: --games takes {', '.join(DEDICATED)}")
        report["games"][game] = {
            "first_tricks": measure(first_tricks(game, args.points), args.rounds),
            "whole_matches": measure(whole_matches(game, args.matches), args.rounds),
        }
    report["machine_at_end"] = cli.machine()
    report["wall_seconds"] = round(time.perf_counter() - wall, 1)
    print(json.dumps(report, indent=2))
    cli.write_report(args.out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
