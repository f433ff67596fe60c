"""``tricktable serve``: run the authoritative game server until SIGTERM or Ctrl-C.

Prints ``listening on HOST:PORT`` on stdout once bound (``--port 0`` picks a
free port, which the line then names), logs JSON lines to stderr (a console
rendering on a terminal) and serves the web viewer on ``--http-port`` (8080;
the next line gives its address; ``--no-http`` for none). Running tables are
journaled in the data directory and resumed by the next start, after a crash
too. SIGTERM drains: no new tables, the running ones play on for up to
``--drain-seconds``, the rest stay in the journal for the next start
(``--no-journal``: they are aborted with reason "server shutdown" and their
records stored). Flags are checked first (:mod:`tricktable.cli.checks`): a bad one is a
one-line error, exit 2.

``--shards N`` runs the server as N processes (0: one per core) behind the
one public address (:mod:`tricktable.server.sharded`, :mod:`tricktable.server.shards`): it prints
``shard K pid P listening on ADDR`` for each shard, then ``listening on``
the public address (the web viewer runs beside shard 0; each shard journals
its own tables in ``DATA_DIR/shard-K``).

``--config FILE`` reads the same settings from a TOML file (:mod:`tricktable.cli.config_file`);
``--print-config`` shows what is in effect.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tricktable.cli import checks
from tricktable.cli.config_file import load_defaults, to_toml
from tricktable.server import runtime
from tricktable.server.app import GameServer, ServerConfig, serve
from tricktable.server.clocks import LIMITS, TimeControl
from tricktable.server.lobby import Limits
from tricktable.server.logging import configure
from tricktable.server.sharded import Shard, serve_sharded, shard_count
from tricktable.server.storage import resolve_data_dir
from tricktable.web.viewer import beside_server

#: The server's own defaults, which the flags show in the user's units (milliseconds, MiB): one definition each.
CLOCKS = TimeControl()
LIMITS_DEFAULT = Limits()


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def serve_command(
    ctx: typer.Context,
    host: Annotated[str, typer.Option("--host", help="Address to bind (127.0.0.1 by default: local only).")]
    = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to bind; 0 picks a free one.")] = 50051,
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="Where the SQLite store lives (default: $TRICKTABLE_DATA_DIR, else ./data).")] = None,
    tls_cert: Annotated[Path | None, typer.Option("--tls-cert", help="PEM certificate chain; TLS with --tls-key.")]
    = None,
    tls_key: Annotated[Path | None, typer.Option("--tls-key", help="PEM private key; TLS with --tls-cert.")] = None,
    decision_ms: Annotated[int, typer.Option("--decision-ms", help="Default time per decision.")]
    = _ms(CLOCKS.decision_seconds),
    bank_ms: Annotated[int, typer.Option("--bank-ms", help="Default time bank per seat and game.")]
    = _ms(CLOCKS.bank_seconds),
    grace_ms: Annotated[int, typer.Option("--grace-ms", help="How long a disconnected seat keeps its place.")]
    = _ms(CLOCKS.grace_seconds),
    join_ms: Annotated[int, typer.Option("--join-ms", help="How long seats have to join before cancellation.")]
    = _ms(CLOCKS.join_seconds),
    max_tables: Annotated[int, typer.Option("--max-tables", help="Open tables the server holds at most.")]
    = LIMITS_DEFAULT.max_tables,
    max_tables_per_client: Annotated[int, typer.Option(
        "--max-tables-per-client", help="Open tables one client address may create.")]
    = LIMITS_DEFAULT.max_tables_per_client,
    max_streams_per_client: Annotated[int, typer.Option(
        "--max-streams-per-client", help="Open streams one client address may hold.")]
    = LIMITS_DEFAULT.max_streams_per_client,
    drain_seconds: Annotated[float, typer.Option(
        "--drain-seconds", min=0, help="On SIGTERM, how long running tables may finish before the rest are left "
        "in the journal for the next start.")] = 30.0,
    min_free_mb: Annotated[int, typer.Option(
        "--min-free-mb", help="Free space (MiB) the data directory keeps: below it, and while the journal or the "
        "record store can not write, no new tables or seats; 0: only failed writes count.")]
    = LIMITS_DEFAULT.min_free_bytes // (1024 * 1024),
    journal: Annotated[bool, typer.Option(
        "--journal/--no-journal", help="Journal running tables so a restart (after a crash too) resumes them.")]
    = True,
    shards: Annotated[int, typer.Option(
        "--shards", help="Server processes sharing the tables behind this address; 0: one per core.")] = 1,
    log_level: Annotated[str, typer.Option("--log-level", help="DEBUG, INFO, WARNING or ERROR.")] = "INFO",
    json_logs: Annotated[bool | None, typer.Option(
        "--json-logs/--console-logs", help="Log format (default: JSON unless stderr is a terminal).")] = None,
    http_host: Annotated[str, typer.Option("--http-host", help="Address of the web viewer (local only by default).")]
    = "127.0.0.1",
    http_port: Annotated[int, typer.Option("--http-port", help="Port of the web viewer; 0 picks a free one.")] = 8080,
    no_http: Annotated[bool, typer.Option("--no-http", help="Serve nothing over HTTP: no viewer, no metrics.")]
    = False,
    viewer: Annotated[bool, typer.Option(
        "--viewer/--no-viewer", help="The web viewer's pages on the HTTP port (/metrics, /healthz and /readyz are "
        "served either way).")] = True,
    config_file: Annotated[Path | None, typer.Option(
        "--config", is_eager=True, callback=load_defaults, dir_okay=False,
        help="A TOML file of settings: each flag's name in snake case as a key (decision_ms = 5000); "
        "flags on the command line override it.")] = None,
    print_config: Annotated[bool, typer.Option(
        "--print-config", help="Print the settings in effect (file, flags, defaults) as TOML and exit.")] = False,
) -> None:
    """Run the Tricktable game server."""
    if (tls_cert is None) != (tls_key is None):
        checks.fail("give both --tls-cert and --tls-key, or neither")
    checks.port("--port", port)
    checks.port("--http-port", http_port)
    for flag, ms, limit in (("--decision-ms", decision_ms, "decision_seconds"), ("--bank-ms", bank_ms, "bank_seconds"),
                            ("--grace-ms", grace_ms, "grace_seconds"), ("--join-ms", join_ms, "join_seconds")):
        checks.ms_in_range(flag, ms, *LIMITS[limit])
    for flag, count in (("--max-tables", max_tables), ("--max-tables-per-client", max_tables_per_client),
                        ("--max-streams-per-client", max_streams_per_client)):
        checks.at_least(flag, count, 1)
    checks.at_least("--min-free-mb", min_free_mb, 0)
    if print_config:
        typer.echo(to_toml(ctx.params), nl=False)
        raise typer.Exit(0)
    configure(json=json_logs, level=checks.log_level(log_level))
    try:
        count = shard_count(shards)
        clocks = TimeControl(decision_seconds=decision_ms / 1000, bank_seconds=bank_ms / 1000,
                             grace_seconds=grace_ms / 1000, join_seconds=join_ms / 1000).validate()
    except ValueError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    notes: list[str] = []
    config = ServerConfig(
        host=host, port=port, data_dir=resolve_data_dir(data_dir), tls_cert=tls_cert, tls_key=tls_key,
        time_control=clocks, journal=journal, drain_seconds=drain_seconds,
        limits=Limits(max_tables=max_tables, max_tables_per_client=max_tables_per_client,
                      max_streams_per_client=max_streams_per_client, min_free_bytes=min_free_mb * 1024 * 1024))
    companions = [] if no_http else [beside_server(http_host, http_port, announce=notes.append, pages=viewer)]

    def ready(server: GameServer, shards: list[Shard] | None = None) -> None:
        for shard in shards or ():
            typer.echo(f"shard {shard.index} pid {shard.pid} listening on {shard.address}")
        _ready(server, notes)
        runtime.settle_collector()

    try:
        if count == 1:
            runtime.run(serve(config, on_ready=ready, companions=companions))
        else:
            runtime.run(serve_sharded(config, count, logging={"json": json_logs, "level": log_level},
                                      on_ready=ready, companions=companions))
    except (OSError, RuntimeError) as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None


def _ready(server: GameServer, notes: list[str]) -> None:
    typer.echo(f"listening on {server.address}")  # first: scripts read the gRPC address from this line
    for note in notes:
        typer.echo(note)


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the command line."""
    app.command("serve")(serve_command)
