"""``tricktable ladder --game GAME --games N``: the strength ladder random < heuristic < pimc < search.

Plays each step of the ladder on ``N`` duplicate pairs of matches (the same
decks twice, the bots' sides swapped) in-process, and prints a Markdown
table: for each pair the stronger bot's share of the points and of the
games won, each with a 95% confidence interval, the CPU time per decision
of each bot, and how long it took. The PIMC and search bots run with a
fixed number of worlds per decision (``--sims``), so a ladder is
reproducible; ``--sims 0`` gives them their time budget instead, on the wall clock or
(``--clock cpu``) on each bot's own CPU time, which a loaded machine does
not shrink.
``--pair STRONGER,WEAKER`` measures any two bots instead, the author's own
included (``module:Class``, ``path/to/file.py:Class``).

Long runs: ``--results FILE.jsonl`` keeps each pair the moment it ends
(:mod:`tricktable.bots.ladder_results`), and the same command run again
plays only the pairs missing from it; ``--until TIME`` starts no pair after
a time set beforehand; ``--summarise FILE...`` prints the table of result
files without playing.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer

from tricktable.bots import SPEC_HELP, BotSpecError, bot_factory
from tricktable.bots.fast_worlds import CLOCKS
from tricktable.bots.ladder import STEPS, BotSpec, Estimate, PairOutcome, PairResult, run_pair, table
from tricktable.bots.ladder_results import ResultsFile, ResultsFileError, read_results, results_file, settings
from tricktable.cli import checks
from tricktable.cli.selfplay import parse_options
from tricktable.rules import registry
from tricktable.rules.errors import OptionsError

#: Worlds per PIMC and search decision in the ladder (reproducible; on the fast path, about 15-30 CPU ms).
DEFAULT_SIMS = 100


def ladder_command(
    files: Annotated[list[Path] | None, typer.Argument(
        metavar="FILE.jsonl", help="With --summarise: the results files to summarise.")] = None,
    game: Annotated[str | None, typer.Option(
        "--game", help=f"One of: {', '.join(registry.games())}, or 'all' (needed to play).")] = None,
    games: Annotated[int | None, typer.Option(
        "--games", min=1, help="Duplicate pairs per step (2 matches each; needed to play).")] = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Processes playing in parallel.")] = 1,
    sims: Annotated[int, typer.Option("--sims", min=0, help="PIMC and search: worlds per decision (0: time budget).")
                    ] = DEFAULT_SIMS,
    budget: Annotated[float, typer.Option("--budget", help="PIMC and search: seconds per decision when --sims 0.")
                      ] = 0.1,
    clock: Annotated[str, typer.Option(
        "--clock", help="PIMC and search with --sims 0: the budget on the wall clock, or on each bot's own CPU "
        "time (cpu: the worlds an idle core gives, whatever the machine's load).")] = "wall",
    playout: Annotated[str | None, typer.Option(
        "--playout", help="Search playout policy: greedy, random or ensemble (the mean of both; "
        "default: the game's own).")] = None,
    bid_search: Annotated[bool, typer.Option("--bid-search/--no-bid-search",
                                             help="Search: Cinq Cents bids by simulation, or by the heuristic.")
                          ] = True,
    solve_at: Annotated[int | None, typer.Option(
        "--solve-at", min=0, help="Search: cards left in all hands from which a world is solved exactly "
        "(0: never; default: the game's own).")] = None,
    all_pairs: Annotated[bool, typer.Option("--all-pairs", help="Also play search against random.")] = False,
    pair: Annotated[str | None, typer.Option(
        "--pair", metavar="STRONGER,WEAKER",
        help=f"Measure these two bots instead of the ladder's steps ({SPEC_HELP}).")] = None,
    seed: Annotated[str, typer.Option("--seed", help="Seed of the duplicate decks.")] = "ladder",
    option: Annotated[list[str] | None, typer.Option("--option", help="Table option KEY=VALUE; repeatable.")
                      ] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Also write the results as JSON here.")] = None,
    results: Annotated[Path | None, typer.Option(
        "--results", metavar="FILE.jsonl",
        help="Append each pair's result here the moment it ends; the same command run again with the same "
        "file plays only the pairs missing from it (a file of other settings is refused).")] = None,
    until: Annotated[str | None, typer.Option(
        "--until", metavar="TIME",
        help="Start no pair after this time: an ISO time (2026-12-07T07:30, local unless it has a zone, "
        "e.g. Z) or a duration from now (90m, 2h, 1h30m, 45s).")] = None,
    summarise: Annotated[bool, typer.Option(
        "--summarise", help="Play nothing: print the table of the results files given (FILE.jsonl...).")] = False,
) -> None:
    """Measure the ladder random < heuristic < pimc < search on duplicate deals and print the table.

    Long runs keep each pair in --results FILE.jsonl as it ends and resume from it when run again;
    --summarise FILE.jsonl... prints the table of results files without playing.
    """
    if summarise:
        _summarise(files or [], json_out)
        return
    if files:
        checks.fail("results files are summarised with --summarise; a run writes its own with --results")
    if game is None or games is None:
        checks.fail("give --game and --games (or --summarise FILE.jsonl...)")
    stop_at = None if until is None else checks.stop_time("--until", until, time.time())
    chosen = list(registry.games()) if game == "all" else [game]
    if any(g not in registry.games() for g in chosen):
        typer.echo(f"error: unknown game {game!r} (games: {', '.join(registry.games())}, all)", err=True)
        raise typer.Exit(2)
    if budget <= 0:
        checks.fail(f"--budget must be a positive number of seconds, not {budget:g}")
    if clock not in CLOCKS:
        checks.fail(f"--clock must be one of {', '.join(CLOCKS)}, not {clock!r}")
    steps = list(STEPS) + ([("random", "search")] if all_pairs else [])
    if pair is not None:
        named = [p.strip() for p in pair.split(",")]
        if len(named) != 2 or not all(named):
            checks.fail("--pair takes two bots, STRONGER,WEAKER")
        try:
            for spec in named:
                bot_factory(spec)
        except BotSpecError as exc:
            checks.fail(str(exc))
        steps = [(named[1], named[0])]
    specs = {name: BotSpec(name) for step in steps for name in step}
    specs["pimc"] = BotSpec("pimc", simulations=sims or None, budget=budget, clock=clock)
    specs["search"] = BotSpec("search", simulations=sims or None, budget=budget, playout=playout,
                              bid_search=bid_search, solve_at=solve_at, clock=clock)
    try:
        options = parse_options(option or [])
    except OptionsError as exc:
        checks.fail(str(exc))
    run = [(g, specs[weaker], specs[stronger]) for g in chosen for weaker, stronger in steps]
    try:
        if results is None:
            rows = [_play(g, weaker, stronger, games, options, workers, seed, stop_at, None)
                    for g, weaker, stronger in run]
        else:
            with results_file(results, settings(run, options, seed)) as kept:
                _say_resumed(kept, run)
                rows = [_play(g, weaker, stronger, games, options, workers, seed, stop_at, kept)
                        for g, weaker, stronger in run]
                if any(r.stopped for r in rows) and stop_at is not None:
                    kept.stopped(stop_at, games)
    except (OptionsError, ResultsFileError, OSError) as exc:
        checks.fail(str(exc))
    except KeyboardInterrupt:
        if results is not None:
            typer.echo(f"interrupted: every pair that ended is in {results}; the same command plays the rest",
                       err=True)
        raise typer.Exit(130) from None
    if any(r.stopped for r in rows):
        typer.echo(f"stopped at a time set beforehand: {sum(r.pairs for r in rows)} pairs of "
                   f"{games * len(rows)} played", err=True)
    _print(rows, json_out)


def _play(game: str, weaker: BotSpec, stronger: BotSpec, games: int, options: dict[str, object], workers: int,
          seed: str, stop_at: float | None, kept: ResultsFile | None) -> PairResult:
    """One step, resumed from and kept in ``kept`` when there is a results file."""

    def keep(outcome: PairOutcome) -> None:
        if kept is not None:
            kept.append(game, weaker.name, stronger.name, outcome)

    done = kept.done(game, weaker.name, stronger.name) if kept is not None else []
    result = run_pair(game, weaker, stronger, games, options=options, workers=workers, seed=seed, done=done,
                      on_outcome=keep, stop_at=stop_at)
    typer.echo(f"{game}: {stronger.name} vs {weaker.name}: points {result.points}, games {result.games}, "
               f"{result.deals} deals in {result.seconds:.0f} s", err=True)
    return result


def _say_resumed(kept: ResultsFile, run: list[tuple[str, BotSpec, BotSpec]]) -> None:
    if kept.dropped_unfinished_line:
        typer.echo(f"{kept.path}: dropped an unfinished last line (that pair is played again)", err=True)
    held = sum(len(kept.done(g, weaker.name, stronger.name)) for g, weaker, stronger in run)
    if held:
        typer.echo(f"{kept.path}: {held} pairs already played; playing the missing ones", err=True)


def _summarise(files: list[Path], json_out: Path | None) -> None:
    if not files:
        checks.fail("--summarise needs the results files (FILE.jsonl...)")
    try:
        rows = [row for path in files for row in read_results(path)]
    except (ResultsFileError, OSError) as exc:
        checks.fail(str(exc))
    _print(rows, json_out)


def _print(rows: list[PairResult], json_out: Path | None) -> None:
    typer.echo(table(rows))
    if json_out is not None:
        json_out.write_text(json.dumps([_as_json(r) for r in rows], indent=2) + "\n", encoding="utf-8")


def _estimate_json(e: Estimate) -> dict[str, object]:
    """A share and its interval; with one pair ``low`` and ``high`` are null (too few for an interval)."""
    return {"mean": e.mean, "low": None if e.too_few else e.low, "high": None if e.too_few else e.high,
            "interval": e.method}


def _as_json(r: PairResult) -> dict[str, object]:
    return {
        "game": r.game, "stronger": r.stronger, "weaker": r.weaker, "pairs": r.pairs, "deals": r.deals,
        "points": _estimate_json(r.points), "games": _estimate_json(r.games),
        "holds": r.holds, "seconds": r.seconds, "cpu_seconds": r.cpu_seconds,
        "load": None if r.load_range is None else list(r.load_range), "stopped_at_time_set_beforehand": r.stopped,
        "cpu_ms_per_decision": {"stronger": r.stronger_effort.per_decision_ms(),
                                "weaker": r.weaker_effort.per_decision_ms()},
        "wall_ms_per_decision": {"stronger": r.stronger_effort.wall_per_decision_ms(),
                                 "weaker": r.weaker_effort.wall_per_decision_ms()},
        "worlds_per_decision": {"stronger": r.stronger_effort.worlds_per_decision(),
                                "weaker": r.weaker_effort.worlds_per_decision()},
    }


def register(app: typer.Typer) -> None:
    """Add ``ladder`` to the command line."""
    app.command("ladder")(ladder_command)
