"""A first-legal bot that gives up on an unreachable server within a second (the SDK waits 36 s).

``python -m tests.tournament.impatient_client ADDRESS SEED`` (token on ``$TRICKTABLE_TOKEN_FD``): exits 1
when the server goes away, as a bot with a short patience does; the tournament must start it again once the
server is back, without a fault.
"""

from __future__ import annotations

import sys

from tricktable.bots import make_bot
from tricktable.client_sdk.errors import ConnectionLost
from tricktable.client_sdk.handoff import handed_token
from tricktable.client_sdk.runner import Backoff, run_bot


def main(address: str, seed: str) -> int:
    token = handed_token()
    if token is None:
        return 2
    try:
        result = run_bot(make_bot("first-legal", seed), address, token=token, backoff=Backoff(attempts=3))
    except ConnectionLost as exc:
        print(f"gave up: {exc}", file=sys.stderr)
        return 1
    return 0 if result.status == "finished" else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
