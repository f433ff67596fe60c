"""``tricktable match``: one table of bots over real gRPC, shown as it is played.

Starts a server on a free port (unless ``--server`` names one), creates a
table, launches each bot (built-in or ``module:Class``, checked before
anything starts) as a separate process (``tricktable bot NAME
--server ADDR --token T``), follows the table's public events with the
Spectate stream, then prints the result and writes the record where
``tricktable verify`` can read it.

The server, the viewer and the gRPC client are imported by the functions that start them, so
``--help`` and a flag refused before the match begins cost only the command line's own start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from tricktable.bots import EXEC_PREFIX, SPEC_HELP, WEBHOOK_PREFIX, BotSpecError, bot_factory
from tricktable.cli import checks
from tricktable.cli.selfplay import parse_options
from tricktable.cli.tls import TlsCa, root_certificates
from tricktable.rules.errors import TricktableError
from tricktable.rules.registry import game_rules, games

if TYPE_CHECKING:
    from tricktable.protocol.generated.tricktable.v1 import events_pb2
    from tricktable.server.app import GameServer
    from tricktable.tournament.bot_output import StderrTail
    from tricktable.web.viewer import WebViewer

#: Seconds the bots get to exit after the game's end before they are stopped.
BOT_EXIT_SECONDS = 10.0
#: Lines of one bot's stderr printed as they come; the rest is counted, and its end kept.
LINES_SHOWN = 20


def match_command(
    game: Annotated[str, typer.Option("--game", help=f"One of: {', '.join(games())}.")],
    bots: Annotated[str, typer.Option("--bots", help=f"One bot per seat, comma separated: {SPEC_HELP}.")],
    players: Annotated[int | None, typer.Option("--players", help="Players (default: the number of bots).")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", help="A table option, KEY=VALUE (repeatable).")]
    = None,
    server: Annotated[str | None, typer.Option("--server", help="Use this server (host:port) instead of a new one.")]
    = None,
    seed: Annotated[str | None, typer.Option("--seed", help="Seed of the decks (and of the bots' choices).")]
    = None,
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="Data directory of the local server and of the record file (default ./data).")] = None,
    decision_ms: Annotated[int | None, typer.Option("--decision-ms", help="Time per decision, in milliseconds.")]
    = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Show deal results only, not every trick.")] = False,
    http_port: Annotated[int | None, typer.Option(
        "--http-port", help="Watch in the browser: the local server's web viewer on this port (0: a free one); "
        "from a terminal it stays up after the game, for the replay, until Ctrl-C.")] = None,
    delay_ms: Annotated[int, typer.Option("--delay-ms", min=0, help="Each bot waits this long before each action.")]
    = 0,
    tls_ca: TlsCa = None,
) -> None:
    """Play one table of bots over gRPC and show it."""
    from tricktable.server.clocks import LIMITS

    console = Console(highlight=False)
    if decision_ms is not None:
        checks.ms_in_range("--decision-ms", decision_ms, *LIMITS["decision_seconds"])
    if http_port is not None:
        checks.port("--http-port", http_port)
    names = [b.strip() for b in bots.split(",") if b.strip()]
    try:
        for spec in dict.fromkeys(names):  # each bot checked here, before a server or a process starts
            factory = bot_factory(spec)
            if not spec.startswith((EXEC_PREFIX, WEBHOOK_PREFIX)):
                factory(None)  # an author's class that cannot be made says so now, not as a seat that never joins
    except BotSpecError as error:
        console.print(f"[red]error:[/red] {escape(str(error))}")
        raise typer.Exit(2) from None
    try:
        options = parse_options(option or [], players if players is not None else len(names))
        expected = game_rules(game).config(options).players
    except TricktableError as error:
        console.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2) from None
    if len(names) != expected:
        console.print(f"[red]error:[/red] {game} seats {expected} players here; --bots names {len(names)}")
        raise typer.Exit(2)
    import grpc

    from tricktable.server.storage import resolve_data_dir

    folder = resolve_data_dir(data_dir)
    try:
        status = asyncio.run(_match(console, game, options, names, server, seed, folder, decision_ms, quiet,
                                    Watch(http_port=http_port, delay_ms=delay_ms), tls_ca=tls_ca))
    except grpc.aio.AioRpcError as error:
        console.print(f"[red]error:[/red] {error.code().name}: {error.details()}")
        raise typer.Exit(2) from None
    except ViewerUnavailable as error:
        console.print(f"[red]error:[/red] {escape(str(error))}")
        raise typer.Exit(2) from None
    except (KeyboardInterrupt, asyncio.CancelledError):
        where = "the remote server finishes it" if server else f"aborted, record stored in {folder}"
        console.print(f"[yellow]interrupted: bots stopped; the table is {where}[/yellow]")
        raise typer.Exit(130) from None
    raise typer.Exit(0 if status == "finished" else 1)


class ViewerUnavailable(Exception):
    """The web viewer could not listen on the port asked for: nothing was played."""

    def __init__(self, port: int, error: OSError) -> None:
        taken = error.errno == errno.EADDRINUSE
        reason = "is taken by another program" if taken else f"cannot be used ({error.strerror})"
        super().__init__(f"the web viewer's port {port} {reason}: choose another with --http-port N, 0 for any "
                         "free one (make demo HTTP_PORT=N)")


@dataclass(frozen=True, slots=True)
class Watch:
    """How a person watches: the web viewer's port (None: no viewer) and the bots' pause before each action."""

    http_port: int | None = None
    delay_ms: int = 0


async def _match(console: Console, game: str, options: dict[str, Any], bots: list[str], address: str | None,
                 seed: str | None, folder: Path, decision_ms: int | None, quiet: bool, watch: Watch, *,
                 tls_ca: Path | None = None) -> str:
    """Create the table, start its bots, show it to its end; ``tls_ca``: reach ``address`` over TLS."""
    from tricktable.client_sdk.runner import open_channel, play_target, with_rate_retries
    from tricktable.protocol import convert
    from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
    from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc
    from tricktable.server.app import GameServer, ServerConfig
    from tricktable.server.logging import configure
    from tricktable.web.catalog import ServerCatalog
    from tricktable.web.viewer import WebViewer

    local: GameServer | None = None
    viewer: WebViewer | None = None
    main = asyncio.current_task()
    if main is not None:  # SIGTERM ends the match like Ctrl-C: bots stopped, the table aborted, its record stored
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main.cancel)
    if address is None:
        configure(json=True, level="WARNING")
        # No journal: the bots end with this process, so a table left over would have nobody to resume it.
        local = GameServer(ServerConfig(host="127.0.0.1", port=0, data_dir=folder, journal=False))
        await local.start()
        address = local.address
        console.print(f"server listening on [bold]{address}[/bold] (data in {folder})")
    try:
        if local is not None and watch.http_port is not None:
            viewer = WebViewer(ServerCatalog(local.lobby, local.storage.path), port=watch.http_port)
            try:
                await viewer.start()
            except OSError as error:
                viewer = None
                raise ViewerUnavailable(watch.http_port, error) from None
        async with open_channel(address, root_certificates=root_certificates(tls_ca)) as channel:
            stub = table_service_pb2_grpc.TableServiceStub(channel)
            request = pb.CreateTableRequest(game=convert.game_to_proto(game),
                                            options=convert.options_to_proto(game, options),
                                            seat_names=[f"{name}-{i}" for i, name in enumerate(bots)])
            if seed is not None:
                request.seed = seed
            if decision_ms is not None:
                request.time_control.decision_ms = decision_ms
            created = await with_rate_retries(lambda: stub.CreateTable(request), "CreateTable")
            console.print(f"table [bold]{created.table_id}[/bold]: {game}, seed SHA-256 {created.seed_sha256[:16]}...")
            if viewer is not None:
                console.print(f"watch it in your browser: [bold]{viewer.url}table/{created.table_id}[/bold]")
            watching = asyncio.ensure_future(show_table(console, stub, created.table_id, quiet,
                                                        owner_token=created.owner_token))
            launched: list[_Launched] = []
            try:
                for name, t in zip(bots, created.seat_tokens, strict=True):
                    launched.append(await _launch(console, name, play_target(address, created.play_address),
                                                  t.token, f"{name}-{t.seat}",
                                                  None if seed is None else f"{seed}/{t.seat}", watch.delay_ms,
                                                  tls_ca))
                result = await _follow(console, watching, launched)
                await _reap(console, launched)
            finally:  # interrupted: no bot outlives the match
                for bot in launched:
                    if bot.process.returncode is None:
                        with contextlib.suppress(ProcessLookupError):
                            bot.process.kill()
                    await bot.output.finish(0.0)
            asked = pb.GetRecordRequest(table_id=created.table_id, owner_token=created.owner_token)
            record = json.loads((await with_rate_retries(lambda: stub.GetRecord(asked), "GetRecord")).record_json)
        path = folder / "records" / f"{created.table_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=1) + "\n")
        status = str(record["result"]["status"])
        _print_result(console, record, result)
        console.print(f"record: [bold]{path}[/bold] (check it with: tricktable verify {path})")
        if viewer is not None and sys.stdin.isatty():  # a person at a terminal; a script goes on
            await _linger(console, f"{viewer.url}replay/{created.table_id}")
    finally:
        if viewer is not None:
            await viewer.stop()
        if local is not None:
            await local.stop()
    return status


async def _linger(console: Console, replay: str) -> None:
    """Keep the viewer up for the replay until Ctrl-C or SIGTERM (which then end the command normally)."""
    console.print(f"the replay: [bold]{replay}[/bold] (Ctrl-C to stop the viewer)")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()


@dataclass(frozen=True, slots=True)
class _Launched:
    """One seat's bot process and the reader of its stderr."""

    name: str
    process: asyncio.subprocess.Process
    output: StderrTail


async def _launch(console: Console, bot: str, address: str, token: str, name: str, seed: str | None,
                  delay_ms: int, tls_ca: Path | None = None) -> _Launched:
    """Start one seat's ``tricktable bot``, its token on a descriptor of its own (never on its command line).

    Its stderr is read from the start (:class:`StderrTail`): a bot's warnings show as they come, and a noisy
    bot never blocks on a full pipe.
    """
    from tricktable.bots.stderr import OutputTail
    from tricktable.client_sdk.handoff import token_descriptor
    from tricktable.tournament.bot_output import StderrTail
    from tricktable.tournament.sandbox import trusted_environment

    fd = token_descriptor(token)
    # The server is up (this command started it or reached it): a slow first connection is waited for.
    args = [sys.executable, "-m", "tricktable.cli.main", "bot", bot, "--server", address,
            "--token-file", f"/dev/fd/{fd}", "--name", name, "--wait-for-server", "30",
            "--delay-ms", str(delay_ms)]
    if tls_ca is not None:
        args += ["--tls-ca", str(tls_ca)]
    if seed is not None:
        args += ["--seed", seed]
    try:
        process = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.DEVNULL,
                                                       stderr=asyncio.subprocess.PIPE, pass_fds=(fd,),
                                                       env=trusted_environment({}))
    finally:
        os.close(fd)
    if process.stderr is None:  # started with stderr=PIPE above, so asyncio always gives a reader
        raise RuntimeError("a bot started without a stderr pipe")

    def show(line: str) -> None:
        console.print(f"  [dim]{escape(name)}:[/dim] [yellow]{escape(line)}[/yellow]")

    output = OutputTail(show=show, show_lines=LINES_SHOWN, label=name)
    return _Launched(name, process, StderrTail(process.stderr, output))


async def _follow(console: Console, watching: asyncio.Future[Any], launched: list[_Launched]) -> Any:
    """Wait for the game's end, saying at once when a bot exits before it (with the end of its stderr)."""
    exits: dict[asyncio.Future[Any], _Launched] = {asyncio.ensure_future(bot.process.wait()): bot
                                                   for bot in launched}
    try:
        while not watching.done():
            done, _ = await asyncio.wait([watching, *exits], return_when=asyncio.FIRST_COMPLETED)
            for task in done & exits.keys():
                bot = exits.pop(task)
                if watching.done():
                    break
                await bot.output.finish()
                tail = bot.output.output.text().strip()[-600:]
                console.print(f"[red]{escape(bot.name)} exited (status {bot.process.returncode}) before the game "
                              f"ended[/red]" + (f": {escape(tail)}" if tail else ""))
        return await watching
    finally:
        for task in exits:
            task.cancel()


async def _reap(console: Console, launched: list[_Launched]) -> None:
    for bot in launched:
        process = bot.process
        try:
            await asyncio.wait_for(process.wait(), BOT_EXIT_SECONDS)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
            console.print(f"[yellow]{escape(bot.name)} (pid {process.pid}) did not exit and was stopped[/yellow]")
        await bot.output.finish()
        if bot.output.output.hidden:
            console.print(f"[yellow]{escape(bot.name)}: {bot.output.output.hidden} more lines of stderr; "
                          "the last:[/yellow] "
                          f"{escape(bot.output.output.text().strip()[-300:])}")
        if process.returncode not in (0, 1, None):
            console.print(f"[yellow]{escape(bot.name)} exited with status {process.returncode}: "
                          f"{escape(bot.output.output.text().strip()[-300:])}[/yellow]")


async def show_table(console: Console, stub: Any, table_id: str, quiet: bool, *, owner_token: str = "") -> Any:
    """Print the table's public events until the game ends; return the result message.

    ``owner_token`` (CreateTable's) lets the table's creator follow a table whose spectating is withheld.
    """
    from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb

    names: list[str] = []
    result = None
    # From sequence 0: every event of the table, however late this stream connects.
    async for response in stub.Spectate(pb.SpectateRequest(table_id=table_id, last_seen_sequence=0,
                                                           owner_token=owner_token)):
        if response.WhichOneof("kind") != "event":
            continue
        event = response.event
        kind = event.WhichOneof("kind")
        if kind == "table_started":
            names = list(event.table_started.seat_names)
            console.print("seats: " + ", ".join(f"{i} {n}" for i, n in enumerate(names)))
        elif kind == "game_ended":
            result = event.game_ended.result
        line = describe_event(event, names, quiet)
        if line:
            console.print(line)
    return result


def describe_event(event: events_pb2.Event, names: list[str], quiet: bool = False) -> str | None:
    """A one-line, human description of a public event (None for events not worth a line)."""
    from tricktable.protocol import convert

    kind = event.WhichOneof("kind")

    def who(seat: int) -> str:
        return names[seat] if 0 <= seat < len(names) else f"seat {seat}"

    if kind == "deal_started":
        d = event.deal_started
        turn_up = f", turn-up {d.turn_up}" if d.turn_up else ""
        redeal = " (redeal)" if d.redeal else ""
        return f"[bold]deal {d.deal_number}[/bold]{redeal}: {who(d.dealer)} deals{turn_up}"
    if kind == "trick_won" and not quiet:
        t = event.trick_won
        return f"  trick {t.trick_number}: {' '.join(t.trick.cards)} -> {who(t.trick.winner)}"
    if kind == "robbed" and not quiet:
        return f"  {who(event.robbed.seat)} robs the {event.robbed.taken}"
    if kind == "trump_set" and not quiet:
        suit = convert.suit_from_proto(event.trump_set.trump)
        return "  no-trump" if event.trump_set.no_trump else f"  trump: {suit.value if suit else '-'}"
    if kind == "stood" and not quiet:
        return f"  {who(event.stood.seat)} stands"
    if kind == "begged" and not quiet:
        return f"  {who(event.begged.seat)} begs"
    if kind == "gifted" and not quiet:
        return f"  {who(event.gifted.seat)} gives {who(event.gifted.receiver)} a point"
    if kind == "pack_run" and not quiet:
        return f"  {who(event.pack_run.seat)} runs the pack: {' '.join(event.pack_run.exposed)}"
    if kind == "bid_made" and not quiet:
        b = event.bid_made
        return f"  {who(b.seat)} bids {b.tricks} {convert.denomination_from_proto(b.denomination).value}"
    if kind == "passed" and not quiet:
        return f"  {who(event.passed.seat)} passes"
    if kind == "contract_set":
        c = event.contract_set.contract
        return f"  contract: {who(c.seat)} {c.tricks} {convert.denomination_from_proto(c.denomination).value}"
    if kind == "deal_scored":
        s = event.deal_scored
        return f"  points {list(s.points)}, scores {list(s.scores)}"
    if kind == "deal_voided":
        return f"  {event.deal_voided.reason}"
    if kind == "action_timed_out":
        return f"  [yellow]{who(event.action_timed_out.seat)} timed out; the lowest legal action was played[/yellow]"
    if kind == "seat_disconnected":
        return f"  [yellow]{who(event.seat_disconnected.seat)} disconnected[/yellow]"
    return None


def _print_result(console: Console, record: dict[str, Any], result: Any) -> None:
    outcome = record["result"]
    sides = record["sides"]
    names = [s["name"] for s in record["seats"]]
    if outcome["status"] == "finished":
        winners = "; ".join(", ".join(names[s] for s in sides[w]) for w in outcome["winners"])
        console.print(f"[green bold]finished[/green bold]: won by {winners} ({outcome['reason']})")
    else:
        console.print(f"[red bold]aborted[/red bold]: {outcome['reason']}")
    for index, side in enumerate(sides):
        console.print(f"  side {index} ({', '.join(names[s] for s in side)}): {outcome['scores'][index]}")
    counters = [f"{s['name']}: {s['timeouts']} timeouts, {s['rejected']} rejected, {s['disconnects']} disconnects"
                for s in record["seats"] if s.get("timeouts") or s.get("rejected") or s.get("disconnects")]
    for line in counters:
        console.print(f"  [yellow]{line}[/yellow]")


def register(app: typer.Typer) -> None:
    """Add ``match`` to the command line."""
    app.command("match")(match_command)
