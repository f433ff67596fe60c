"""Entry point of the ``tricktable`` command: one Typer app, one module per command.

Each command module exposes ``register(app)``; adding a command is one line
in :data:`COMMAND_MODULES`.
"""

from __future__ import annotations

import importlib
from importlib import metadata
from typing import Annotated

import typer

app = typer.Typer(
    name="tricktable",
    help="Tricktable: trick-taking card games for bots (Twenty-Five, Forty-Five, All Fives, Cinq Cents).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

#: Modules that register a command on the app.
COMMAND_MODULES: tuple[str, ...] = (
    "tricktable.cli.demo",
    "tricktable.cli.verify",
    "tricktable.cli.selfplay",
    "tricktable.cli.bot",
    "tricktable.cli.tournament",
    "tricktable.cli.conformance",
    "tricktable.cli.serve",
    "tricktable.cli.backup",
    "tricktable.cli.match",
    "tricktable.cli.ladder",
    "tricktable.cli.tables",
    "tricktable.cli.view",
    "tricktable.cli.replay",
    "tricktable.cli.analyse",
    "tricktable.cli.perft",
    "tricktable.cli.export_decisions",
)

for _name in COMMAND_MODULES:
    importlib.import_module(_name).register(app)


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


@app.callback()
def _options(
    show_version: Annotated[bool, typer.Option("--version", callback=_show_version, is_eager=True,
                                               help="Print the version and exit.")] = False,
) -> None:
    """Tricktable: trick-taking card games for bots (Twenty-Five, Forty-Five, All Fives, Cinq Cents)."""


def main() -> None:
    """Run the command line."""
    app()


if __name__ == "__main__":
    main()
