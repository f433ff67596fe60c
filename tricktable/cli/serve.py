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

``--database-url postgresql://...`` (or ``$TRICKTABLE_DATABASE_URL``) stores
the ended tables in PostgreSQL instead of the data directory's SQLite file
(:mod:`tricktable.server.record_store`); the journal stays in the data directory.

``--role lobby|game`` (with ``--games N``, ``--game-index K``, ``--advertise-address``,
``--database-url`` and ``--forwarding-secret-file``) runs one process of a server spread over machines
(:mod:`tricktable.server.directory`, :mod:`tricktable.server.forwarding`).

``--config FILE`` reads the same settings from a TOML file (:mod:`tricktable.cli.config_file`);
``--print-config`` shows what is in effect.

The server and the web viewer are imported once the flags are checked, so ``--help``, a refused
flag and ``--print-config`` cost only the command line's own start-up.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tricktable.cli import checks
from tricktable.cli.config_file import load_defaults, to_toml
from tricktable.server.clocks import LIMITS, TimeControl
from tricktable.server.forwarding import ENV_SECRET_FILE, read_secret
from tricktable.server.limits import Limits
from tricktable.server.record_store import ENV_DATABASE_URL, POSTGRES_SCHEMES, redacted

if TYPE_CHECKING:
    from tricktable.server.app import GameServer
    from tricktable.server.sharded import Shard

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
    database_url: Annotated[str | None, typer.Option(
        "--database-url", envvar=ENV_DATABASE_URL, show_envvar=True,
        help="Store ended tables in this PostgreSQL database (postgresql://USER:PASSWORD@HOST/DB; needs the "
        "postgres extra) instead of the SQLite file in the data directory; several servers may share it.")] = None,
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
    call_burst_per_token: Annotated[int, typer.Option(
        "--call-burst-per-token", help="Unary calls (SubmitAction) one seat token may make at once; moves its table "
        "asked for are not counted.")]
    = LIMITS_DEFAULT.call_burst_per_token,
    call_rate_per_token: Annotated[float, typer.Option(
        "--call-rate-per-token", help="Unary calls a second one seat token may make past its burst; 0: no limit.")]
    = LIMITS_DEFAULT.call_rate_per_token,
    call_burst_per_connection: Annotated[int, typer.Option(
        "--call-burst-per-connection", help="Unary calls one connection may make at once; moves its tables asked "
        "for are not counted.")] = LIMITS_DEFAULT.call_burst_per_connection,
    call_rate_per_connection: Annotated[float, typer.Option(
        "--call-rate-per-connection", help="Unary calls a second one connection may make past its burst; "
        "0: no limit.")] = LIMITS_DEFAULT.call_rate_per_connection,
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
    role: Annotated[str | None, typer.Option(
        "--role", help="Many machines: 'game' runs tables as game process --game-index of --games, 'lobby' runs "
        "none and places them on the game processes; both need --database-url (they meet in its directory).")]
    = None,
    game_index: Annotated[int | None, typer.Option(
        "--game-index", help="With --role game: this process's index, 0 to --games - 1 (its tables' ids name it).")]
    = None,
    claim_game_index: Annotated[bool, typer.Option(
        "--claim-game-index", help="With --role game, instead of --game-index: take a free index from the directory "
        "(pods without an ordinal, as an Agones Fleet's) and keep it in the data directory for a restart.")] = False,
    games: Annotated[int, typer.Option("--games", help="With --role: how many game processes there are.")] = 1,
    advertise_address: Annotated[str | None, typer.Option(
        "--advertise-address", help="With --role: the HOST:PORT clients (and the other lobbies) reach this process "
        "at (a game process's is the play_address); default: the address it binds.")] = None,
    forwarding_secret_file: Annotated[Path | None, typer.Option(
        "--forwarding-secret-file", envvar=ENV_SECRET_FILE, show_envvar=True, dir_okay=False,
        help="With --role: a file holding the secret (at least 32 bytes) the lobbies and game processes sign the "
        "calls they forward to each other with; the same file for every process.")] = None,
    log_level: Annotated[str, typer.Option("--log-level", help="DEBUG, INFO, WARNING or ERROR.")] = "INFO",
    json_logs: Annotated[bool | None, typer.Option(
        "--json-logs/--console-logs", help="Log format (default: JSON unless stderr is a terminal).")] = None,
    http_host: Annotated[str, typer.Option("--http-host", help="Address of the web viewer (local only by default).")]
    = "127.0.0.1",
    http_port: Annotated[int, typer.Option("--http-port", help="Port of the web viewer; 0 picks a free one.")] = 8080,
    no_http: Annotated[bool, typer.Option("--no-http", help="Serve nothing over HTTP: no viewer, no metrics.")]
    = False,
    metrics: Annotated[bool, typer.Option(
        "--metrics/--no-metrics", help="Count what /metrics serves (--no-metrics: count nothing and serve an empty "
        "/metrics, for a server nobody scrapes).")] = True,
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
                        ("--max-streams-per-client", max_streams_per_client),
                        ("--call-burst-per-token", call_burst_per_token),
                        ("--call-burst-per-connection", call_burst_per_connection)):
        checks.at_least(flag, count, 1)
    checks.at_least("--call-rate-per-token", call_rate_per_token, 0.0)
    checks.at_least("--call-rate-per-connection", call_rate_per_connection, 0.0)
    checks.at_least("--min-free-mb", min_free_mb, 0)
    if database_url and not database_url.startswith(POSTGRES_SCHEMES):
        checks.fail(f"--database-url must begin with {' or '.join(POSTGRES_SCHEMES)}")
    if role is not None:
        _check_role(role, None if claim_game_index else game_index, games, database_url, shards,
                    claim_game_index and game_index is None)
        if forwarding_secret_file is None:
            checks.fail(f"--role needs --forwarding-secret-file (or ${ENV_SECRET_FILE}): the processes sign the "
                        "calls they forward to each other with its secret")
    secret = None
    if forwarding_secret_file is not None:
        try:
            secret = read_secret(forwarding_secret_file)
        except ValueError as error:
            checks.fail(str(error))
    if print_config:
        shown = {**ctx.params, "database_url": database_url and redacted(database_url)}
        typer.echo(to_toml(shown), nl=False)
        raise typer.Exit(0)
    from tricktable.server import runtime
    from tricktable.server.app import ServerConfig, serve
    from tricktable.server.errors import StorageUnavailableError
    from tricktable.server.logging import configure
    from tricktable.server.sharded import serve_sharded, shard_count
    from tricktable.server.storage import resolve_data_dir
    from tricktable.web.viewer import beside_server

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
        host=host, port=port, data_dir=resolve_data_dir(data_dir), database_url=database_url, tls_cert=tls_cert,
        tls_key=tls_key, time_control=clocks, journal=journal, drain_seconds=drain_seconds, role=role,
        advertise_address=advertise_address, forwarding_secret=secret, claim_game_index=claim_game_index,
        shard=game_index if role == "game" else None, metrics=metrics,
        shard_count=games if role else 1,
        limits=Limits(max_tables=max_tables, max_tables_per_client=max_tables_per_client,
                      max_streams_per_client=max_streams_per_client, min_free_bytes=min_free_mb * 1024 * 1024,
                      call_burst_per_token=call_burst_per_token, call_rate_per_token=call_rate_per_token,
                      call_burst_per_connection=call_burst_per_connection,
                      call_rate_per_connection=call_rate_per_connection))
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
    except (OSError, RuntimeError, StorageUnavailableError) as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None


def _check_role(role: str, game_index: int | None, games: int, database_url: str | None, shards: int,
                claimed: bool) -> None:
    """The flags of ``--role`` agree with each other (else one line and exit 2)."""
    from tricktable.server.directory import ROLES

    if role not in ROLES:
        checks.fail(f"--role must be one of {', '.join(ROLES)}, not {role!r}")
    if not database_url:
        checks.fail("--role needs --database-url: the lobby and the game processes meet in its game directory")
    if shards != 1:
        checks.fail("--role runs one process: give --shards only without it")
    checks.at_least("--games", games, 1)
    if role == "game" and not claimed and (game_index is None or not 0 <= game_index < games):
        checks.fail(f"--role game needs --game-index from 0 to {games - 1} (--games {games}), or "
                    "--claim-game-index (not both)")


def _ready(server: GameServer, notes: list[str]) -> None:
    typer.echo(f"listening on {server.address}")  # first: scripts read the gRPC address from this line
    for note in notes:
        typer.echo(note)


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the command line."""
    app.command("serve")(serve_command)
