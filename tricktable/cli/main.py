"""Entry point of the ``tricktable`` command: one Typer app, one module per command.

Each command module exposes ``register(app)``; adding a command is one line in
:data:`COMMANDS`. A run imports only the module of the command it names: the command
modules import the server, the web viewer, the bots and the tournament runner, about a
second of CPU that every ``tricktable bot`` a tournament starts would otherwise pay.
``tricktable --help``, ``--version`` and a mistyped name load every command, so the
listing and Typer's "did you mean" suggestions see them all.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from importlib import metadata
from typing import Annotated

import typer

#: Command name -> the module whose ``register(app)`` adds it, in the order ``--help`` lists them.
COMMANDS: dict[str, str] = {
    "demo": "tricktable.cli.demo",
    "verify": "tricktable.cli.verify",
    "selfplay": "tricktable.cli.selfplay",
    "bot": "tricktable.cli.bot",
    "tournament": "tricktable.cli.tournament",
    "conformance": "tricktable.cli.conformance",
    "serve": "tricktable.cli.serve",
    "backup": "tricktable.cli.backup",
    "match": "tricktable.cli.match",
    "ladder": "tricktable.cli.ladder",
    "tables": "tricktable.cli.tables",
    "watch": "tricktable.cli.tables",
    "record": "tricktable.cli.tables",
    "view": "tricktable.cli.view",
    "replay": "tricktable.cli.replay",
    "analyse": "tricktable.cli.analyse",
    "perft": "tricktable.cli.perft",
    "export-decisions": "tricktable.cli.export_decisions",
}

HELP = "Tricktable: trick-taking card games for bots (Twenty-Five, Forty-Five, All Fives, Cinq Cents)."


def version() -> str:
    """The installed distribution's version (the source tree's when it is not installed)."""
    try:
        return metadata.version("tricktable")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"tricktable {version()}")
        raise typer.Exit(0)


def _options(
    show_version: Annotated[bool, typer.Option("--version", callback=_show_version, is_eager=True,
                                               help="Print the version and exit.")] = False,
) -> None:
    """Tricktable: trick-taking card games for bots (Twenty-Five, Forty-Five, All Fives, Cinq Cents)."""


def make_app(commands: Sequence[str] = tuple(COMMANDS)) -> typer.Typer:
    """The ``tricktable`` app with ``commands`` registered (each module imported once, in table order)."""
    made = typer.Typer(name="tricktable", help=HELP, no_args_is_help=True, add_completion=False,
                       pretty_exceptions_enable=False)
    made.callback()(_options)
    for module in dict.fromkeys(COMMANDS[name] for name in COMMANDS if name in commands):
        importlib.import_module(module).register(made)
    return made


def named_command(args: Sequence[str]) -> str | None:
    """The command an argument list runs, when it names one of :data:`COMMANDS`.

    The top-level group takes no option with a value, so the first argument that is not an
    option is the command's name.
    """
    name = next((arg for arg in args if not arg.startswith("-")), None)
    return name if name in COMMANDS else None


def __getattr__(name: str) -> typer.Typer:
    """``app``: the app with every command, made on first use (tests and ``CliRunner`` use it)."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    made = make_app()
    globals()["app"] = made
    return made


def main() -> None:
    """Run the command line, importing only the module of the command it names."""
    command = named_command(sys.argv[1:])
    make_app((command,) if command is not None else tuple(COMMANDS))()


if __name__ == "__main__":
    main()
