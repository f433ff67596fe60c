"""A first-legal bot that gives up on a lost server, but quits only once the server answers again.

``python -m tests.tournament.late_quitter ADDRESS SEED NOTE`` (token on ``$TRICKTABLE_TOKEN_FD``): on a lost
connection it waits for the server to be back, appends a line to the file NOTE and exits 1, as a bot does
whose exit is noticed after the restart it gave up on; the tournament must start it again without a fault.
"""

from __future__ import annotations

import asyncio
import sys

from tricktable.bots import make_bot
from tricktable.client_sdk.errors import ConnectionLost
from tricktable.client_sdk.handoff import handed_token
from tricktable.client_sdk.runner import Backoff, connect, open_channel, run_bot


async def server_back(address: str) -> None:
    channel = open_channel(address)
    try:
        await connect(channel, address, wait_for_server=120.0)
    finally:
        await channel.close(None)


def main(address: str, seed: str, note: str) -> int:
    token = handed_token()
    if token is None:
        return 2
    try:
        result = run_bot(make_bot("first-legal", seed), address, token=token, backoff=Backoff(attempts=1))
    except ConnectionLost:
        asyncio.run(server_back(address))
        with open(note, "a") as handle:
            handle.write("quit once the server was back\n")
        return 1
    return 0 if result.status == "finished" else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
