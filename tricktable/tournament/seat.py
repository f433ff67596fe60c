"""``python -m tricktable.tournament.seat BOT ADDRESS [SEED] [NAME] [TLS_CA]``: one bot plays a seat.

``python -m tricktable.tournament.seat --serve BOT ADDRESS [NAME] [TLS_CA]``:
one long-lived process plays the seats handed to it on its control
descriptor, one after another (:mod:`tricktable.tournament.control`), each
with a bot made afresh from its seat's seed; it exits when the descriptor
ends.

The bot is built-in, ``module:Class`` or ``file.py:Class``; the seat's token
is handed in on a descriptor (:mod:`tricktable.client_sdk.handoff`), never on
the command line, where every local user could read it.
The same SDK client as ``tricktable bot BOT --server ADDRESS --token-file F``
(:func:`bots.make_bot` and :func:`client_sdk.runner.run_bot`), without
loading the whole command line: a tournament starts one bot process per seat
per match, and the command line's imports would triple each start. Exit
status as ``tricktable bot``: 0 finished, 1 aborted, 2 error.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tricktable.client_sdk.bot import Bot

#: Seconds a seat's bot keeps trying its first connection to the tournament's server.
SERVER_WAIT_SECONDS = 30.0
#: Environment variable with the pid of the tournament that started the bot.
PARENT_ENV = "TRICKTABLE_TOURNAMENT_PID"
#: Environment variable naming the descriptor of the tournament's lifeline (see :func:`_exit_with_parent`).
LIFELINE_ENV = "TRICKTABLE_LIFELINE_FD"


def _exit_with_parent() -> None:
    """Exit when the tournament that started this bot dies (a kill must not leave bots reconnecting for a minute).

    The tournament hands every bot the read end of a pipe whose write end only it holds
    (:data:`LIFELINE_ENV`): the pipe reads as ended the moment the tournament is gone, however it went and
    wherever the bot runs (a sandbox's PID namespace hides the tournament's pid). Without one, the pid the
    tournament names (:data:`PARENT_ENV`) or, failing that, this process's parent is watched.
    """
    import os
    import select
    import threading
    import time

    lifeline = os.environ.pop(LIFELINE_ENV, "")
    if lifeline.isdigit():
        fd = int(lifeline)

        def hold() -> None:
            with contextlib.suppress(OSError):
                select.select([fd], [], [])  # readable only at its end: nobody writes to it
            os._exit(3)

        threading.Thread(target=hold, name="lifeline", daemon=True).start()
        return
    # A shell may stand between the tournament and this process, and a bot started just as the tournament
    # died would otherwise watch its new parent, init.
    named = int(os.environ.get(PARENT_ENV, "0"))
    parent = os.getppid()

    def gone() -> bool:
        if not named:
            return os.getppid() != parent
        try:
            os.kill(named, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False

    if gone():
        os._exit(3)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if gone():
                os._exit(3)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _seat_bot(name: str, seed: str | None) -> Bot:
    """The bot that plays one seat, as the SDK runner is best served (a program or a URL answers in a thread).

    One function for a seat played once and for the seats of a long-lived process, which plays several at
    once on one event loop: an adapter blocking it would stall them all.
    """
    from tricktable.bots import make_bot
    from tricktable.bots.external.adapter import for_server

    return for_server(make_bot(name, seed))


def serve(argv: list[str]) -> int:
    """Play every seat handed on the control descriptor until it ends; returns the exit status."""
    from tricktable.client_sdk.handoff import CONTROL_FD_ENV, handed_control

    try:
        fd = handed_control()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if len(argv) < 2 or fd is None:
        print("usage: python -m tricktable.tournament.seat --serve BOT ADDRESS [NAME] [TLS_CA], with the control "
              f"descriptor named by {CONTROL_FD_ENV}", file=sys.stderr)
        return 2
    _exit_with_parent()
    import asyncio

    name = argv[0]
    label = argv[2] if len(argv) > 2 else name
    root_certificates = Path(argv[3]).read_bytes() if len(argv) > 3 and argv[3] else None
    asyncio.run(_serve(fd, name, label, root_certificates))
    return 0


async def _serve(fd: int, name: str, label: str, root_certificates: bytes | None) -> None:
    """Read seat lines, play each seat as it comes, answer when through with it."""
    import asyncio
    import socket

    from tricktable.bots import BotSpecError
    from tricktable.client_sdk.errors import SdkError
    from tricktable.client_sdk.runner import run_bot_async
    from tricktable.rules.errors import TricktableError
    from tricktable.tournament.control import MAX_LINE_BYTES, ControlError, Done, Hand

    reader, writer = await asyncio.open_unix_connection(sock=socket.socket(fileno=fd), limit=MAX_LINE_BYTES)
    playing: set[asyncio.Task[None]] = set()

    async def play(hand: Hand) -> None:
        try:
            bot = _seat_bot(name, hand.seed or None)
            result = await run_bot_async(bot, hand.address, token=hand.token, name=label,
                                         root_certificates=root_certificates, wait_for_server=SERVER_WAIT_SECONDS)
            done = Done(play=hand.play, status="finished" if result.status == "finished" else "aborted")
        except (BotSpecError, SdkError, TricktableError) as exc:
            done = Done(play=hand.play, status="error", error=str(exc))
        writer.write(done.line())
        await writer.drain()

    while line := await reader.readline():
        try:
            hand = Hand.parse(line)
        except ControlError as exc:
            print(f"error: {exc}", file=sys.stderr)
            continue
        task = asyncio.ensure_future(play(hand))
        playing.add(task)
        task.add_done_callback(playing.discard)
    for task in playing:  # the tournament is over: nothing left to play for
        task.cancel()


def main(argv: list[str]) -> int:
    """Play the seat; returns the exit status."""
    if argv[:1] == ["--serve"]:
        return serve(argv[1:])
    from tricktable.client_sdk.handoff import TOKEN_FD_ENV, handed_token

    try:
        token = handed_token()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if len(argv) < 2 or token is None:
        print("usage: python -m tricktable.tournament.seat BOT ADDRESS [SEED] [NAME] [TLS_CA], with the seat's "
              f"token on the descriptor named by {TOKEN_FD_ENV}", file=sys.stderr)
        return 2
    _exit_with_parent()
    from tricktable.bots import BotSpecError
    from tricktable.client_sdk.errors import SdkError
    from tricktable.client_sdk.runner import run_bot
    from tricktable.rules.errors import TricktableError

    name, address = argv[0], argv[1]
    seed = argv[2] if len(argv) > 2 and argv[2] else None
    label = argv[3] if len(argv) > 3 else name
    root_certificates = Path(argv[4]).read_bytes() if len(argv) > 4 and argv[4] else None
    try:
        bot = _seat_bot(name, seed)
        # The tournament started the server before this process: a first connection that fails is the machine
        # being slow, not a wrong address, so it is given time (a forfeit would change the results).
        result = run_bot(bot, address, token=token, name=label, root_certificates=root_certificates,
                         wait_for_server=SERVER_WAIT_SECONDS)
    except (BotSpecError, SdkError, TricktableError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0 if result.status == "finished" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
