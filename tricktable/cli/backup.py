"""``tricktable backup DEST``: copy the data directory's databases while the server runs.

Prints each file written. The copy is made with SQLite's online backup
(:mod:`tricktable.server.backup`): each file as it was at one commit, the
server's writes going on meanwhile. A PostgreSQL record store is backed up
with ``pg_dump`` instead (docs/operations.md, "Backups").
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated

import typer

from tricktable.cli import checks
from tricktable.server.backup import backup_data_dir
from tricktable.server.storage import resolve_data_dir


def backup_command(
    destination: Annotated[Path, typer.Argument(help="A new folder for the copies (the data directory's layout).")],
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="The server's data directory (default: $TRICKTABLE_DATA_DIR, else ./data).")] = None,
) -> None:
    """Back up the data directory's databases (records, tournaments, journals) while the server runs."""
    try:
        written = backup_data_dir(resolve_data_dir(data_dir), destination)
    except (OSError, sqlite3.Error) as error:
        checks.fail(str(error))
    for path in written:
        typer.echo(str(path))


def register(app: typer.Typer) -> None:
    """Add ``backup`` to the command line."""
    app.command("backup")(backup_command)
