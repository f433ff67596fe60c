"""How many worlds a searching bot sees per CPU second, per kind of decision: docs/strength.md's worlds figures.

Decision points are gathered from heuristic matches on fixed seeds (the
first ``points`` decisions of each kind), then the bot decides each of them
with a fixed simulation count; the figure is the worlds it drew over the
CPU time (``time.process_time``) it took, so other load on the machine does
not change it much::

    python -m tricktable.bots.world_rate --game cinq_cents --kind bid --sims 20
    python -m tricktable.bots.world_rate --game forty_five --kind card --bot pimc --sims 100
    python -m tricktable.bots.world_rate --game twenty_five --kind card --bot pimc-exact --sims 40
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from tricktable.bots.heuristic import HeuristicBot
from tricktable.bots.pimc import PimcBot
from tricktable.bots.pimc_exact import PimcExactBot
from tricktable.bots.search import SearchBot
from tricktable.rules.actions import Bid, Discard, Pass, Play
from tricktable.rules.game import SeatView
from tricktable.rules.registry import new_match

#: The searching bots by name: factory(worlds a decision, a bid's too) -> bot.
BOTS: dict[str, Callable[[int], SearchBot | PimcBot | PimcExactBot]] = {
    "search": lambda sims: SearchBot(1, simulations=sims, bid_worlds=sims),
    "pimc": lambda sims: PimcBot(1, simulations=sims),
    "pimc-exact": lambda sims: PimcExactBot(1, simulations=sims),
}

#: Kinds of decision and how to recognise one in a view.
KINDS: dict[str, Callable[[SeatView], bool]] = {
    "card": lambda v: len(v.legal_actions) > 1 and all(isinstance(a, Play) for a in v.legal_actions),
    "bid": lambda v: any(isinstance(a, Pass) for a in v.legal_actions)
    and any(isinstance(a, Bid) for a in v.legal_actions),
    "discard": lambda v: any(isinstance(a, Discard) for a in v.legal_actions),
}


def decision_points(game: str, kind: str, points: int, seed: str = "rate") -> list[SeatView]:
    """The first ``points`` decisions of ``kind`` in heuristic matches of ``game`` seeded ``seed|0``, ``seed|1``, ..."""
    wanted = KINDS[kind]
    bot = HeuristicBot()
    found: list[SeatView] = []
    for i in range(1000):
        match = new_match(game, {}, seed=f"{seed}|{i}")
        while not match.is_over and match.to_act is not None and not match.finished:
            view = match.view(match.to_act)
            if wanted(view):
                found.append(view)
                if len(found) == points:
                    return found
                if kind != "card":
                    break  # one bid or discard a deal: the next deal's
            match = match.apply(bot.choose_action(view), match.to_act)
    return found


def world_rate(bot: SearchBot | PimcBot | PimcExactBot, views: list[SeatView]) -> tuple[int, float]:
    """(worlds drawn, CPU seconds) for ``bot`` deciding each of ``views``."""
    worlds = 0
    start = time.process_time()
    for view in views:
        bot.choose_action(view)
        worlds += bot.last_worlds
    return worlds, time.process_time() - start


def main(argv: list[str] | None = None) -> None:
    """Print the worlds per CPU second and the CPU time per decision of one bot on one kind of decision."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="cinq_cents")
    parser.add_argument("--kind", choices=sorted(KINDS), default="bid")
    parser.add_argument("--bot", choices=sorted(BOTS), default="search")
    parser.add_argument("--sims", type=int, default=20, help="worlds a decision (a bid's too)")
    parser.add_argument("--points", type=int, default=10, help="decision points")
    args = parser.parse_args(argv)
    views = decision_points(args.game, args.kind, args.points)
    bot = BOTS[args.bot](args.sims)
    worlds, cpu = world_rate(bot, views)
    print(f"{args.game} {args.kind} {args.bot} sims={args.sims}: {len(views)} decisions, {worlds} worlds, "
          f"{cpu:.2f} CPU s: {worlds / cpu:,.0f} worlds per CPU s, {1000 * cpu / len(views):.1f} CPU ms a decision")


if __name__ == "__main__":
    main()
