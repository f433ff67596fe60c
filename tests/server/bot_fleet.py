"""Many SDK first-legal bots in one process: ``python -m tests.server.bot_fleet ADDRESS [ATTEMPTS]``, tokens on stdin.

Why one process for many seats: the crash-survival test seats some eighty
SDK bots, and eighty Python processes would not start in its time budget on
a 2-core machine; each seat is still a separate SDK connection with its own
reconnects, in a process apart from the server. Reads a JSON list of tokens
on stdin; prints one JSON line per seat (``{"token": ..., "status": ...,
"reason": ...}``, or ``{"token": ..., "error": ...}``) once all are done.
``ATTEMPTS``: reconnect attempts before a seat gives up (the SDK's default
otherwise), for tests that restart more than one process.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from tricktable.bots.first_legal import FirstLegalBot
from tricktable.client_sdk import runner


async def _seat(address: str, token: str, backoff: runner.Backoff | None) -> dict[str, Any]:
    try:
        result = await runner.run_bot_async(FirstLegalBot(), address, token=token, backoff=backoff)
    except Exception as error:  # reported, not raised: the test reads every seat's outcome
        return {"token": token, "error": f"{type(error).__name__}: {error}"}
    return {"token": token, "status": result.status, "reason": result.reason}


async def _main(address: str, tokens: list[str], backoff: runner.Backoff | None) -> None:
    for outcome in await asyncio.gather(*(_seat(address, t, backoff) for t in tokens)):
        print(json.dumps(outcome), flush=True)


if __name__ == "__main__":
    attempts = runner.Backoff(attempts=int(sys.argv[2])) if len(sys.argv) > 2 else None
    asyncio.run(_main(sys.argv[1], json.loads(sys.stdin.read()), attempts))
