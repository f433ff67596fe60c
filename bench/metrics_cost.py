"""What the metrics cost a move: the server benchmark's throughput run with metrics on and off, in one run.

``python -m bench.server_bench --metrics-cost`` (``--rounds``, ``--load-games``,
``--load-tables`` apply). Each round starts two fresh ``tricktable serve``
processes, one as installed (metrics counted) and one with ``--no-metrics``
(every instrument a no-op, :meth:`tricktable.server.metrics.Metrics.switch_off`),
and drives each with the same throughput load (:func:`bench.server_bench.measure_load`:
client processes keep ``load_tables`` tables of first-legal bots playing; the
server's CPU per move over a measured window), the order alternating from round
to round so that neither always runs on a warmer or busier machine. Figures per
game: each setting's median server CPU per move and moves per second, and
per round the ratio on/off and the difference (the metrics' cost in µs a move),
with their medians. Nobody scrapes ``/metrics`` meanwhile: a scrape's cost is
the scraper's interval's, not the moves'.

What ``--no-metrics`` leaves is the call sites themselves (an attribute lookup
and a no-op call per count, a ``perf_counter`` read per timed step), so the
difference is prometheus-client's counting, a little under the whole cost.
Results go to ``bench/results/server_metrics.json``.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench import cli

#: The two settings compared, with the flags ``tricktable serve`` gets for each.
SETTINGS: dict[str, tuple[str, ...]] = {"metrics_on": (), "metrics_off": ("--no-metrics",)}


def measure(folder: Path, rounds: int, games: Sequence[str], load: Callable[[Path, tuple[str, ...], str],
                                                                             dict[str, Any]],
            machine: dict[str, Any]) -> dict[str, Any]:
    """Alternate the settings over ``rounds``; ``load(folder, flags, game)`` runs one throughput window.

    ``load`` starts a fresh server with ``flags`` in ``folder`` and returns its throughput entry
    (``server_cpu_us_per_move``, ``moves_per_second``, ``errors``, ...).
    """
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {name: {game: [] for game in games} for name in SETTINGS}
    for index in range(rounds):
        order = list(SETTINGS) if index % 2 == 0 else list(reversed(SETTINGS))
        for name in order:
            for game in games:
                runs[name][game].append(load(folder / f"{name}-{index}-{game.replace(':', '_')}", SETTINGS[name],
                                             game))
    rows: dict[str, Any] = {}
    for game in games:
        on, off = runs["metrics_on"][game], runs["metrics_off"][game]
        ratios = [a["server_cpu_us_per_move"] / b["server_cpu_us_per_move"] for a, b in zip(on, off, strict=True)]
        costs = [a["server_cpu_us_per_move"] - b["server_cpu_us_per_move"] for a, b in zip(on, off, strict=True)]
        rows[game] = {
            **{name: {"server_cpu_us_per_move": round(statistics.median(e["server_cpu_us_per_move"]
                                                                       for e in runs[name][game]), 1),
                      "moves_per_second": round(statistics.median(e["moves_per_second"] for e in runs[name][game])),
                      "errors": sum(e["errors"] for e in runs[name][game]),
                      "by_round": [{k: e[k] for k in ("server_cpu_us_per_move", "moves_per_second",
                                                      "load_average_1min_at_start")} for e in runs[name][game]]}
               for name in SETTINGS},
            "cpu_ratio_on_over_off": round(statistics.median(ratios), 3),
            "cpu_ratio_by_round": [round(r, 3) for r in ratios],
            "metrics_cpu_us_per_move": round(statistics.median(costs), 1),
            "metrics_cpu_us_per_move_by_round": [round(c, 1) for c in costs],
        }
    return {"measured_at": cli.measured_at(), "machine": machine, "rounds": rounds,
            "rows": rows, "load_average_at_end": [round(x, 2) for x in os.getloadavg()]}


def render(report: dict[str, Any], tables: int, clients: int, seconds: float) -> str:
    """The table of :func:`measure`."""
    lines = [f"metrics on and off, {report['rounds']} alternating rounds, {tables} tables, {clients} client "
             f"processes, {seconds:g} s windows; load average {report['machine']['load_average']} at the start, "
             f"{report['load_average_at_end']} at the end",
             "{:<24} {:>14} {:>15} {:>12} {:>14}".format("game", "on: us/move", "off: us/move", "on / off",
                                                         "metrics us/mv")]
    for game, row in report["rows"].items():
        lines.append("{:<24} {:>14} {:>15} {:>12} {:>14}".format(
            game, row["metrics_on"]["server_cpu_us_per_move"], row["metrics_off"]["server_cpu_us_per_move"],
            f"x{row['cpu_ratio_on_over_off']}", row["metrics_cpu_us_per_move"]))
        lines.append(f"  rounds: on/off {row['cpu_ratio_by_round']}, cost {row['metrics_cpu_us_per_move_by_round']} us")
    return "\n".join(lines)
