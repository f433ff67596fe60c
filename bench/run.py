"""``make bench``: in-process random playouts, complete games and decisions per second on one core.

Measures, in one run and one process (one thread, so one core):

- Twenty-Five and Forty-Five, 4 players, through the readable engine
  (``tricktable.rules.registry.new_match``: immutable, checked states) and through the
  playout fast path (:mod:`tricktable.rules.fast.spoil_five`);
- OpenSpiel's euchre driven from Python (``pyspiel.load_game("euchre")``,
  uniformly random legal actions) as the yardstick, when ``open_spiel`` is
  installed (the ``bench`` extra); otherwise the JSON says why it is missing;
- All Fives (2 and 3 players) and Cinq Cents through the readable engine,
  and through a fast path where one exists.

A "decision" is an action chosen by a seat (chance events such as
OpenSpiel's dealing are counted apart); a "game" is a complete match to its
end (for OpenSpiel's euchre, one deal: that is its whole game). Rates are
per CPU second of this process (``time.process_time``), so other load on a
shared machine affects them less; wall-clock rates are written too. Each
workload runs a few rounds and reports the median round.

Results go to ``bench/results/latest.json`` and a table on stdout.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from bench import cli

#: One complete game from ``rng``: returns (decisions, chance events).
Workload = Callable[[random.Random], tuple[int, int]]

GOAL_DECISIONS_PER_SECOND = 250_000

#: Games measured by the deal, not the match: uniformly random Cinq Cents bids 8-10 tricks as often as 6
#: and fails most contracts, so both scores drift below zero and a random match practically never reaches
#: 1000 (probe: after 2,222 deals the scores were about -480,000 each). A "game" there is one scored deal.
DEAL_UNIT = {"cinq_cents"}
RESULTS = Path(__file__).resolve().parent / "results" / "latest.json"


# --- workloads -------------------------------------------------------------------


def readable(game: str, options: dict[str, Any], *, one_deal: bool = False) -> Workload:
    """Random legal actions through the readable, checked engine (a seed per game draws the decks).

    ``one_deal``: stop after the first deal that is not void (see :data:`DEAL_UNIT`).
    """
    from tricktable.rules.registry import new_match

    def play(rng: random.Random) -> tuple[int, int]:
        match = new_match(game, options, seed=f"bench-{rng.getrandbits(64)}")
        decisions = 0
        rnd = rng.random
        while not match.is_over:
            actions = match.legal_actions()
            match = match.apply(actions[int(rnd() * len(actions))])
            decisions += 1
            if one_deal and match.finished and not match.finished[-1][0].is_void:
                break
        return decisions, 0

    return play


def fast(game: str, options: dict[str, Any], *, one_deal: bool = False) -> Workload:
    """Random legal actions through the playout fast path (:func:`tricktable.rules.fast.new_fast`), dealing included."""
    from tricktable.rules.fast import new_fast
    from tricktable.rules.registry import game_rules

    resolved = game_rules(game).config(options).to_options()
    players = resolved["players"]
    new_fast(game, {**resolved, "first_dealer": 0}, rng=random.Random(0))  # ImportError: no fast path yet

    def play(rng: random.Random) -> tuple[int, int]:
        state = new_fast(game, {**resolved, "first_dealer": rng.randrange(players)}, rng=rng)
        return state.random_playout(rng, one_deal=one_deal), 0

    return play


def openspiel_euchre(*, numpy_choice: bool = False) -> Workload:
    """OpenSpiel's euchre from Python: every legal action uniformly, chance (dealing) included.

    The action is drawn as in our own loops (``actions[int(rng.random() * n)]``), so the
    comparison is of the engines. ``numpy_choice`` draws with ``numpy.random.choice``
    instead, as OpenSpiel's Python examples do; that draw costs more than the engine step.
    """
    import pyspiel  # type: ignore[import-not-found,unused-ignore]

    game = pyspiel.load_game("euchre")
    if numpy_choice:
        import numpy  # type: ignore[import-not-found,unused-ignore]

        choice = numpy.random.choice

    def play(rng: random.Random) -> tuple[int, int]:
        state = game.new_initial_state()
        decisions = chance = 0
        rnd = rng.random
        while not state.is_terminal():
            actions = state.legal_actions()
            if state.is_chance_node():
                chance += 1
            else:
                decisions += 1
            state.apply_action(int(choice(actions)) if numpy_choice else actions[int(rnd() * len(actions))])
        return decisions, chance

    return play


# --- measuring -------------------------------------------------------------------


def measure(workload: Workload, seconds: float, rounds: int, seed: int) -> dict[str, Any]:
    """Run ``workload`` for ``rounds`` rounds of ``seconds / rounds`` CPU seconds; the median round's rates."""
    per_round = seconds / rounds
    results = []
    for r in range(rounds):
        rng = random.Random(seed * 1000 + r)
        games = decisions = chance = 0
        cpu0, wall0 = time.process_time(), time.perf_counter()
        while True:
            d, c = workload(rng)
            games += 1
            decisions += d
            chance += c
            cpu = time.process_time() - cpu0
            if cpu >= per_round:
                break
        wall = time.perf_counter() - wall0
        results.append({
            "games": games, "decisions": decisions, "chance_events": chance, "cpu_seconds": cpu,
            "wall_seconds": wall, "games_per_second": games / cpu, "decisions_per_second": decisions / cpu,
            "decisions_per_wall_second": decisions / wall,
        })
    results.sort(key=lambda x: x["decisions_per_second"])
    median = results[len(results) // 2]
    return {
        "games_per_second": round(median["games_per_second"], 1),
        "decisions_per_second": round(median["decisions_per_second"]),
        "decisions_per_wall_second": round(median["decisions_per_wall_second"]),
        "decisions_per_game": round(sum(x["decisions"] for x in results) / sum(x["games"] for x in results), 2),
        "chance_events_per_game": round(sum(x["chance_events"] for x in results) / sum(x["games"] for x in results),
                                        2),
        "games_played": sum(x["games"] for x in results),
        "rounds": rounds,
        "round_decisions_per_second": [round(x["decisions_per_second"]) for x in results],
    }


def _openspiel_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("open_spiel")
    except Exception:
        return None


def plan() -> list[tuple[str, str, str, Callable[[], Workload]]]:
    """(key, engine, description, workload factory) for every entry of the run."""
    four = {"players": 4}
    entries: list[tuple[str, str, str, Callable[[], Workload]]] = []
    for game in ("twenty_five", "forty_five"):
        entries.append((f"{game}/4/readable", "readable", f"{game}, 4 players", partial(readable, game, four)))
        entries.append((f"{game}/4/fast", "fast", f"{game}, 4 players", partial(fast, game, four)))
    entries.append(("euchre/4/openspiel", "openspiel", "OpenSpiel euchre from Python, 4 players",
                    openspiel_euchre))
    entries.append(("euchre/4/openspiel_numpy", "openspiel",
                    "OpenSpiel euchre from Python, actions drawn with numpy.random.choice",
                    partial(openspiel_euchre, numpy_choice=True)))
    for players in (2, 3):
        opts = {"players": players}
        text = f"all_fives, {players} players"
        entries.append((f"all_fives/{players}/readable", "readable", text, partial(readable, "all_fives", opts)))
        entries.append((f"all_fives/{players}/fast", "fast", text, partial(fast, "all_fives", opts)))
    text = "cinq_cents, 4 players, one scored deal per game"
    entries.append(("cinq_cents/4/readable", "readable", text,
                    partial(readable, "cinq_cents", four, one_deal=True)))
    entries.append(("cinq_cents/4/fast", "fast", text, partial(fast, "cinq_cents", four, one_deal=True)))
    return entries


def ratios(results: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Decision-rate ratios between entries measured in this run."""

    def rate(key: str) -> float | None:
        return cli.rate(results, key)

    out: dict[str, float] = {}
    yard = rate("euchre/4/openspiel")
    numpy_yard = rate("euchre/4/openspiel_numpy")
    for key in results:
        game, players, engine = key.split("/")
        mine = rate(key)
        if mine is None:
            continue
        if engine == "fast":
            base = rate(f"{game}/{players}/readable")
            if base:
                out[f"{game}/{players}: fast / readable"] = round(mine / base, 2)
            if numpy_yard:
                out[f"{key} / openspiel euchre (numpy choice)"] = round(mine / numpy_yard, 2)
        if yard and not engine.startswith("openspiel"):
            out[f"{key} / openspiel euchre"] = round(mine / yard, 2)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("bench.run", __doc__, out=RESULTS)
    cli.add_workload_options(parser)
    args = parser.parse_args(argv)

    load_at_start = cli.load_average()
    results: dict[str, dict[str, Any]] = {}
    print(f"{'entry':<26} {'games/s':>10} {'decisions/s':>12} {'dec/game':>9}  note")
    for seed, (key, engine, description, factory) in enumerate(plan()):
        if args.only and args.only not in key:
            continue
        entry: dict[str, Any] = {"engine": engine, "description": description}
        try:
            workload = factory()
        except ImportError as exc:
            entry["error"] = f"not available: {exc}"
        except Exception as exc:  # a game module still in progress must not stop the others
            entry["error"] = f"{type(exc).__name__}: {exc}"
        else:
            try:
                entry.update(measure(workload, args.seconds, args.rounds, seed))
            except Exception as exc:
                entry["error"] = f"{type(exc).__name__} while playing: {exc}"
        results[key] = entry
        if "error" in entry:
            print(f"{key:<26} {'-':>10} {'-':>12} {'-':>9}  {entry['error'][:70]}")
        else:
            note = ""
            if engine == "fast":
                met = entry["decisions_per_second"] >= GOAL_DECISIONS_PER_SECOND
                note = f"goal {GOAL_DECISIONS_PER_SECOND:,}/s {'met' if met else 'NOT met'}"
            print(f"{key:<26} {entry['games_per_second']:>10,.1f} {entry['decisions_per_second']:>12,} "
                  f"{entry['decisions_per_game']:>9}  {note}")

    report: dict[str, Any] = {
        "measured_at": cli.measured_at(),
        "machine": {**cli.machine(), "load_average_at_start": load_at_start},
        "method": {
            "seconds_per_entry": args.seconds,
            "rounds": args.rounds,
            "rate_clock": "process CPU time (one thread); decisions_per_wall_second also given, lower when "
                          "other processes share the cores (see load_average)",
            "decision": "an action chosen by a seat; OpenSpiel chance events (dealing) counted apart",
            "game": "a complete match to the end; OpenSpiel euchre: one deal, its whole game; "
                    + ", ".join(sorted(DEAL_UNIT)) + ": one scored deal (random matches do not end)",
        },
        "goal_decisions_per_second": GOAL_DECISIONS_PER_SECOND,
        "open_spiel": _openspiel_version() or "not installed (pip install -e '.[bench]'); no yardstick",
        "results": results,
        "ratios": ratios(results),
    }
    cli.print_ratios(report["ratios"], width=60)
    cli.write_report(args.out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
