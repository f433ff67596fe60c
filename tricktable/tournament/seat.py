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
    from collections.abc import Awaitable, Callable

    from tricktable.client_sdk.bot import Bot, Choice
    from tricktable.rules.game import SeatView

    #: Told each fault of the seat's bot as it happens: its kind and its message.
    Report = Callable[[str, str], None]

#: Seconds a seat's bot keeps trying its first connection to the tournament's server.
SERVER_WAIT_SECONDS = 30.0
#: Environment variable with the pid of the tournament that started the bot.
PARENT_ENV = "TRICKTABLE_TOURNAMENT_PID"
#: Environment variable naming the descriptor of the tournament's lifeline (see :func:`_exit_with_parent`).
LIFELINE_ENV = "TRICKTABLE_LIFELINE_FD"
#: Environment variable with the Unix socket a webhook entrant's seat reaches its URL through (sandboxed: the
#: seat has no network; the tournament relays the socket to the URL's host and port).
WEBHOOK_SOCKET_ENV = "TRICKTABLE_WEBHOOK_SOCKET"


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


class _Reporting:
    """The seat's bot, each of its faults reported as it happens (the tournament counts them toward a forfeit).

    Why here: the faults happen in this process (an exec bot's program wrote garbage, a Python bot raised),
    and the SDK runner only logs them; the tournament sees only this process's control descriptor. A
    synchronous bot stays synchronous. Hooks are passed on to the bot.
    """

    def __init__(self, bot: Bot, report: Report) -> None:
        self.bot = bot
        self.report = report

    def choose_action(self, view: SeatView) -> Choice | Awaitable[Choice]:
        """The bot's choice; a fault is reported, then raised or returned as the bot made it."""
        from tricktable.client_sdk.bot import is_pending

        try:
            choice = self.bot.choose_action(view)
        except BaseException as exc:
            self._fault(exc)
            raise
        if is_pending(choice):
            return self._awaited(choice)
        self._check(choice)
        return choice

    async def _awaited(self, pending: Awaitable[Choice]) -> Choice:
        try:
            choice = await pending
        except BaseException as exc:
            self._fault(exc)
            raise
        self._check(choice)
        return choice

    def _fault(self, exc: BaseException) -> None:
        from tricktable.client_sdk.bot import BotFault

        if isinstance(exc, BotFault):
            self.report(exc.kind, str(exc))
        elif isinstance(exc, Exception):  # a cancel (the SDK's own cut-off, the end) is no fault of the bot
            self.report("crashed", f"{type(exc).__name__}: {exc}")

    def _check(self, choice: Choice) -> None:
        from tricktable.client_sdk.bot import not_an_action, split_choice

        problem = not_an_action(split_choice(choice)[0])
        if problem is not None:
            self.report("garbage", f"choose_action {problem}")

    def __getattr__(self, name: str) -> object:
        return getattr(self.bot, name)


def _seat_bot(name: str, seed: str | None, report: Report | None = None) -> Bot:
    """The bot that plays one seat, as the SDK runner is best served (a program or a URL answers in a thread).

    One function for a seat played once and for the seats of a long-lived process, which plays several at
    once on one event loop: an adapter blocking it would stall them all. With ``report``, each fault of the
    bot is told as it happens, and an exec bot's program's stderr is passed on whole (the tournament keeps
    its end: :mod:`tricktable.tournament.bot_output`).
    """
    import os

    from tricktable.bots import make_bot
    from tricktable.bots.external.adapter import for_server
    from tricktable.bots.external.exec_bot import ExecBot
    from tricktable.bots.external.webhook_bot import WebhookBot

    made = make_bot(name, seed)
    relayed = os.environ.get(WEBHOOK_SOCKET_ENV)
    if relayed and isinstance(made, WebhookBot):
        made.through(relayed)
    if report is None:
        return for_server(made)
    if isinstance(made, ExecBot):
        made.show_all_stderr()
    return _Reporting(for_server(made), report)


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
    from tricktable.tournament.control import MAX_LINE_BYTES, ControlError, Done, Fault, Hand

    reader, writer = await asyncio.open_unix_connection(sock=socket.socket(fileno=fd), limit=MAX_LINE_BYTES)
    playing: set[asyncio.Task[None]] = set()

    def reporter(play: str) -> Report:
        def report(kind: str, message: str) -> None:
            writer.write(Fault(play=play, kind=kind, message=message).line())  # flushed by the loop as it runs

        return report

    async def play(hand: Hand) -> None:
        try:
            bot = _seat_bot(name, hand.seed or None, reporter(hand.play))
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
