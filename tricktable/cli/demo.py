"""``tricktable demo``: one complete game, played in-process and told deal by deal.

Random players by default; ``--bots`` seats others (built-in or the
author's own). Cinq Cents defaults to the heuristic bots and a 500-point
target, because uniformly random bidders never reach a target (their
failed contracts sink without a floor) and a random demo would print
thousands of lines before the deal limit aborts it. ``make demo`` runs
``tricktable match`` (over a real server); ``--local`` is accepted for
scripts written when this was the demo.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

import typer

from tricktable.bots import SPEC_HELP, BotSpecError
from tricktable.bots.ladder import BotSpec, play_match
from tricktable.cli import checks
from tricktable.cli.selfplay import parse_options, play_random
from tricktable.rules.errors import OptionsError
from tricktable.rules.registry import game_definition, game_rules, games


def _cards(items: Sequence[str]) -> str:
    return " ".join(items) if items else "-"


def _action_text(action: Mapping[str, Any]) -> str:
    kind = str(action["type"])
    if kind == "rob":
        return f"seat {action['seat']} robs (takes the turn-up, buries a card)"
    if kind == "run":
        return f"seat {action['seat']} runs the pack, exposing {_cards(action.get('exposed') or [])}"
    if kind == "bid":
        return f"seat {action['seat']} bids {action['tricks']} {action['suit']}"
    if kind == "discard":
        return f"seat {action['seat']} discards six cards"
    return f"seat {action['seat']} {kind.replace('_', ' ')}"


def describe_record(record: Mapping[str, Any]) -> list[str]:
    """A game record told as lines of text: each deal's dealer, turn-up, trump, tricks, points, scores; the result."""
    sides = record["sides"]
    lines = [f"{record['game']}: {len(record['seats'])} players, sides "
             + " vs ".join("+".join(str(s) for s in side) for side in sides)
             + f", seed {record['seed']!r}"]
    for deal in record["deals"]:
        head = f"Deal {deal['number']}: dealer seat {deal['dealer']}"
        if deal.get("redeal"):
            head += " (redeal)"
        if deal.get("turn_up") is not None:
            head += f", turn-up {deal['turn_up']}"
        head += f", trump {deal['trump'] or 'none'}"
        lines.append(head)
        for seat, hand in sorted(deal["hands"].items(), key=lambda kv: int(kv[0])):
            lines.append(f"  seat {seat} holds {_cards(hand)}")
        for action in deal["actions"]:
            if action["type"] != "play":
                lines.append(f"  {_action_text(action)}")
        if deal.get("contract"):
            c = deal["contract"]
            lines.append(f"  contract: seat {c['seat']} {c['tricks']} {c['suit']}")
        for n, trick in enumerate(deal["tricks"], start=1):
            lines.append(f"  trick {n}: led by seat {trick['leader']}: {_cards(trick['cards'])}"
                         f" -> won by seat {trick['winner']}")
        if deal.get("bonus"):
            lines.append(f"  bonus: seat {deal['bonus']['seat']} played the highest trump {deal['bonus']['card']}")
        lines.append(f"  points {deal['points']}, scores {deal['scores']}")
    result = record.get("result")
    if result is not None:
        winners = " and ".join("side " + "+".join(str(s) for s in sides[w]) for w in result["winners"]) or "nobody"
        lines.append(f"Result: {result['status']}, {result['reason']}; winner {winners}; scores {result['scores']}")
    return lines




def demo_command(
    game: Annotated[str, typer.Option("--game", help=f"One of: {', '.join(games())}.")] = "twenty_five",
    seed: Annotated[str, typer.Option("--seed", help="Seed for the decks and the players.")] = "demo",
    players: Annotated[int | None, typer.Option("--players", help="Number of players.")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", help="Table option KEY=VALUE; repeatable.")] = None,
    bots: Annotated[str | None, typer.Option(
        "--bots", help=f"One bot for every seat, or one per seat, comma separated ({SPEC_HELP}); default the "
                       f"game's own: random (heuristic in Cinq Cents, to 500 points).")] = None,
    local: Annotated[bool, typer.Option("--local", help="Play in-process (the only mode for now).")] = True,
) -> None:
    """Play one complete game in-process (random players by default) and print it deal by deal."""
    del local  # in-process is the only mode of this command
    try:
        options = parse_options(option or [], players)
        definition = game_definition(game)
        if bots is None:  # the game's own players, and options that keep their game short enough to read
            for key, value in definition.demo_options.items():
                options.setdefault(key, value)
        names = [b.strip() for b in (bots or definition.demo_bot).split(",")]
        if names == ["random"]:
            match = play_random(game, options, seed)
            seats = [f"random-{s}" for s in range(match.config.players)]
        else:
            count = game_rules(game).config(options).players
            names = names * count if len(names) == 1 else names
            if len(names) != count:
                checks.fail(f"{game} seats {count} players here; --bots names {len(names)}")
            match = play_match(game, options, seed, [BotSpec(n).build(f"{seed}/{s}") for s, n in enumerate(names)])
            seats = [f"{n}-{s}" for s, n in enumerate(names)]
    except (OptionsError, BotSpecError) as exc:
        checks.fail(str(exc))
    for line in describe_record(match.to_record(seed=seed, names=seats)):
        typer.echo(line)


def register(app: typer.Typer) -> None:
    """Add ``demo`` to the command line."""
    app.command("demo")(demo_command)
