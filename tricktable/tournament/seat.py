"""``python -m tournament.seat BOT ADDRESS TOKEN [SEED] [NAME]``: one bot (built-in or module:Class) plays a seat.

The same SDK client as ``tricktable bot BOT --server ADDRESS --token TOKEN``
(:func:`bots.make_bot` and :func:`client_sdk.runner.run_bot`), without
loading the whole command line: a tournament starts one bot process per seat
per match, and the command line's imports would triple each start. Exit
status as ``tricktable bot``: 0 finished, 1 aborted, 2 error.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: Seconds a seat's bot keeps trying its first connection to the tournament's server.
SERVER_WAIT_SECONDS = 30.0
#: Environment variable with the pid of the tournament that started the bot.
PARENT_ENV = "TRICKTABLE_TOURNAMENT_PID"


def _exit_with_parent() -> None:
    """Exit when the tournament that started this bot dies (a kill must not leave bots reconnecting for a minute)."""
    import os
    import threading
    import time

    # The tournament names itself (a shell may stand between it and this process, and a bot started just
    # as the tournament died would otherwise watch its new parent, init).
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


def main(argv: list[str]) -> int:
    """Play the seat; returns the exit status."""
    if len(argv) < 3:
        print("usage: python -m tricktable.tournament.seat BOT ADDRESS TOKEN [SEED] [NAME] [TLS_CA]", file=sys.stderr)
        return 2
    _exit_with_parent()
    from tricktable.bots import BotSpecError, make_bot
    from tricktable.client_sdk.errors import SdkError
    from tricktable.client_sdk.runner import run_bot
    from tricktable.rules.errors import TricktableError

    name, address, token = argv[0], argv[1], argv[2]
    seed = argv[3] if len(argv) > 3 else None
    label = argv[4] if len(argv) > 4 else name
    root_certificates = Path(argv[5]).read_bytes() if len(argv) > 5 else None
    try:
        bot = make_bot(name, seed)
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
