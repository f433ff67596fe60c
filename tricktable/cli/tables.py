"""``tricktable tables``, ``watch TABLE`` and ``record TABLE``: what a server is playing, followed or fetched.

- ``tables`` lists the server's tables (id, game, status, deal, scores, seats).
- ``watch`` follows one table's public events in the terminal, line by line
  as ``tricktable match`` shows its own table, until the game ends.
- ``record`` fetches an ended table's record (docs/records.md): printed, or
  written with ``--out`` where ``tricktable verify`` reads it.

All three are plain clients of the server (ListTables, Spectate, GetRecord);
an unreachable server or an unknown table is one line and exit status 2.
``watch`` and ``record`` take ``--token-file``: the owner token of a table
the server withholds (a tournament's organiser token follows all its tables).

The gRPC client, the protocol and the terminal renderer are imported by the command that
uses them, so ``--help`` and a mistyped flag cost only the command line's own start-up.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tricktable.cli import checks
from tricktable.cli.owner import TokenFile, read_owner_token
from tricktable.cli.tls import TlsCa, root_certificates
from tricktable.rules.errors import TricktableError

if TYPE_CHECKING:
    from rich.console import Console

    from tricktable.rules.game import Result

ServerOption = Annotated[str, typer.Option("--server", help="Server address, host:port.")]


def _status(value: int) -> str:
    from tricktable.protocol.generated.tricktable.v1 import table_service_pb2

    name = table_service_pb2.TableStatus.Name(value)  # type: ignore[arg-type]
    return name.removeprefix("TABLE_STATUS_").lower()


def tables_command(
    server: ServerOption = "127.0.0.1:50051",
    game: Annotated[str | None, typer.Option("--game", help="Only tables of this game.")] = None,
    tls_ca: TlsCa = None,
) -> None:
    """List the server's tables: id, game, status, deal, scores and seats."""
    from tricktable.client_sdk.errors import SdkError
    from tricktable.client_sdk.runner import list_tables
    from tricktable.protocol import convert

    try:
        found = asyncio.run(list_tables(server, game=game, root_certificates=root_certificates(tls_ca)))
    except (SdkError, TricktableError) as exc:
        checks.fail(str(exc))
    if not found:
        typer.echo("no tables")
    for info in found:
        seats = ", ".join(f"{s.name or s.seat}{'' if s.connected else ' (away)'}" for s in info.seats)
        scores = "-".join(str(s) for s in info.scores) or "-"
        typer.echo(f"{info.table_id}  {convert.game_from_proto(info.game)}  {_status(info.status)}  "
                   f"deal {info.deal_number}  scores {scores}  seats: {seats}")


def watch_command(
    table_id: Annotated[str, typer.Argument(metavar="TABLE", help="The table's id (see tricktable tables).")],
    server: ServerOption = "127.0.0.1:50051",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Show deal results only, not every trick.")] = False,
    token_file: TokenFile = None,
    tls_ca: TlsCa = None,
) -> None:
    """Follow a table's public events in the terminal until its game ends."""
    from rich.console import Console
    from rich.markup import escape

    from tricktable.client_sdk.errors import SdkError

    console = Console(highlight=False)
    try:
        owner_token = read_owner_token(token_file)
        result = asyncio.run(_watch(console, server, table_id, quiet, owner_token, root_certificates(tls_ca)))
    except (SdkError, TricktableError, OSError, ValueError) as exc:
        checks.fail(str(exc))
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    if result is not None:
        winners = ", ".join(str(w) for w in result.winners) or "none"
        console.print(f"{escape(result.status)}: winning side(s) {winners}; scores "
                      f"{' '.join(str(s) for s in result.scores)}; {escape(result.reason)}")


async def _watch(console: Console, server: str, table_id: str, quiet: bool, owner_token: str = "",
                 certificates: bytes | None = None) -> Result | None:
    import grpc

    from tricktable.cli.match import show_table
    from tricktable.client_sdk.errors import error_from_rpc
    from tricktable.client_sdk.runner import connect, open_channel
    from tricktable.protocol import convert
    from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc

    channel = open_channel(server, root_certificates=certificates)
    try:
        await connect(channel, server)
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        try:
            ended = await show_table(console, stub, table_id, quiet, owner_token=owner_token)
        except grpc.aio.AioRpcError as exc:
            raise error_from_rpc(exc) from None
        return None if ended is None else convert.result_from_proto(ended)
    finally:
        await channel.close(None)


def record_command(
    table_id: Annotated[str, typer.Argument(metavar="TABLE", help="The table's id (see tricktable tables).")],
    server: ServerOption = "127.0.0.1:50051",
    out: Annotated[Path | None, typer.Option("--out", help="Write the record here instead of printing it.")] = None,
    token_file: TokenFile = None,
    tls_ca: TlsCa = None,
) -> None:
    """Fetch an ended table's game record (JSON) from the server."""
    from tricktable.client_sdk.errors import SdkError
    from tricktable.client_sdk.runner import get_record

    try:
        text = asyncio.run(get_record(server, table_id, owner_token=read_owner_token(token_file),
                                      root_certificates=root_certificates(tls_ca)))
    except (SdkError, TricktableError, OSError, ValueError) as exc:
        checks.fail(str(exc))
    pretty = json.dumps(json.loads(text), indent=1) + "\n"
    if out is None:
        typer.echo(pretty, nl=False)
    else:
        out.write_text(pretty, encoding="utf-8")
        typer.echo(f"record: {out} (check it with: tricktable verify {out})")


def register(app: typer.Typer) -> None:
    """Add ``tables``, ``watch`` and ``record`` to the command line."""
    app.command("tables")(tables_command)
    app.command("watch")(watch_command)
    app.command("record")(record_command)
