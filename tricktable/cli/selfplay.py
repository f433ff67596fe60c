"""``tricktable selfplay``: complete games in-process with uniformly random legal actions, one record each.

Game ``i`` (0-based) uses the seed ``f"{seed}-{i}"`` both for its decks and
for a private ``random.Random`` choosing among the sorted legal actions, so
the same command line writes byte-identical records. A game still running
after ``--max-deals`` deals is aborted and recorded as such: uniformly random
bidding makes Cinq Cents contracts fail so often that both sides sink below
zero and never reach the target.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from tricktable.rules.errors import OptionsError
from tricktable.rules.match import MAX_DEALS, Match, play_out
from tricktable.rules.registry import games, new_match


def parse_options(pairs: Sequence[str], players: int | None = None) -> dict[str, Any]:
    """``KEY=VALUE`` pairs to an options dict; a value is JSON when it parses (``true``, ``3``, ``{...}``), else text.

    Raises:
        OptionsError: for a pair without ``=``.
    """
    options: dict[str, Any] = {}
    if players is not None:
        options["players"] = players
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise OptionsError(f"--option wants KEY=VALUE, not {pair!r}")
        try:
            options[key] = json.loads(text)
        except json.JSONDecodeError:
            options[key] = text
    return options


def play_random(game: str, options: Mapping[str, Any], seed: str, *,
                max_deals: int = MAX_DEALS) -> Match:
    """Play one match with uniformly random legal actions from ``random.Random(seed)``.

    The match ends by the rules, or is aborted (``result.status`` "aborted")
    once ``max_deals`` deals, redeals included, have been played.

    Raises:
        OptionsError: bad game or options.
    """
    rng = random.Random(seed)
    match = play_out(new_match(game, options, seed=seed), lambda m, _: rng.choice(m.legal_actions()),
                     max_deals=max_deals)
    return match if match.is_over else match.abort(f"selfplay deal limit reached ({max_deals} deals)")


def record_text(record: Mapping[str, Any]) -> str:
    """A record as the JSON text selfplay writes (stable: the same record, the same bytes)."""
    return json.dumps(record, indent=2, ensure_ascii=False) + "\n"


def selfplay_command(
    game: Annotated[str, typer.Option("--game", help=f"One of: {', '.join(games())}.")],
    games: Annotated[int, typer.Option("--games", min=1, help="How many games to play.")],
    seed: Annotated[str, typer.Option("--seed", help="Seed; game i uses '<seed>-<i>'.")],
    out: Annotated[Path, typer.Option("--out", help="Directory for the records (<game>-<i>.json).")],
    players: Annotated[int | None, typer.Option("--players", help="Number of players.")] = None,
    option: Annotated[list[str] | None, typer.Option(
        "--option", help="Table option KEY=VALUE (value parsed as JSON when it can be); repeatable.")] = None,
    max_deals: Annotated[int, typer.Option(
        "--max-deals", min=1, help="Abort a game after this many deals (random Cinq Cents never ends).")
    ] = MAX_DEALS,
) -> None:
    """Play complete games with uniformly random legal actions and write one record per game."""
    try:
        options = parse_options(option or [], players)
        out.mkdir(parents=True, exist_ok=True)
        for i in range(games):
            game_seed = f"{seed}-{i}"
            match = play_random(game, options, game_seed, max_deals=max_deals)
            names = [f"random-{s}" for s in range(match.config.players)]
            path = out / f"{game}-{i}.json"
            path.write_text(record_text(match.to_record(seed=game_seed, names=names)), encoding="utf-8")
    except OptionsError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    except OSError as exc:
        typer.echo(f"error: cannot write records to {out}: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"wrote {games} {game} records to {out}")


def register(app: typer.Typer) -> None:
    """Add ``selfplay`` to the command line."""
    app.command("selfplay")(selfplay_command)
