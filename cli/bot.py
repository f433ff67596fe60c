"""``tricktable bot NAME --server ADDR (--token T | --seek GAME [--players N])``: run a reference bot.

The bot is an ordinary SDK client (:mod:`client_sdk.runner`): it joins with
the token, or seeks a game and is seated, plays until the game ends
(reconnecting if the connection drops) and prints the result. Exit status 0
when the game finished, 1 when it was aborted, 2 on an error (bad token,
unknown table, unreachable server), with a one-line message, never a traceback.
"""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from bots import BOTS, make_bot
from bots.paced import PacedBot
from cli.tls import TlsCa, root_certificates
from client_sdk.errors import SdkError
from client_sdk.runner import run_bot, seek_and_run
from rules.errors import TricktableError


def bot_command(
    name: Annotated[str, typer.Argument(help=f"Which bot: {', '.join(BOTS)}.")],
    server: Annotated[str, typer.Option("--server", help="Server address, host:port.")] = "127.0.0.1:50051",
    token: Annotated[str | None, typer.Option("--token", help="Join token of a seat (from CreateTable).")] = None,
    seek: Annotated[str | None, typer.Option("--seek", help="Seek a game of this name instead of a token.")] = None,
    players: Annotated[int, typer.Option("--players", help="Players wanted when seeking (0: default).")] = 0,
    display_name: Annotated[str, typer.Option("--name", help="Display name for the seat.")] = "",
    seed: Annotated[str | None, typer.Option("--seed", help="Seed of the bot's own choices.")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log connection events.")] = False,
    delay_ms: Annotated[int, typer.Option("--delay-ms", min=0, help="Wait this long before each action (to watch).")]
    = 0,
    tls_ca: TlsCa = None,
) -> None:
    """Run a reference bot against a server until its game ends."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if (token is None) == (seek is None):
        typer.echo("error: give exactly one of --token or --seek", err=True)
        raise typer.Exit(2)
    try:
        bot = make_bot(name, seed)
    except KeyError as exc:
        typer.echo(f"error: {exc.args[0]}", err=True)
        raise typer.Exit(2) from None
    if delay_ms:
        bot = PacedBot(bot, delay_ms / 1000)
    label = display_name or name
    try:
        if token is not None:
            result = run_bot(bot, server, token=token, name=label, root_certificates=root_certificates(tls_ca))
        else:
            assert seek is not None
            result = seek_and_run(bot, server, game=seek, players=players, name=label,
                                  root_certificates=root_certificates(tls_ca))
    except (SdkError, TricktableError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    winners = ", ".join(str(w) for w in result.winners) or "none"
    scores = " ".join(str(s) for s in result.scores)
    typer.echo(f"{result.status}: winners {winners}; scores {scores}; {result.reason}")
    if result.status != "finished":
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``bot`` to the command line."""
    app.command("bot")(bot_command)
