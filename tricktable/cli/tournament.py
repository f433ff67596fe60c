"""``tricktable tournament [CONFIG.toml]``: run (or resume) a bot tournament and report it.

The config is a TOML file (examples/tournament.toml; fields in
:mod:`tricktable.tournament.config`), or flags for the simple cases
(``--game all_fives --bots random,first-legal --games 20``). Matches run over
the real server by default: one started in this process on a free port (its
database is the tournament's), or ``--server ADDR``; each bot is a separate
process. ``--runner local`` plays in-process instead (the rules engine as the
table, bots imported into this process: built-in names, ``module:Class``
and ``path/to/file.py:Class``, not command entrants; the fast path for
benchmarks), ``--ray ADDRESS``
on a Ray cluster (``local`` starts one on this machine).

Every finished match is stored at once - in the server's SQLite file, or with
``--database-url postgresql://...`` (or ``$TRICKTABLE_DATABASE_URL``, or the
file's ``database_url``) in that PostgreSQL database, where the in-process
server keeps its records too; after Ctrl-C or a kill, the same command with
``--resume`` plays only what is missing, from any machine that reaches the
database. Bots and the server
are checked before the first game. Exit status: 0 done, 1 interrupted or
every game an error or a forfeit, 2 bad config, database or unreachable server.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tricktable.bots import SPEC_HELP
from tricktable.cli.tls import TlsCa
from tricktable.server.record_store import ENV_DATABASE_URL

if TYPE_CHECKING:  # imported when the command runs, so that other commands (every bot process) start faster
    from rich.console import Console

    from tricktable.tournament.config import TournamentConfig
    from tricktable.tournament.engine import Dispatcher
    from tricktable.tournament.report import RichProgress
    from tricktable.tournament.store import TournamentStore

RUNNERS = ("server", "local")


def flags_config(game: str | None, bots: str | None, fmt: str, games: int, seed: str, players: int | None,
                 option: list[str], name: str | None) -> dict[str, Any]:
    """The config fields given as flags (no CONFIG file)."""
    from tricktable.cli.selfplay import parse_options
    from tricktable.tournament.config import ConfigError
    from tricktable.tournament.entrants import entrant_names

    if game is None or bots is None:
        raise ConfigError("give a CONFIG.toml, or at least --game and --bots")
    specs = [b.strip() for b in bots.split(",") if b.strip()]
    entrants = [{"name": label, "bot": bot} for label, bot in zip(entrant_names(specs), specs, strict=True)]
    fields = {"game": game, "entrants": entrants, "format": fmt, "games": games, "seed": seed,
              "options": parse_options(option, players)}
    # The default name tells apart runs with other bots or settings (same flags: same name, so --resume works).
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:8]
    return {"name": name or f"{game}-{fmt}-{seed}-{digest}", **fields}


async def _dispatcher(config: TournamentConfig, runner: str, server: str | None, ray: str | None,
                      concurrency: int, db: Path, tls_ca: Path | None = None, *, trusted: bool = False,
                      hidden: tuple[Path, ...] = (), database_url: str | None = None) -> Dispatcher:
    from tricktable.tournament.engine import local_dispatcher

    if ray is not None:
        from tricktable.tournament.ray_runner import RayDispatcher

        return RayDispatcher.connect(config, ray, local=runner == "local")
    if runner == "local" and server is None:
        return local_dispatcher(config, concurrency)
    from tricktable.server.logging import configure
    from tricktable.tournament.server_runner import ServerDispatcher

    configure(level="WARNING")  # the in-process server's per-call logs would drown the progress bar
    dispatcher = await ServerDispatcher.open(config, address=server, data_dir=db.parent, tls_ca=tls_ca,
                                             isolation="trusted" if trusted else "sandbox", hidden=hidden,
                                             database_url=database_url)
    if trusted:
        typer.secho("warning: --trusted-entrants: bots run as plain processes, not sandboxed; an entrant can read "
                    "the other entrants' seat tokens, files and what they leave behind (docs/tournament.md, "
                    "Isolation)", fg="yellow", err=True)
    else:
        typer.echo(f"entrants: {dispatcher.isolation}", err=True)
    return dispatcher


async def _run(config: TournamentConfig, store: TournamentStore, *, resume: bool, runner: str, server: str | None,
               ray: str | None, concurrency: int, db: Path, progress: RichProgress | None,
               tls_ca: Path | None = None, trusted: bool = False, hidden: tuple[Path, ...] = (),
               console: Console | None = None, database_url: str | None = None) -> Any:
    from tricktable.cli.owner import owner_token_path, write_owner_token
    from tricktable.tournament.engine import Tournament

    def keep_owner_token(token: str) -> None:
        """Write the organiser's credential where only this user reads it, and say how to watch with it."""
        path = owner_token_path(db.parent, config.name)
        write_owner_token(path, token)
        if console is not None:
            console.print(f"organiser token: {path} (watch any table: tricktable watch TABLE --token-file {path}; "
                          "in the viewer: its lobby's organiser sign-in)")

    dispatcher = await _dispatcher(config, runner, server, ray, concurrency, db, tls_ca, trusted=trusted,
                                   hidden=hidden, database_url=database_url)
    if ray is not None:
        from tricktable.tournament.ray_runner import RayDispatcher

        if isinstance(dispatcher, RayDispatcher):
            concurrency = dispatcher.slots
    tournament = Tournament(config, store, dispatcher, concurrency=concurrency, progress=progress,
                            on_begin=keep_owner_token)
    return await tournament.run(resume=resume)


def tournament_command(
    config_path: Annotated[Path | None, typer.Argument(metavar="CONFIG.toml", help="Tournament file (TOML).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue a stopped tournament of this name.")] = False,
    concurrency: Annotated[int | None, typer.Option(
        "--concurrency", "-j", min=1, help="Matches at once (capped by the cores); default: the config's.")] = None,
    db: Annotated[Path | None, typer.Option(
        "--db", help="SQLite file (default: the server's, <data-dir>/tricktable.sqlite3).")] = None,
    database_url: Annotated[str | None, typer.Option(
        "--database-url", envvar=ENV_DATABASE_URL, show_envvar=True,
        help="Keep the tournament (and the in-process server's records) in this PostgreSQL database "
        "(postgresql://USER@HOST/DB; needs the postgres extra) instead of the SQLite file; overrides the "
        "file's database_url.")] = None,
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="Data directory (default: $TRICKTABLE_DATA_DIR or ./data).")] = None,
    runner: Annotated[str, typer.Option(
        "--runner", help="server: over gRPC, a process per bot; local: in-process engine and bots.")] = "server",
    server: Annotated[str | None, typer.Option(
        "--server", help="Play on this server (host:port) instead of one started here.")] = None,
    ray: Annotated[str | None, typer.Option(
        "--ray", help="Run matches as Ray tasks: a cluster address, 'auto', or 'local'.")] = None,
    tls_ca: TlsCa = None,
    trusted_entrants: Annotated[bool, typer.Option(
        "--trusted-entrants", help="Run bots as plain processes, not sandboxed: only for entrants you trust "
        "(they can read each other's tokens and files).")] = False,
    out: Annotated[Path | None, typer.Option(
        "--out", help="Directory for the exports (default: <data-dir>/tournaments/<name>).")] = None,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No live progress bar.")] = False,
    game: Annotated[str | None, typer.Option("--game", help="Without CONFIG: the game.")] = None,
    bots: Annotated[str | None, typer.Option(
        "--bots", help=f"Without CONFIG: the entrants, comma separated: {SPEC_HELP}.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="Without CONFIG: round_robin, swiss, gauntlet.")] = "round_robin",
    games: Annotated[int, typer.Option("--games", min=1, help="Without CONFIG: games per pairing.")] = 10,
    seed: Annotated[str, typer.Option("--seed", help="Without CONFIG: the seed.")] = "tricktable",
    players: Annotated[int | None, typer.Option("--players", help="Without CONFIG: players.")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", help="Without CONFIG: KEY=VALUE.")] = None,
    name: Annotated[str | None, typer.Option("--name", help="Tournament name (default: the file's stem).")] = None,
) -> None:
    """Run a bot tournament (round robin, Swiss or gauntlet, duplicate decks) and report ratings."""
    from rich.console import Console

    from tricktable.client_sdk.errors import SdkError
    from tricktable.server.record_store import check_database_url, redacted
    from tricktable.server.storage import database_path
    from tricktable.tournament.config import ConfigError, check_bots, config_from_mapping, load_config
    from tricktable.tournament.engine import bounded_concurrency, stored_games
    from tricktable.tournament.report import RichProgress, export, print_report, summarize
    from tricktable.tournament.sandbox import SandboxUnavailable
    from tricktable.tournament.store import tournament_store
    from tricktable.tournament.store_errors import StoreError

    console = Console()
    try:
        if config_path is not None:
            config = load_config(config_path)
            if name:  # the stored form leaves out where the tournament is kept: carried over apart
                config = config_from_mapping({**config.to_json(), "name": name, "database_url": config.database_url})
        else:
            config = config_from_mapping(flags_config(game, bots, fmt, games, seed, players, option or [], name))
        if runner not in RUNNERS:
            raise ConfigError(f"--runner must be one of {', '.join(RUNNERS)}")
        if runner == "local" and any(e.command is not None for e in config.entrants):
            raise ConfigError("--runner local plays bots it can import (a name, module:Class or file.py:Class); "
                              "command entrants need the server runner")
        check_bots(config)
        url = database_url or config.database_url
        if url and db is not None:
            raise ConfigError("give --db (a SQLite file) or --database-url (or $TRICKTABLE_DATABASE_URL), not both")
        if url:
            check_database_url(url)
    except (ConfigError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    db_path = db if db is not None else database_path(data_dir)
    wanted = concurrency if concurrency is not None else config.concurrency
    workers = wanted if ray is not None else bounded_concurrency(wanted)
    if workers < wanted:
        console.print(f"concurrency {wanted} capped at {workers} (cores: {os.cpu_count()})", style="yellow")
    try:
        store = tournament_store(db_path, url)
    except Exception as exc:
        typer.echo(f"error: cannot open {redacted(url) if url else db_path}: {exc}", err=True)
        raise typer.Exit(2) from None
    safe_name = "".join(c if c.isalnum() or c in "-_." else "_" for c in config.name)
    target = out if out is not None else db_path.parent / "tournaments" / safe_name
    progress = None if no_progress else RichProgress()
    stats = None
    interrupted = False
    reporting = False
    # The report reads the database too: one that went away after the run ends the command as one that went
    # away during it (one line, exit 2), the stored matches kept for a --resume.
    try:
        try:
            if progress is not None:
                progress.__enter__()
            try:
                stats = asyncio.run(_run(config, store, resume=resume, runner=runner, server=server, ray=ray,
                                         concurrency=workers, db=db_path, progress=progress, tls_ca=tls_ca,
                                         trusted=trusted_entrants, hidden=(target,), console=console,
                                         database_url=url))
            finally:
                if progress is not None:
                    progress.__exit__(None, None, None)
        except KeyboardInterrupt:
            interrupted = True
        reporting = True
        summary = summarize(config, store)
        print_report(summary, console, stats)
        try:
            written = export(summary, store, target, stats)
        except OSError as exc:  # a full disk: the matches are stored, only their export is missing
            typer.echo(f"error: the exports could not be written to {target}: {exc}; every match is stored in "
                       f"{store.where}: the same command with --resume writes them once there is room", err=True)
            raise typer.Exit(2) from None
        played = [outcome.status for _spec, outcome in stored_games(store, config.name)]
    except (StoreError, SdkError, SandboxUnavailable) as exc:
        after = ("; the report could not be read: every match stored is kept, and the same command with --resume "
                 "reports the tournament once the database answers") if reporting else ""
        typer.echo(f"error: {exc}{after}", err=True)
        raise typer.Exit(2) from None
    finally:
        store.close()
    console.print(f"exports: {', '.join(str(p) for p in written)}")
    if played and all(status in ("error", "forfeit") for status in played):
        console.print(f"every game ended in an error or a forfeit ({len(played)} games): see the reasons above",
                      style="red")
        raise typer.Exit(1)
    if interrupted:
        console.print(f"interrupted: {summary.games} games stored; run the same command with --resume to finish",
                      style="yellow")
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``tournament`` to the command line."""
    app.command("tournament")(tournament_command)
