"""Training throughput: environment steps per CPU second of the PettingZoo environments, the OpenSpiel games, and
OpenSpiel's own C++ euchre, in one run and one process (one thread, so one core).

Every entry plays uniformly random legal actions (the action drawn as in :mod:`bench.run`:
``actions[int(rng.random() * n)]``), one scored deal an episode, the four games at their default
layouts and euchre (one deal is its whole game):

- ``pettingzoo/<game>``: :mod:`tricktable.envs.pettingzoo_env`, the AEC loop a learner runs
  (``agent_iter``, ``last`` with its observation and mask, ``step``);
- ``openspiel/<game>``: :mod:`tricktable.envs.openspiel_game` through ``pyspiel`` (``legal_actions``,
  ``apply_action``), as OpenSpiel's samplers step it; ``openspiel_obs/<game>`` also asks the seat to
  act for its observation tensor, as a learner does (euchre, which has none: its information
  state tensor);
- ``openspiel/euchre`` and ``openspiel_obs/euchre``: the same two loops over ``pyspiel.load_game("euchre")``.

A step is a seat's decision (a Cinq Cents discard is six, one pick each); OpenSpiel's chance
nodes (a card dealt each) are counted apart. Rates are per CPU second of this process
(``time.process_time``), the median of ``--rounds`` rounds (:func:`bench.run.measure`);
wall-clock rates are written too. The ratios compare entries of this run only.

Run ``python -m bench.training_throughput`` (JSON to ``bench/results/training_throughput.json``
and a table on stdout); ``make bench`` runs it after :mod:`bench.run`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from bench import cli
from bench.run import Workload, measure

RESULTS = Path(__file__).resolve().parent / "results" / "training_throughput.json"
GAMES = ("twenty_five", "forty_five", "all_fives", "cinq_cents")
EUCHRE = "euchre"


def pettingzoo(game: str) -> Workload:
    """One scored deal of the PettingZoo environment, every agent's observation read as a learner reads it."""
    from tricktable.envs.pettingzoo_env import env

    table = env(game)
    episodes = iter(range(1 << 62))

    def play(rng: random.Random) -> tuple[int, int]:
        table.reset(seed=next(episodes))
        steps = 0
        rnd = rng.random
        for _agent in table.agent_iter():
            observation, _reward, terminated, truncated, _info = table.last()
            match = table.match
            scored = match is not None and any(not deal.is_void for deal, _ in match.finished)
            if terminated or truncated or scored:
                break
            legal = observation["action_mask"].nonzero()[0]
            table.step(int(legal[int(rnd() * len(legal))]))
            steps += 1
        return steps, 0

    return play


def spiel(game: Any, *, observe: bool = False) -> Workload:
    """Random play of a ``pyspiel`` game to its end; ``observe`` reads the tensor of each seat to act.

    The tensor is the observation tensor, or the information state tensor of a game without one
    (euchre offers only that).
    """
    kind = game.get_type()
    if kind.provides_observation_tensor:
        def tensor(state: Any, seat: int) -> Any:
            return state.observation_tensor(seat)
    else:
        def tensor(state: Any, seat: int) -> Any:
            return state.information_state_tensor(seat)

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
                if observe:
                    tensor(state, state.current_player())
            state.apply_action(actions[int(rnd() * len(actions))])
        return decisions, chance

    return play


def _spiel_of(game: str, *, observe: bool) -> Workload:
    """The random loop over OpenSpiel's euchre, or over one of the four games registered by the OpenSpiel module."""
    import pyspiel  # type: ignore[import-not-found,unused-ignore]

    if game == EUCHRE:
        return spiel(pyspiel.load_game(EUCHRE), observe=observe)
    from tricktable.envs.openspiel_game import load

    return spiel(load(game), observe=observe)


def plan() -> list[tuple[str, Callable[[], Workload]]]:
    """(key, workload factory) of every entry, in the order run."""
    entries: list[tuple[str, Callable[[], Workload]]] = []
    for game in GAMES:
        entries.append((f"pettingzoo/{game}", partial(pettingzoo, game)))
        entries.append((f"openspiel/{game}", partial(_spiel_of, game, observe=False)))
        entries.append((f"openspiel_obs/{game}", partial(_spiel_of, game, observe=True)))
    entries.append((f"openspiel/{EUCHRE}", partial(_spiel_of, EUCHRE, observe=False)))
    entries.append((f"openspiel_obs/{EUCHRE}", partial(_spiel_of, EUCHRE, observe=True)))
    return entries


def ratios(results: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Each entry's decision rate against euchre's loop of the same kind (the plain loop for PettingZoo's)."""
    def rate(key: str) -> float | None:
        return cli.rate(results, key)

    out: dict[str, float] = {}
    for key in results:
        kind, game = key.split("/")
        mine = rate(key)
        yard = rate(f"{'openspiel_obs' if kind == 'openspiel_obs' else 'openspiel'}/{EUCHRE}")
        if game != EUCHRE and mine and yard:
            out[f"{key} / {EUCHRE}"] = round(mine / yard, 4)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = cli.parser("bench.training_throughput", __doc__, out=RESULTS)
    cli.add_workload_options(parser)
    args = parser.parse_args(argv)

    load_at_start = cli.load_average()
    results: dict[str, dict[str, Any]] = {}
    print(f"{'entry':<28} {'steps/s':>10} {'wall steps/s':>13} {'steps/episode':>14} {'chance/episode':>15}")
    for seed, (key, factory) in enumerate(plan()):
        if args.only and args.only not in key:
            continue
        entry: dict[str, Any] = {}
        try:
            entry.update(measure(factory(), args.seconds, args.rounds, seed))
        except ImportError as exc:
            entry["error"] = f"not available: {exc} (pip install -e '.[train]')"
        except Exception as exc:  # one loop failing must not stop the others
            entry["error"] = f"{type(exc).__name__}: {exc}"
        results[key] = entry
        if "error" in entry:
            print(f"{key:<28} {entry['error'][:80]}")
        else:
            print(f"{key:<28} {entry['decisions_per_second']:>10,} {entry['decisions_per_wall_second']:>13,} "
                  f"{entry['decisions_per_game']:>14} {entry['chance_events_per_game']:>15}")

    report: dict[str, Any] = {
        "measured_at": cli.measured_at(),
        "machine": {**cli.machine(), "load_average_at_start": load_at_start},
        "method": {
            "seconds_per_entry": args.seconds,
            "rounds": args.rounds,
            "rate_clock": "process CPU time (one thread); decisions_per_wall_second also given, lower when other "
                          "processes share the cores (see load_average)",
            "step": "a seat's decision (a Cinq Cents discard: six picks); OpenSpiel chance nodes counted apart",
            "episode": "one scored deal, uniformly random legal actions; euchre: one deal, its whole game",
        },
        "results": results,
        "ratios": ratios(results),
    }
    cli.print_ratios(report["ratios"], width=40, digits=4)
    cli.write_report(args.out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
