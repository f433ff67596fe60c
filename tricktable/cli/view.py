"""``tricktable view FILE``: the web viewer's replay and standings pages over files, with no game server.

FILE is a record (``.json``), records (``.jsonl``: ``tricktable verify``'s
input, a tournament's ``records.jsonl``), a tournament's export folder
(``summary.json``, ``matches.csv``, ``records.jsonl``) or a database file
(``.sqlite3``: its tournaments, read as they are stored, so one being played
shows up as it plays). Prints the address of the page and serves until
Ctrl-C or SIGTERM.

The viewer is imported when the command runs, so ``--help`` and a mistyped flag cost only the
command line's own start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from tricktable.web.catalog import DatabaseCatalog, FileCatalog
    from tricktable.web.viewer import WebViewer


def view_command(
    path: Annotated[Path, typer.Argument(
        help="A record (.json), records (.jsonl), a tournament's export folder or a database (.sqlite3).")],
    host: Annotated[str, typer.Option("--host", help="Address to bind (local only by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to bind; 0 picks a free one.")] = 8080,
) -> None:
    """Open replays and standings from files in the browser."""
    from tricktable.server.logging import configure
    from tricktable.web.catalog import open_catalog
    from tricktable.web.viewer import WebViewer

    configure(json=None, level="WARNING")
    try:
        catalog = open_catalog(path)
    except (OSError, ValueError) as error:
        typer.echo(f"error: cannot read {path}: {error}", err=True)
        raise typer.Exit(2) from None
    try:
        asyncio.run(_serve(WebViewer(catalog, host=host, port=port), _first_page(catalog)))
    except OSError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None


def _first_page(catalog: FileCatalog | DatabaseCatalog) -> str:
    """The page to open first: the tournament, the only record's replay, else the list."""
    from tricktable.web.catalog import DatabaseCatalog, replay_path
    from tricktable.web.standings import tournament_path

    if isinstance(catalog, DatabaseCatalog):
        return ""
    if catalog.export is not None:
        return tournament_path(catalog.export.name).lstrip("/")
    if len(catalog.records) == 1:
        return replay_path(next(iter(catalog.records))).lstrip("/")
    return ""


async def _serve(viewer: WebViewer, page: str) -> None:
    await viewer.start()
    typer.echo(f"viewer on {viewer.url}{page} (Ctrl-C to stop)")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    with contextlib.suppress(asyncio.CancelledError):
        await stop.wait()
    await viewer.stop()


def register(app: typer.Typer) -> None:
    """Add ``view`` to the command line."""
    app.command("view")(view_command)
