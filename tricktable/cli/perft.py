"""``tricktable perft``: count the distinct legal action sequences of a deal, depth by depth, with either engine.

What an implementer of the rules in another language compares with: the
counts of docs/perft.md (the convention there, the pinned cases in
``tests/golden/perft.json``) from a seed, options and an optional list of
first actions. ``--engine both`` counts with the readable engine and the
fast path and fails when they differ; ``--divide`` splits the deepest count
by first action, to find where two implementations part.
"""

from __future__ import annotations

from typing import Annotated

import typer

from tricktable.cli.selfplay import parse_options
from tricktable.rules.errors import NotationError, OptionsError, RuleError
from tricktable.rules.perft import ENGINES, count, divide, first_deck, start_match
from tricktable.rules.registry import games


def perft_command(
    game: Annotated[str, typer.Option("--game", help=f"One of: {', '.join(games())}.")],
    seed: Annotated[str, typer.Option("--seed", help="Seed of the decks (the first deal is dealt from it).")],
    depth: Annotated[int, typer.Option("--depth", min=0, help="Count sequences of up to this many actions.")],
    players: Annotated[int | None, typer.Option("--players", help="Number of players.")] = None,
    option: Annotated[list[str] | None, typer.Option(
        "--option", help="Table option KEY=VALUE (value parsed as JSON when it can be); repeatable.")] = None,
    after: Annotated[str, typer.Option(
        "--after", help="Actions to apply first, in notation, comma-separated (e.g. 'bid-6-S,pass,pass,pass').")
    ] = "",
    engine: Annotated[str, typer.Option("--engine", help="readable, fast, or both (they must agree).")] = "both",
    split: Annotated[bool, typer.Option(
        "--divide", help="Also print each first action with the count below it at the deepest depth.")] = False,
) -> None:
    """Count the distinct legal action sequences of the first deal, from depth 1 to --depth."""
    engines = ENGINES if engine == "both" else tuple(e for e in ENGINES if e == engine)
    if not engines:
        typer.echo(f"error: --engine must be readable, fast or both, not {engine!r}", err=True)
        raise typer.Exit(2)
    actions = [text.strip() for text in after.split(",") if text.strip()]
    try:
        options = parse_options(option or [], players)
        options.setdefault("first_dealer", 0)  # the pinned cases' dealer: counts depend on who acts first
        match = start_match(game, options, seed, actions)
    except (OptionsError, NotationError, RuleError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"deck: {' '.join(card.code for card in first_deck(match))}")
    disagree = False
    for level in range(1, depth + 1):
        counts = [count(game, options, seed, level, after=actions, engine=e) for e in engines]
        disagree = disagree or len(set(counts)) > 1
        typer.echo(f"depth {level}: " + "  ".join(f"{e} {n}" for e, n in zip(engines, counts, strict=True)))
    if split and depth >= 1:
        for first, below in divide(game, options, seed, depth, after=actions).items():
            typer.echo(f"{first}: {below}")
    if disagree:
        typer.echo("error: the engines disagree", err=True)
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``perft`` to the command line."""
    app.command("perft")(perft_command)
