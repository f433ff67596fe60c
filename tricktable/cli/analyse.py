"""``tricktable analyse RECORD... [--seat S] [--bot search]``: each decision of a seat valued from its own view.

Every record of the files (JSON or JSON Lines) is replayed; at each decision
of the seat the analysing bot (``--bot``, by default the search bot; any bot
with ``action_values(view)``) values every legal action from
``view(seat)`` only (:mod:`tricktable.analysis.decisions`). The text lists the costly
decisions (loss over ``--threshold``; ``--all`` lists every decision), each
deal's estimated loss and the total; ``--json`` writes one JSON object per
record and seat. Without ``--seat``, every seat is analysed. ``--sims``
sets the analyser's worlds per decision (reproducible with ``--seed``).
Exit status 1 when a record cannot be read or replayed (one ``error:``
line each), 2 for bad flags.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from tricktable.analysis.decisions import DEFAULT_THRESHOLD, BotEstimator, ValuingBot, analyse, describe_analysis
from tricktable.bots import make_bot
from tricktable.cli.verify import RecordWork

#: Worlds per decision by default: the noise of a 200-world mean is well under a deal point in these games.
DEFAULT_SIMS = 200


def _analyser(spec: str, seed: str, sims: int) -> ValuingBot:
    """The analysing bot, with ``sims`` worlds a decision when it counts worlds; exit 2 when it cannot value."""
    try:
        bot = make_bot(spec, seed)
    except (KeyError, ValueError) as exc:
        typer.echo(f"error: {exc.args[0] if exc.args else exc}", err=True)
        raise typer.Exit(2) from None
    if not callable(getattr(bot, "action_values", None)):
        typer.echo(f"error: bot {spec!r} cannot value actions: it has no action_values(view) (try search)", err=True)
        raise typer.Exit(2)
    if hasattr(bot, "simulations"):
        bot.simulations = sims
    valuing: ValuingBot = bot  # type: ignore[assignment]  # checked just above
    return valuing


def analyse_command(
    records: Annotated[list[Path], typer.Argument(help="Record files: JSON, or JSON Lines (records.jsonl).")],
    seat: Annotated[int | None, typer.Option("--seat", min=0, help="The seat to analyse (default: every seat).")
                    ] = None,
    bot: Annotated[str, typer.Option("--bot", help="The analysing bot: one with action_values(view).")] = "search",
    sims: Annotated[int, typer.Option("--sims", min=1, help="Worlds per decision.")] = DEFAULT_SIMS,
    seed: Annotated[str, typer.Option("--seed", help="Seed of the analyser's sampling.")] = "analyse",
    threshold: Annotated[float, typer.Option(
        "--threshold", min=0.0, help="A decision losing more than this (deal points) is costly.")
    ] = DEFAULT_THRESHOLD,
    every: Annotated[bool, typer.Option("--all", help="List every decision, not only the costly ones.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per record and seat.")] = False,
) -> None:
    """Value each decision of a seat from its own view with an analysing bot; flag the costly ones."""
    estimator = BotEstimator(_analyser(bot, seed, sims))
    work = RecordWork()
    for where, record in work.each(records):
        seats = [seat] if seat is not None else list(range(len(record.seats)))
        try:
            results = [analyse(record, s, estimator, threshold=threshold) for s in seats]
        except RecordWork.FAILURES as exc:
            work.fail(where, exc)
            continue
        for result in results:
            if as_json:
                typer.echo(json.dumps({"record": where, "analyser": bot, "sims": sims, **result.to_json()}))
                continue
            name = record.seats[result.seat][1]
            typer.echo(f"{where}: seat {result.seat} ({name}), analysed by {bot} ({sims} worlds a decision)")
            typer.echo("\n".join(describe_analysis(result, every=every)))
    raise typer.Exit(1 if work.errors else 0)


def register(app: typer.Typer) -> None:
    """Add ``analyse`` to the command line."""
    app.command("analyse")(analyse_command)
