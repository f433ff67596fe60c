"""OpenSpiel's own ISMCTS on a Tricktable game against uniformly random play: does an algorithm of the library win?

OpenSpiel's Python ``ISMCTSBot`` (random rollouts, UCT constant 2, ``--sims`` simulations a
decision, a world resampled through the game's ``resample_from_infostate`` each simulation)
plays one seat of two-player All Fives (one scored deal an episode, the game's default
parameters), uniformly random legal actions the other. Deals are duplicated: each deck is
played twice with the seats swapped, so the cards even out. Reported: the search's mean return
a deal (its deal reward: points ahead of the other seat over the target) with a 95% interval,
and its share of the deals' points.

Run ``python -m bench.openspiel_ismcts`` (JSON to ``bench/results/openspiel_ismcts.json``).
"""

from __future__ import annotations

import json
import math
import random
import statistics
import time
from pathlib import Path
from typing import Any

from bench import cli

RESULTS = Path(__file__).resolve().parent / "results" / "openspiel_ismcts.json"
GAME = "all_fives"


def duplicate_pair(game: Any, bot: Any, deal_seed: int) -> list[tuple[float, int, int]]:
    """The deck of ``deal_seed`` played with the search in seat 0, then in seat 1: (its return, its points, all)."""
    out = []
    for seat in (0, 1):
        chance = random.Random(deal_seed)
        moves = random.Random(deal_seed * 2 + seat)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(chance.random() * len(outcomes))][0])
            elif state.current_player() == seat:
                state.apply_action(int(bot.step(state)))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(moves.random() * len(legal))])
        points = state.progress.match.finished[-1][0].points
        out.append((state.returns()[seat], points[seat], sum(points)))
    return out


def main(argv: list[str] | None = None) -> int:
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts  # type: ignore[import-untyped]

    from tricktable.envs.openspiel_game import load

    parser = cli.parser("bench.openspiel_ismcts", __doc__, out=RESULTS)
    parser.add_argument("--pairs", type=int, default=20, help="duplicate deal pairs (default 20)")
    parser.add_argument("--sims", type=int, default=50, help="ISMCTS simulations a decision (default 50)")
    args = parser.parse_args(argv)

    game = load(GAME)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=args.sims,
                           random_state=np.random.RandomState(1))
    start_machine = cli.machine()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    returns: list[float] = []
    mine = total = 0
    for pair in range(args.pairs):
        for value, points, deal_total in duplicate_pair(game, bot, pair):
            returns.append(value)
            mine += points
            total += deal_total
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    mean = statistics.fmean(returns)
    half = 1.96 * statistics.stdev(returns) / math.sqrt(len(returns)) if len(returns) > 1 else math.inf
    report = {
        "measured_at": cli.measured_at(),
        "machine": start_machine,
        "machine_at_end": cli.machine(),
        "game": GAME, "sims": args.sims, "pairs": args.pairs, "deals": len(returns),
        "mean_return": round(mean, 4), "interval_95": [round(mean - half, 4), round(mean + half, 4)],
        "share_of_points": round(mine / total, 4) if total else None,
        "cpu_seconds": round(cpu, 1), "wall_seconds": round(wall, 1),
    }
    print(json.dumps(report, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
