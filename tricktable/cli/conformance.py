"""``tricktable conformance [--server ADDR] (--bot BOT | -- COMMAND...)``: check a client program in any language.

``--bot`` checks any bot spec (a built-in, ``module:Class``, ``exec:PROGRAM``,
``webhook:URL``) as ``tricktable bot`` plays it. The command is run once per
situation (a normal game, every seat, a rejection, a dropped connection, a
tight clock, a late answer, annotations, several tables over PlayMany) with
the placeholders ``{address}`` and ``{token}`` replaced, and with
``TRICKTABLE_SERVER`` and ``TRICKTABLE_TOKEN`` in its environment;
``--spectator`` gives the command that follows a table over Spectate. One
PASS/FAIL/SKIP line per situation; exit status 1 when any failed, 2 on a
usage error. See docs/protocol.md, section 18, and
:mod:`tricktable.server.conformance`.
"""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from tricktable.bots import BotSpecError, bot_factory
from tricktable.cli.selfplay import parse_options
from tricktable.cli.tls import TlsCa, root_certificates
from tricktable.rules.errors import OptionsError
from tricktable.server.conformance import (
    DEFAULT_GAME,
    RELAXED_BANK_MS,
    RELAXED_DECISION_MS,
    Settings,
    Verdict,
    default_options,
    run_conformance,
    situations,
)


def conformance_command(
    command: Annotated[list[str] | None, typer.Argument(help="The client command, after --; {address} and {token} "
                                                              "are replaced.")] = None,
    bot: Annotated[str | None, typer.Option("--bot", help="Check this bot as `tricktable bot` plays it, instead of "
                                                          "a command: e.g. exec:\"./mybot\" or webhook:URL.")] = None,
    server: Annotated[str | None, typer.Option("--server", help="Server address host:port; default: start one "
                                                                "in-process.")] = None,
    game: Annotated[str, typer.Option("--game", help="Game of the tables.")] = DEFAULT_GAME,
    option: Annotated[list[str] | None, typer.Option(
        "--option", help="Table option KEY=VALUE (repeatable); default: all_fives target=11, "
                         "cinq_cents target=100.")] = None,
    clock_ms: Annotated[int, typer.Option("--clock-ms", help="Per-decision limit of the clock situation.")] = 2000,
    decision_ms: Annotated[int, typer.Option("--decision-ms", help="Per-decision limit of the other "
                                                                   "situations.")] = RELAXED_DECISION_MS,
    bank_ms: Annotated[int, typer.Option("--bank-ms", help="Time bank of the other situations.")] = RELAXED_BANK_MS,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds a client gets to finish one situation.")] = 90.0,
    only: Annotated[list[str] | None, typer.Option("--only", help="Run only this situation (repeatable).")] = None,
    skip: Annotated[list[str] | None, typer.Option(
        "--skip", help="A situation the client does not support (play-many, spectate, annotations, ...): reported "
                       "SKIP, not failed (repeatable).")] = None,
    spectator: Annotated[str | None, typer.Option(
        "--spectator", help="The command that follows a table over Spectate, as one string ({address} and {table} "
                            "replaced); without it the spectate situation is skipped.")] = None,
    seed: Annotated[str | None, typer.Option("--seed", help="Seed of the tables' decks (reproducible runs).")] = None,
    transcript: Annotated[Path | None, typer.Option("--transcript", help="Write each situation's message "
                                                                         "exchange to DIR/NAME.txt.")] = None,
    tls_ca: TlsCa = None,
) -> None:
    """Run a client program through scripted situations and print a PASS/FAIL line for each."""
    if (bot is None) == (not command):
        typer.echo("error: give --bot BOT or a command after --, not both or neither", err=True)
        raise typer.Exit(2)
    if bot is not None:
        try:
            bot_factory(bot)
        except BotSpecError as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(2) from None
        # No --wait-for-server: the check's relay listens before a client starts, and a first connection that
        # fails is part of the verdict, as it is for a client given as a command.
        command = [sys.executable, "-m", "tricktable.cli.main", "bot", bot, "--server", "{address}",
                   "--token", "{token}"]
    known = [s.name for s in situations()]
    for name in [*(only or []), *(skip or [])]:
        if name not in known:
            typer.echo(f"error: unknown situation {name!r} (known: {', '.join(known)})", err=True)
            raise typer.Exit(2)
    try:
        options = parse_options(option or []) if option else default_options(game)
    except OptionsError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    from tricktable.server.logging import configure

    configure(level="ERROR")  # the in-process server's logs would drown the report
    settings = Settings(command=tuple(command or ()), server=server, game=game, options=options, clock_ms=clock_ms,
                        decision_ms=decision_ms, bank_ms=bank_ms, timeout=timeout, only=tuple(only or ()),
                        seed=seed, transcript_dir=transcript, root_certificates=root_certificates(tls_ca),
                        skip=tuple(skip or ()), spectator=None if spectator is None else tuple(shlex.split(spectator)))

    def report(verdict: Verdict) -> None:
        typer.echo(verdict.line())
        for line in verdict.output_tail:
            typer.echo(f"    | {line}")

    try:
        verdicts = asyncio.run(run_conformance(settings, report=report))
    except (ValueError, OptionsError) as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    failed = [v for v in verdicts if not v.passed]
    skipped = sum(1 for v in verdicts if v.skipped)
    typer.echo(f"{len(verdicts) - len(failed) - skipped} of {len(verdicts)} situations passed"
               + (f", {skipped} skipped" if skipped else ""))
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``conformance`` to the command line."""
    app.command("conformance", context_settings={"allow_interspersed_args": False})(conformance_command)
