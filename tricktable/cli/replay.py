"""``tricktable replay RECORD... --seat S --bot BOT``: would another bot have done better on the same cards?

Each record (a JSON file, or JSON Lines such as a tournament's
``records.jsonl``; several files at once) is replayed on its own decks with
``--bot`` at ``--seat`` (:mod:`tricktable.analysis.counterfactual`): the other seats
replay their recorded actions while the rules accept them, then the
stand-in bot (``--stand-in``, named in the output) plays them. One line
block per record says how the seat's side did in the record and in the
replay; a summary counts results turned around and the mean score change.
``--duplicate`` also seats the bot at the first seat of the next side, so
it plays the same deals from the other side's cards. A record that cannot
be read or replayed is one ``error:`` line and counts in the summary; exit
status 1 then, 2 for bad flags.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from tricktable.analysis.counterfactual import DEFAULT_STAND_IN, Replay, mirror_seat, replay, replay_json
from tricktable.bots import SPEC_HELP
from tricktable.cli.verify import RecordWork


def _describe(where: str, result: Replay) -> list[str]:
    lines = [f"{where}: seat {result.seat} played by {result.bot} from deal {result.from_deal}; "
             f"stand-in {result.stand_in}",
             f"  recorded: side score {result.recorded}",
             f"  replayed: side score {result.replayed}"]
    if result.identical:
        lines.append("  the replay is the record, action for action")
    elif result.left:
        lines.append("  left their record: " + ", ".join(
            f"seat {x.seat} at deal {x.deal} (its action index {x.action})" for x in result.left))
    else:
        lines.append("  every other seat kept to its record")
    lines.append(f"  change: {result.score_change:+d} points, {result.verdict}")
    return lines


def replay_command(
    records: Annotated[list[Path], typer.Argument(help="Record files: JSON, or JSON Lines (records.jsonl).")],
    seat: Annotated[int, typer.Option("--seat", min=0, help="The seat whose bot is swapped.")],
    bot: Annotated[str, typer.Option("--bot", help=f"The bot to seat there: {SPEC_HELP}.")],
    from_deal: Annotated[int, typer.Option(
        "--from-deal", min=1, help="First deal (1-based, redeals counted) the bot plays; before it, the record.")] = 1,
    stand_in: Annotated[str, typer.Option(
        "--stand-in", help="Plays a seat once its recorded actions stop being legal.")] = DEFAULT_STAND_IN,
    duplicate: Annotated[bool, typer.Option(
        "--duplicate", help="Also seat the bot at the first seat of the next side (the same deals, other cards).")
    ] = False,
    bot_seed: Annotated[str, typer.Option("--bot-seed", help="Seed of the swapped and stand-in bots.")] = "replay",
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per record instead of text.")] = False,
) -> None:
    """Replay recorded games on their own decks with one seat's bot swapped, and say how the result changed."""
    replays: list[Replay] = []
    work = RecordWork()
    for where, record in work.each(records):
        try:
            seats = [seat, mirror_seat(record, seat)] if duplicate else [seat]
            done = [replay(record, s, bot, stand_in=stand_in, from_deal=from_deal, bot_seed=bot_seed)
                    for s in seats]
        except RecordWork.FAILURES as exc:
            work.fail(where, exc)
            continue
        replays.extend(done)
        for result in done:
            if as_json:
                typer.echo(json.dumps({"record": where, **replay_json(result)}))
            else:
                typer.echo("\n".join(_describe(where, result)))
    if not as_json:
        typer.echo(_summary(replays, work.errors))
    raise typer.Exit(1 if work.errors else 0)


def _summary(replays: list[Replay], errors: int) -> str:
    turned = sum(1 for r in replays if r.verdict == "lost -> won")
    lost = sum(1 for r in replays if r.verdict == "won -> lost")
    mean = sum(r.score_change for r in replays) / len(replays) if replays else 0.0
    text = (f"{len(replays)} replays: {turned} lost -> won, {lost} won -> lost, "
            f"{len(replays) - turned - lost} same result; mean side score change {mean:+.2f}")
    return text + (f"; {errors} records could not be replayed" if errors else "")


def register(app: typer.Typer) -> None:
    """Add ``replay`` to the command line."""
    app.command("replay")(replay_command)
