"""``tricktable bot BOT --server ADDR (--token T | --seek GAME [--players N] [--seats K] [--games N | --forever])``.

BOT is a built-in bot or the author's own (``module:Class``,
``path/to/file.py:Class``: :func:`bots.make_bot`). The bot is an ordinary
SDK client (:mod:`tricktable.client_sdk.runner`): it joins with the token, or seeks a
game and is seated, plays until the game ends (reconnecting if a working
connection drops) and prints one summary line per game. With ``--seek`` it
can play ``--games N`` games in a row, or keep seeking ``--forever`` (until
Ctrl-C), a fresh bot each game, like lichess-bot's bots. ``--seats K`` runs K
such seats at once in this process (a bot farm: K games in play, ``--games``
each), all over one ``PlayMany`` call per server address
(:mod:`tricktable.client_sdk.mux`) instead of a ``Play`` stream each; one seat
plays on ``Play``. ``--token`` may also name several seats, their tokens
separated by commas: they are played at once over one ``PlayMany`` call, a
fresh bot each.

Exit status 0 when every game finished, 1 when one was aborted, 2 on an
error (unknown bot, bad token, unknown table, unreachable server: a one-line
message, never a traceback), 130 on Ctrl-C.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Annotated

import typer

from tricktable.bots import EXEC_PREFIX, SPEC_HELP, WEBHOOK_PREFIX, BotSpecError, bot_factory
from tricktable.bots.external.adapter import for_server
from tricktable.bots.paced import PacedBot
from tricktable.cli.tls import TlsCa, root_certificates
from tricktable.client_sdk.bot import Bot
from tricktable.client_sdk.errors import SdkError
from tricktable.client_sdk.handoff import handed_token, read_token_file
from tricktable.client_sdk.mux import Seat, SeatMultiplexer, play_seats_async
from tricktable.client_sdk.runner import PlayedSeat, play_seat_async, play_target, seek_async
from tricktable.rules.errors import TricktableError


@dataclass(slots=True)
class Tally:
    """Games played so far by this command, for the closing line."""

    played: int = 0
    won: int = 0
    aborted: int = 0

    def add(self, played: PlayedSeat) -> None:
        """Count one more game."""
        self.played += 1
        self.won += played.won
        self.aborted += played.result.status != "finished"

    def line(self) -> str:
        """The totals, e.g. ``3 games: 2 won, 1 lost or shared, 0 aborted``."""
        return f"{self.played} games: {self.won} won, {self.played - self.won - self.aborted} lost or shared, " \
               f"{self.aborted} aborted"


def summary_line(number: int, played: PlayedSeat) -> str:
    """One line per game: where the bot sat, how it ended, the scores."""
    result = played.result
    if result.status != "finished":
        outcome = f"aborted ({result.reason})"
    elif played.won:
        outcome = "won" if len(result.winners) == 1 else "shared the win"
    else:
        outcome = "lost"
    scores = " ".join(str(s) for s in result.scores)
    extra = "".join(f", {n} {what}" for n, what in ((played.rejections, "rejected"),
                                                    (played.reconnects, "reconnects")) if n)
    return f"game {number}: table {played.table_id} seat {played.seat} (side {played.side}): {outcome}; " \
           f"scores {scores}{extra}"


def _one_spec(spec: str | None, exec_command: str | None, webhook: str | None) -> str:
    """The bot spec of BOT, ``--exec CMD`` (``exec:CMD``) or ``--webhook URL`` (``webhook:URL``).

    Raises:
        typer.Exit: none or more than one given (status 2).
    """
    given = [s for s in (spec, None if exec_command is None else f"exec:{exec_command}",
                         None if webhook is None else f"webhook:{webhook}") if s is not None]
    if len(given) != 1:
        typer.echo("error: name one bot: BOT, --exec CMD or --webhook URL", err=True)
        raise typer.Exit(2)
    return given[0]


def _seat_token(token: str | None, token_file: str | None, *, seeking: bool) -> str | None:
    """The seat's token: ``--token``, read from ``--token-file``, or handed in on a descriptor (not when seeking).

    Raises:
        typer.Exit: both options given, or the token could not be read (status 2, the reason printed).
    """
    if token_file is not None and token is not None:
        typer.echo("error: give --token or --token-file, not both", err=True)
        raise typer.Exit(2)
    if token is not None or (token_file is None and seeking):
        return token
    try:
        # A tournament or `tricktable match` hands it in on a descriptor.
        return read_token_file(token_file) if token_file is not None else handed_token()
    except (OSError, ValueError) as exc:
        where = f" from {token_file}" if token_file is not None else ""
        typer.echo(f"error: cannot read the token{where}: {exc}", err=True)
        raise typer.Exit(2) from None


def bot_command(
    spec: Annotated[str | None, typer.Argument(metavar="[BOT]", help=f"Which bot: {SPEC_HELP}.")] = None,
    exec_command: Annotated[str | None, typer.Option(
        "--exec", help="Play with this program (any language): JSON lines on its stdin/stdout, "
                       "docs/bots-any-language.md. Same as BOT exec:\"CMD\".")] = None,
    webhook: Annotated[str | None, typer.Option(
        "--webhook", help="Play with the HTTP service at this URL (the same JSON messages POSTed). "
                          "Same as BOT webhook:URL.")] = None,
    server: Annotated[str, typer.Option("--server", help="Server address, host:port.")] = "127.0.0.1:50051",
    token: Annotated[str | None, typer.Option("--token", help="Join token of a seat (from CreateTable), or several "
                                              "separated by commas (played at once over one PlayMany call); visible "
                                              "to every local user on the command line: see --token-file.")] = None,
    token_file: Annotated[str | None, typer.Option(
        "--token-file", help="Read the join token from this file (or /dev/fd/N: a descriptor handed in).")] = None,
    seek: Annotated[str | None, typer.Option("--seek", help="Seek a game of this name instead of a token.")] = None,
    players: Annotated[int, typer.Option("--players", min=0, help="Players wanted when seeking (0: default).")] = 0,
    games: Annotated[int, typer.Option("--games", min=1, help="With --seek: games to play in a row (per seat).")] = 1,
    seats: Annotated[int, typer.Option("--seats", min=1, help="With --seek: seats played at once, over one PlayMany "
                                       "call per server address.")] = 1,
    forever: Annotated[bool, typer.Option("--forever", help="With --seek: keep playing until Ctrl-C.")] = False,
    display_name: Annotated[str, typer.Option("--name", help="Display name for the seat.")] = "",
    seed: Annotated[str | None, typer.Option("--seed", help="Seed of the bot's own choices.")] = None,
    wait_for_server: Annotated[float, typer.Option(
        "--wait-for-server", help="Seconds to wait for a server still starting (default: fail at once).")] = 0.0,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log connection events.")] = False,
    delay_ms: Annotated[int, typer.Option("--delay-ms", min=0, help="Wait this long before each action (to watch).")]
    = 0,
    tls_ca: TlsCa = None,
) -> None:
    """Run a bot (built-in or your own) against a server: one game, N games or until stopped."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    spec = _one_spec(spec, exec_command, webhook)
    token = _seat_token(token, token_file, seeking=seek is not None)
    if (token is None) == (seek is None):
        typer.echo("error: give exactly one of --token or --seek", err=True)
        raise typer.Exit(2)
    if token is not None and (games != 1 or forever or seats != 1):
        typer.echo("error: a token is one seat of one game; --games, --forever and --seats need --seek", err=True)
        raise typer.Exit(2)
    try:
        factory = bot_factory(spec)
    except BotSpecError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    external = spec.startswith((EXEC_PREFIX, WEBHOOK_PREFIX))  # its name is its whole command or URL
    label = display_name or (spec if external else spec.rpartition(":")[2] or spec)
    certificates = root_certificates(tls_ca)
    tally = Tally()
    numbers = itertools.count(1) if forever else iter(range(1, games * seats + 1))

    def new_bot(number: int) -> Bot:
        bot = for_server(factory(seed if seed is None or number == 1 else f"{seed}/{number}"))
        return PacedBot(bot, delay_ms / 1000) if delay_ms else bot

    def played(number: int, seat: PlayedSeat) -> None:
        tally.add(seat)
        typer.echo(summary_line(number, seat))

    try:
        if token is not None and "," in token:
            _play_tokens(new_bot, token.split(","), server, label, certificates, wait_for_server, played)
            numbers = iter(())
        if seek is not None and seats > 1:
            asyncio.run(_seek_and_play_many(new_bot, numbers, seats, server, seek, players, label, certificates,
                                            wait_for_server, played))
        for number in numbers:  # one seat: a Play stream (left empty by the seats above)
            bot = new_bot(number)
            if token is not None:
                seat = asyncio.run(play_seat_async(bot, server, token=token, name=label,
                                                   root_certificates=certificates, wait_for_server=wait_for_server))
            elif seek is not None:
                seat = asyncio.run(_seek_and_play(bot, server, seek, players, label, certificates, wait_for_server))
            else:  # checked above: exactly one of --token and --seek
                raise typer.BadParameter("give exactly one of --token or --seek")
            played(number, seat)
    except (SdkError, TricktableError, BotSpecError) as exc:
        _close(tally)
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        _close(tally)
        raise typer.Exit(130) from None
    _close(tally)
    if tally.aborted:
        raise typer.Exit(1)


def _close(tally: Tally) -> None:
    """The closing line, when there was more than one game to sum up."""
    if tally.played > 1:
        typer.echo(tally.line())


async def _seek_and_play(bot: Bot, server: str, game: str, players: int, name: str,
                         certificates: bytes | None, wait: float) -> PlayedSeat:
    seated = await seek_async(server, game=game, players=players, name=name, root_certificates=certificates,
                              wait_for_server=wait)
    return await play_seat_async(bot, play_target(server, seated.play_address), token=seated.token, name=name,
                                 root_certificates=certificates)


def _play_tokens(new_bot: Callable[[int], Bot], tokens: list[str], server: str, name: str,
                 certificates: bytes | None, wait: float, played: Callable[[int, PlayedSeat], None]) -> None:
    """Several given seats at once over one ``PlayMany`` call, a fresh bot each; each seat's line as it ends.

    Raises:
        SdkError: the first seat's error, once every seat has ended.
    """
    seats = [Seat(bot=new_bot(number), token=token, address=server, name=name)
             for number, token in enumerate(tokens, start=1)]
    outcomes = asyncio.run(play_seats_async(seats, root_certificates=certificates, wait_for_server=wait))
    for number, outcome in enumerate(outcomes, start=1):
        if isinstance(outcome, PlayedSeat):
            played(number, outcome)
    errors = [outcome for outcome in outcomes if isinstance(outcome, SdkError)]
    if errors:
        raise errors[0]


async def _seek_and_play_many(new_bot: Callable[[int], Bot], numbers: Iterator[int], seats: int, server: str,
                              game: str, players: int, name: str, certificates: bytes | None, wait: float,
                              played: Callable[[int, PlayedSeat], None]) -> None:
    """``seats`` seats at once, each seeking and playing games while ``numbers`` lasts, over one multiplexer.

    Raises:
        SdkError: the first seat's error (the other seats are stopped).
    """
    async with SeatMultiplexer(root_certificates=certificates, wait_for_server=wait) as mux:

        async def seat() -> None:
            for number in numbers:
                seated = await seek_async(server, game=game, players=players, name=name,
                                          root_certificates=certificates, wait_for_server=wait)
                played(number, await mux.play(new_bot(number), play_target(server, seated.play_address),
                                              token=seated.token, name=name))

        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(seats):
                    group.create_task(seat())
        except ExceptionGroup as failed:  # the first seat's error, as one seat on Play would raise it
            raise failed.exceptions[0] from None


def register(app: typer.Typer) -> None:
    """Add ``bot`` to the command line."""
    app.command("bot")(bot_command)
